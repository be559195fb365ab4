// SPDX-License-Identifier: Apache-2.0
package io.numaspread.netty;

import io.prometheus.metrics.core.metrics.CounterWithCallback;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.util.List;

/**
 * Exports a group's {@link ConnectionSteering} counters to the application's Prometheus registry (the optional
 * {@code io.prometheus:prometheus-metrics-core} dependency), for the "connections steered" panel of the
 * {@code numaspread watch} dashboard: {@code numaspread_netty_connections_steered_total} and
 * {@code numaspread_netty_connections_fell_back_total}, labelled with the group's name; when steering by NAPI ID,
 * {@code numaspread_netty_connections_napi_id_unknown_total}; and per loop (labels group, loop)
 * {@code numaspread_netty_connections_off_queue_total}, connections that arrived on a queue other than the loop's. The
 * values are read at each scrape; nothing is counted twice.
 */
public final class SteeringMetrics {
    private SteeringMetrics() {}

    /**
     * @param group names this group in the {@code group} label (a server may steer several)
     */
    public static void register(PrometheusRegistry registry, String group, ConnectionSteering steering) {
        CounterWithCallback.builder()
                .name("numaspread_netty_connections_napi_id_unknown")
                .help("Accepted connections whose NAPI ID named no queue with a loop, steered by incoming CPU instead")
                .labelNames("group")
                .callback(callback -> callback.call(steering.napiIdUnknown(), group))
                .register(registry);
        CounterWithCallback.builder()
                .name("numaspread_netty_connections_off_queue")
                .help("Accepted connections registered on a loop whose own queue is not the one they arrived on")
                .labelNames("group", "loop")
                .callback(callback -> {
                    List<Long> offQueue = steering.offQueueByLoop();
                    for (int loop = 0; loop < offQueue.size(); loop++) {
                        callback.call(offQueue.get(loop), group, Integer.toString(loop));
                    }
                })
                .register(registry);
        CounterWithCallback.builder()
                .name("numaspread_netty_connections_steered")
                .help("Accepted connections registered on the event loop of their SO_INCOMING_CPU")
                .labelNames("group")
                .callback(callback -> callback.call(steering.steered(), group))
                .register(registry);
        CounterWithCallback.builder()
                .name("numaspread_netty_connections_fell_back")
                .help("Accepted connections left to Netty's chooser (incoming CPU unknown or covered by no loop)")
                .labelNames("group")
                .callback(callback -> callback.call(steering.fellBack(), group))
                .register(registry);
    }
}
