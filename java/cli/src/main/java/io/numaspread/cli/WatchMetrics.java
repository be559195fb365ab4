// SPDX-License-Identifier: Apache-2.0
package io.numaspread.cli;

import io.numaspread.irq.Target;
import io.numaspread.kernel.AtomicFile;
import io.numaspread.kernel.Errno;
import io.numaspread.kernel.InterfaceName;
import io.numaspread.kernel.KernelPaths;
import io.numaspread.nativeaccess.NativeBackend;
import io.numaspread.nic.InterruptTable;
import io.numaspread.nic.Nic;
import io.numaspread.nic.NicVector;
import io.numaspread.nic.QueueCounters;
import io.numaspread.nic.QueueStats;
import io.numaspread.plan.Assignment;
import io.numaspread.plan.SpreadPlan;
import io.numaspread.watch.KernelEvent;
import io.numaspread.watch.WatchEvent;
import io.numaspread.watch.Watcher;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.CounterWithCallback;
import io.prometheus.metrics.core.metrics.Gauge;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.stream.Collectors;

/**
 * watch's metrics, in a Prometheus registry: counted from the events the watcher reports, and read from the
 * kernel at each scrape for the interrupt counts. Served over HTTP or written to a node-exporter textfile by the
 * command.
 */
final class WatchMetrics implements Watcher.Listener {
    private final PrometheusRegistry registry = new PrometheusRegistry();
    private final Consumer<String> lines;
    private final KernelPaths paths;
    private final Optional<Path> textfile;
    private final Map<InterfaceName, Nic> nics = new ConcurrentHashMap<>();
    private final Map<InterfaceName, SpreadPlan> plans = new ConcurrentHashMap<>();
    private final Counter events;
    private final String nicsLabel;
    private final Counter drifts;
    private final Counter reapplies;
    private final Counter fights;
    private final Counter napiThreads;
    private final Counter settleCutShort;
    private final Counter forcedRereads;
    private final Clock clock;
    /** Per IRQ of a fight, when its current round stops leaving the IRQ alone; EPOCH once the fight is over. */
    private final Map<FoughtIrq, Instant> leftAloneUntil = new ConcurrentHashMap<>();

    private final Gauge lastCheck;
    private final Gauge present;
    private final NativeBackend queueCounterBackend;

    /**
     * @param watched the NICs this watch places; their names, joined with commas, label the two series that are the
     *     process's, not one NIC's, so that each instance's (one per NIC with the systemd unit) are its own in a
     *     node-exporter textfile directory that holds them all
     */
    WatchMetrics(
            List<InterfaceName> watched,
            Consumer<String> lines,
            KernelPaths paths,
            Optional<Path> textfile,
            String backend,
            String eventSource,
            NativeBackend queueCounterBackend,
            Clock clock) {
        this.lines = lines;
        this.clock = clock;
        this.paths = paths;
        this.textfile = textfile;
        this.queueCounterBackend = queueCounterBackend;
        Gauge info = Gauge.builder()
                .name("numaspread_watch_info")
                .help("1, with the backend and where events come from (netlink or polling)")
                .labelNames("nics", "backend", "events")
                .register(registry);
        String nicsLabel = watched.stream().map(InterfaceName::value).collect(Collectors.joining(","));
        info.labelValues(nicsLabel, backend, eventSource).set(1);
        events = Counter.builder()
                .name("numaspread_kernel_events_total")
                .help("Events that concern a watched NIC or the CPUs, by source (rtnetlink, uevent, kubelet)")
                .labelNames("nics", "source")
                .register(registry);
        this.nicsLabel = nicsLabel;
        // Known from the start, so that a dashboard shows 0 rather than no data.
        events.labelValues(nicsLabel, "rtnetlink").inc(0);
        events.labelValues(nicsLabel, "uevent").inc(0);
        drifts = Counter.builder()
                .name("numaspread_drift_events_total")
                .help("IRQ or XPS files found changed by another writer at a drift check")
                .labelNames("nic")
                .register(registry);
        reapplies = Counter.builder()
                .name("numaspread_reapplies_total")
                .help("Times the plan was written, by reason: start, change (CPUs, queues or IRQs changed),"
                        + " reset (the kernel moved IRQs after an event), drift (another writer)")
                .labelNames("nic", "reason")
                .register(registry);
        fights = Counter.builder()
                .name("numaspread_fights_total")
                .help("Rounds of fights: another writer kept moving this IRQ back, and watch backed off")
                .labelNames("nic", "irq")
                .register(registry);
        napiThreads = Counter.builder()
                .name("numaspread_napi_threads_pinned_total")
                .help("NAPI kernel threads pinned again by watch --napi-threads: re-created (threaded toggled,"
                        + " ethtool -L, a reset) or moved by another writer")
                .labelNames("nic")
                .register(registry);
        settleCutShort = Counter.builder()
                .name("numaspread_settle_cut_short_total")
                .help("Checks after events that kept coming for the whole settle bound (8 settle intervals, 2 s):"
                        + " planned with what had come rather than wait for them to stop")
                .labelNames("nic")
                .register(registry);
        forcedRereads = Counter.builder()
                .name("numaspread_forced_rereads_total")
                .help("Checks that read the NIC afresh because events were not kept (more than 1024 waiting at"
                        + " once): the queue coalesces a flood into one re-read of every NIC")
                .labelNames("nic")
                .register(registry);
        // Read at each scrape, so that it falls to 0 when the round's back-off is over, not at the next event.
        GaugeWithCallback.builder()
                .name("numaspread_fight_backoff_seconds")
                .help("How much longer the current round of a fight leaves the IRQ alone; 0 once that back-off is"
                        + " over or the fight has ended")
                .labelNames("nic", "irq")
                .callback(callback -> {
                    Instant now = clock.instant();
                    leftAloneUntil.forEach((irq, until) -> callback.call(
                            Math.max(0, Duration.between(now, until).toMillis()) / 1000.0, irq.nic(), irq.irq()));
                })
                .register(registry);
        lastCheck = Gauge.builder()
                .name("numaspread_last_check_timestamp_seconds")
                .help("When the NIC's files were last compared with its plan (Unix time)")
                .labelNames("nic")
                .register(registry);
        present = Gauge.builder()
                .name("numaspread_nic_present")
                .help("1 while the NIC exists with its queue vectors, 0 while it is gone (unbound, removed)")
                .labelNames("nic")
                .register(registry);
        CounterWithCallback.builder()
                .name("numaspread_interrupts_total")
                .help("Interrupts of each queue vector of a watched NIC on each CPU, from /proc/interrupts")
                .labelNames("nic", "irq", "vector", "queue", "cpu")
                .callback(this::interrupts)
                .register(registry);
        CounterWithCallback.builder()
                .name("numaspread_queue_packets_total")
                .help("Packets of each queue of a watched NIC as its driver counts them (netdev qstats-get, Linux"
                        + " 6.10+): received (rx) or sent (tx)")
                .labelNames("nic", "queue", "direction")
                .callback(callback -> queueCounters((iface, counters) -> counters.packets()
                        .ifPresent(packets -> callback.call(
                                packets,
                                iface.value(),
                                Integer.toString(counters.queue()),
                                counters.receive() ? "rx" : "tx"))))
                .register(registry);
        CounterWithCallback.builder()
                .name("numaspread_queue_bytes_total")
                .help("Bytes of each queue of a watched NIC as its driver counts them (netdev qstats-get, Linux"
                        + " 6.10+): received (rx) or sent (tx)")
                .labelNames("nic", "queue", "direction")
                .callback(callback -> queueCounters((iface, counters) -> counters.bytes()
                        .ifPresent(bytes -> callback.call(
                                bytes,
                                iface.value(),
                                Integer.toString(counters.queue()),
                                counters.receive() ? "rx" : "tx"))))
                .register(registry);
        GaugeWithCallback.builder()
                .name("numaspread_plan_cpu")
                .help("1 for each CPU the plan gives each queue")
                .labelNames("nic", "queue", "cpu")
                .callback(callback -> plans.forEach((iface, plan) -> {
                    Nic nic = nics.get(iface);
                    for (int index = 0; index < plan.size(); index++) {
                        Assignment assignment = plan.get(index);
                        String queue = Integer.toString(nic.queues().get(index));
                        for (int cpu : assignment.cpus().toArray()) {
                            callback.call(1, iface.value(), queue, Integer.toString(cpu));
                        }
                    }
                }))
                .register(registry);
        GaugeWithCallback.builder()
                .name("numaspread_plan_queue_cpus")
                .help("How many CPUs the plan gives each queue; the cpus label lists them")
                .labelNames("nic", "queue", "cpus")
                .callback(callback -> plans.forEach((iface, plan) -> {
                    Nic nic = nics.get(iface);
                    for (int index = 0; index < plan.size(); index++) {
                        Assignment assignment = plan.get(index);
                        callback.call(
                                assignment.cpus().size(),
                                iface.value(),
                                Integer.toString(nic.queues().get(index)),
                                assignment.cpus().toString());
                    }
                }))
                .register(registry);
    }

    PrometheusRegistry registry() {
        return registry;
    }

    /** Counts a kernel event the watcher took: one that concerns a watched NIC or the CPUs. */
    void count(KernelEvent event) {
        events.labelValues(nicsLabel, event.source()).inc();
    }

    @Override
    public void heard(WatchEvent event) {
        InterfaceName iface = event.nic();
        if (event instanceof WatchEvent.Checked checked) {
            checked(iface, checked.at(), checked.read(), checked.plan());
        } else if (event instanceof WatchEvent.Gone gone) {
            gone(iface, gone.at());
        } else if (event instanceof WatchEvent.Applied) {
            reapplied(iface, "start");
        } else if (event instanceof WatchEvent.Changed) {
            reapplied(iface, "change");
        } else if (event instanceof WatchEvent.ResetPutBack) {
            reapplied(iface, "reset");
        } else if (event instanceof WatchEvent.DriftPutBack) {
            reapplied(iface, "drift");
        } else if (event instanceof WatchEvent.DriftFound drift) {
            drifts.labelValues(iface.value()).inc(drift.targets().size());
        } else if (event instanceof WatchEvent.NapiThreadsPinned pinned) {
            napiThreads.labelValues(iface.value()).inc(pinned.threads());
        } else if (event instanceof WatchEvent.FightRound fight) {
            fights.labelValues(iface.value(), Integer.toString(fight.target().number()))
                    .inc();
            leftAloneUntil.put(FoughtIrq.of(iface, fight.target()), fight.until());
        } else if (event instanceof WatchEvent.Flood flood) {
            if (!flood.quiet()) {
                settleCutShort.labelValues(iface.value()).inc();
            }
            if (flood.notKept() > 0) {
                forcedRereads.labelValues(iface.value()).inc();
            }
        } else if (event instanceof WatchEvent.FightOver over) {
            leftAloneUntil.replace(FoughtIrq.of(iface, over.target()), Instant.EPOCH);
        }
    }

    private void checked(InterfaceName iface, Instant at, Nic nic, SpreadPlan plan) {
        // Both maps are read together by the callbacks; the plan is put last so that its NIC is always there.
        nics.put(iface, nic);
        plans.put(iface, plan);
        lastCheck.labelValues(iface.value()).set(at.toEpochMilli() / 1000.0);
        present.labelValues(iface.value()).set(1);
        writeTextfile();
    }

    private void gone(InterfaceName iface, Instant at) {
        plans.remove(iface);
        nics.remove(iface);
        lastCheck.labelValues(iface.value()).set(at.toEpochMilli() / 1000.0);
        present.labelValues(iface.value()).set(0);
        writeTextfile();
    }

    /** The plan was written again; {@code reason}: start, change, reset, drift. */
    private void reapplied(InterfaceName iface, String reason) {
        reapplies.labelValues(iface.value(), reason).inc();
    }

    /** The labels of one IRQ's fight. */
    private record FoughtIrq(String nic, String irq) {
        static FoughtIrq of(InterfaceName iface, Target target) {
            return new FoughtIrq(iface.value(), Integer.toString(target.number()));
        }
    }

    private void interrupts(CounterWithCallback.Callback callback) {
        if (nics.isEmpty()) {
            return;
        }
        InterruptTable table;
        try {
            table = InterruptTable.read(paths);
        } catch (RuntimeException e) {
            return; // /proc/interrupts unreadable for a moment: this scrape has no interrupt counts
        }
        nics.forEach((iface, nic) -> {
            for (NicVector vector : nic.queueVectors()) {
                table.line(vector.irq())
                        .ifPresent(line -> line.countsByCpu()
                                .forEach((cpu, count) -> callback.call(
                                        count,
                                        iface.value(),
                                        Integer.toString(vector.irq()),
                                        vector.name(),
                                        Integer.toString(vector.queue()),
                                        Integer.toString(cpu))));
            }
        });
    }

    /** Each watched NIC's per-queue counters, where its kernel, driver and this backend give them. */
    private void queueCounters(BiConsumer<InterfaceName, QueueCounters> each) {
        for (InterfaceName iface : nics.keySet()) {
            Optional<List<QueueCounters>> counters;
            try {
                counters = QueueStats.read(iface, paths, queueCounterBackend);
            } catch (RuntimeException e) {
                continue; // the NIC went away or netlink failed for a moment: this scrape has no counters for it
            }
            counters.ifPresent(queues -> queues.forEach(queue -> each.accept(iface, queue)));
        }
    }

    /**
     * For node-exporter's textfile collector: the whole exposition, replaced as the state file is (as root, in a
     * directory others may have prepared: a temporary file created new, never through a link, then renamed over).
     */
    private void writeTextfile() {
        if (textfile.isEmpty()) {
            return;
        }
        Path file = textfile.get();
        try {
            ByteArrayOutputStream exposition = new ByteArrayOutputStream();
            PrometheusTextFormatWriter.create().write(exposition, registry.scrape());
            AtomicFile.replace(file, exposition.toByteArray());
        } catch (IOException e) {
            lines.accept("metrics: cannot write " + file + ": " + Errno.describe(e));
        }
    }
}
