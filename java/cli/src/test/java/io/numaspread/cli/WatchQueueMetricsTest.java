// SPDX-License-Identifier: Apache-2.0
package io.numaspread.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.numaspread.kernel.InterfaceName;
import io.numaspread.kernel.KernelPaths;
import io.numaspread.kernel.KernelText;
import io.numaspread.kernel.SysfsTree;
import io.numaspread.nativeaccess.Backends;
import io.numaspread.nativeaccess.NativeBackend;
import io.numaspread.nic.Nic;
import io.numaspread.nic.NicDiscovery;
import io.numaspread.plan.Purpose;
import io.numaspread.plan.SpreadPlan;
import io.numaspread.testing.NeedsLiveNic;
import io.numaspread.topology.Topology;
import io.numaspread.topology.TopologyDiscovery;
import io.numaspread.watch.WatchEvent;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * watch's per-queue counters on the live eth0, scraped from the metrics registry (no IRQ is written): on Linux
 * 6.10 and newer they come from netdev qstats-get, and the received packets lie between the device's sysfs
 * counter read before and after the scrape.
 */
@NeedsLiveNic
class WatchQueueMetricsTest {
    private static final InterfaceName ETH0 = new InterfaceName("eth0");

    @Test
    void eachQueuesPacketsAndBytesAreExportedAndAddUp() throws Exception {
        NativeBackend backend = Backends.live().backend();
        List<String> lines = new ArrayList<>();
        WatchMetrics metrics = new WatchMetrics(
                List.of(ETH0),
                lines::add,
                KernelPaths.LIVE,
                Optional.empty(),
                backend.kind().id(),
                "netlink",
                backend,
                Clock.systemUTC());
        Nic nic = NicDiscovery.discover(ETH0, KernelPaths.LIVE);
        Topology topology = TopologyDiscovery.discover(backend, SysfsTree.live());
        SpreadPlan plan = PlanOptions.plan(topology, nic.planRequest(topology, Purpose.IRQS));
        metrics.heard(new WatchEvent.Checked(ETH0, Instant.now(), nic, plan));

        Path statistics = KernelPaths.LIVE.netDevice(ETH0).resolve("statistics");
        long before = Long.parseLong(KernelText.readRequired(statistics.resolve("rx_packets")));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        PrometheusTextFormatWriter.create().write(out, metrics.registry().scrape());
        long after = Long.parseLong(KernelText.readRequired(statistics.resolve("rx_packets")));
        String text = out.toString(StandardCharsets.UTF_8);

        Matcher rx = Pattern.compile("numaspread_queue_packets_total\\{direction=\"rx\",nic=\"eth0\",queue=\"(\\d+)\"} "
                        + "([0-9.E]+)")
                .matcher(text);
        long sum = 0;
        int queues = 0;
        while (rx.find()) {
            sum += (long) Double.parseDouble(rx.group(2));
            queues++;
        }
        String release = KernelText.readRequired(Path.of("/proc/sys/kernel/osrelease"));
        String[] version = release.split("[.-]");
        boolean qstats = Integer.parseInt(version[0]) > 6
                || (Integer.parseInt(version[0]) == 6 && Integer.parseInt(version[1]) >= 10);
        if (!qstats) {
            assertEquals(0, queues, text);
            return;
        }
        assertEquals(nic.queues().size(), queues, "one rx sample per queue: " + text);
        assertTrue(before <= sum && sum <= after, before + " <= " + sum + " <= " + after);
        assertTrue(text.contains("numaspread_queue_bytes_total{direction=\"tx\",nic=\"eth0\",queue=\"0\"}"), text);
        assertEquals(List.of(), lines, "nothing to report");
    }
}
