// SPDX-License-Identifier: Apache-2.0
package io.numaspread.watch;

import io.numaspread.CpuSet;
import io.numaspread.NumaspreadException;
import io.numaspread.irq.AffinityTransaction;
import io.numaspread.irq.NicPlacement;
import io.numaspread.irq.Setting;
import io.numaspread.irq.Target;
import io.numaspread.irq.Wanted;
import io.numaspread.kernel.InterfaceName;
import io.numaspread.kernel.KernelPaths;
import io.numaspread.kernel.SysfsTree;
import io.numaspread.nativeaccess.SysfsBackend;
import io.numaspread.nic.Nic;
import io.numaspread.nic.NicDiscovery;
import io.numaspread.plan.SpreadPlan;
import io.numaspread.topology.Topology;
import io.numaspread.topology.TopologyDiscovery;
import java.nio.file.Files;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * Reads the kernel's state for a check and judges it: the machine, the NIC and the plan made for them now, and
 * whether that is what the last check placed, changed since, back as it went, or moved in its files; a NIC that
 * cannot be read is said gone.
 */
final class KernelReader {
    private static final int TOPOLOGY_ATTEMPTS = 3;
    private static final Duration TOPOLOGY_RETRY = Duration.ofMillis(100);

    private final List<InterfaceName> nics;
    private final KernelPaths paths;
    private final WatchPlanning planning;
    /** The CPUs a NIC's queues sit on now, by queue: its last check's plan, none before its first. */
    private final Function<InterfaceName, List<CpuSet>> sitting;

    private final Watcher.Settings settings;
    private final NicPlacement placement;
    private final Watcher.Listener listener;
    private final Settler settler;
    /** The kubelet's exclusive CPUs last read well: kept while the file cannot be read. */
    private CpuSet lastKeptFree = CpuSet.EMPTY;
    /** Why the kubelet's file could not be read, said when it turns bad and not again until it reads well. */
    private Optional<String> keptFreeProblem = Optional.empty();
    /** Each watched NIC as last read: a NIC in a reset, its interface there and its vectors not, is planned so. */
    private final Map<InterfaceName, Nic> lastRead = new HashMap<>();

    KernelReader(
            List<InterfaceName> nics,
            KernelPaths paths,
            WatchPlanning planning,
            Function<InterfaceName, List<CpuSet>> sitting,
            Watcher.Settings settings,
            NicPlacement placement,
            Watcher.Listener listener,
            Settler settler) {
        this.nics = nics;
        this.paths = paths;
        this.planning = planning;
        this.sitting = sitting;
        this.settings = settings;
        this.placement = placement;
        this.listener = listener;
        this.settler = settler;
    }

    /**
     * Reads the machine and the NIC and plans; empty, once said why, when either cannot be read (the machine
     * changing, or the NIC gone). At the start, throws instead.
     */
    Optional<Reading> read(InterfaceName iface, Placed state, Trigger trigger, List<KernelEvent> events, Instant now) {
        CpuSet keptFree = keptFree(iface, trigger);
        Topology topology;
        try {
            topology = currentTopology(trigger);
        } catch (NumaspreadException e) {
            if (trigger == Trigger.START) {
                throw e;
            }
            // The machine is changing, not the NIC: the next check (a recheck follows every event) reads it again.
            // Told apart from a failed check's message, so that each is said once while it lasts.
            String failure = "topology: " + e.getMessage();
            if (!state.failure.equals(Optional.of(failure))) {
                listener.heard(new WatchEvent.TopologyUnreadable(iface, e.getMessage(), settler.after(iface, events)));
            }
            state.failure = Optional.of(failure);
            return Optional.empty();
        }
        try {
            Nic nic = NicDiscovery.discover(iface, paths);
            lastRead.put(iface, nic);
            List<Nic> watched = watchedPresent(nic);
            WatchPlanning.Planned plan = planning.plan(
                    topology,
                    nic,
                    watched,
                    watched.stream().map(n -> sitting.apply(n.name())).toList(),
                    keptFree);
            // A leased queue goes to its lessee's CPUs as apply puts it; leases come and go without a netlink event
            // that watch hears, so each check asks.
            SpreadPlan irqs = settings.leases()
                    .leased(paths, topology, nic, plan.irqs())
                    .plan()
                    .plan();
            return Optional.of(new Reading(
                    nic, irqs, plan.poll(), NicSnapshot.of(topology.online(), keptFree, nic, irqs, plan.poll())));
        } catch (NumaspreadException e) {
            if (trigger == Trigger.START) {
                throw e;
            }
            reportGone(iface, state, e, events, now);
            return Optional.empty();
        }
    }

    /**
     * The kubelet's exclusive CPUs, read afresh; none without its file. A file that turns bad after the start keeps
     * the last good CPUs, said once, rather than stopping watch; at the start it throws.
     */
    private CpuSet keptFree(InterfaceName iface, Trigger trigger) {
        if (planning.kubeletCpuState().isEmpty()) {
            return CpuSet.EMPTY;
        }
        try {
            lastKeptFree =
                    KubeletCpuState.exclusiveCpus(planning.kubeletCpuState().get());
            keptFreeProblem = Optional.empty();
        } catch (NumaspreadException e) {
            if (trigger == Trigger.START) {
                throw e;
            }
            if (keptFreeProblem.isEmpty()) {
                listener.heard(new WatchEvent.KeptFreeUnreadable(iface, e.getMessage(), lastKeptFree));
            }
            keptFreeProblem = Optional.of(e.getMessage());
        }
        return lastKeptFree;
    }

    /**
     * Every watched NIC that is there now, in the order given, {@code read} among them: the NICs planned together.
     * One whose interface is there but cannot be read now (its vectors freed while it is down or in a reset, as
     * igb's {@code ethtool -L} frees and requests them again) keeps its CPUs, as last read: planning the others
     * without it would move their queues for the moment of its reset, and back. One whose interface is gone (an
     * unbind) gives its CPUs to the others; its own check reports it.
     */
    private List<Nic> watchedPresent(Nic read) {
        List<Nic> present = new ArrayList<>();
        for (InterfaceName other : nics) {
            if (other.equals(read.name())) {
                present.add(read);
                continue;
            }
            try {
                Nic nic = NicDiscovery.discover(other, paths);
                lastRead.put(other, nic);
                present.add(nic);
            } catch (NumaspreadException e) {
                Nic last = lastRead.get(other);
                if (last != null && Files.isDirectory(paths.netDevice(other))) {
                    present.add(last);
                }
            }
        }
        return present;
    }

    /**
     * The topology as it is now (online CPUs change), read again a few times when a read fails after an event: a
     * CPU going offline removes its {@code topology/} directory while {@code online} may still list it, for a few
     * milliseconds. It comes from sysfs every time, whatever the backend: libnuma reads each node's CPUs once per
     * process, and a CPU that comes online later would never be planned.
     */
    private Topology currentTopology(Trigger trigger) {
        SysfsTree sysfs = SysfsTree.at(paths.sysfsRoot());
        for (int attempt = 1; ; attempt++) {
            try {
                return TopologyDiscovery.discover(new SysfsBackend(sysfs, paths.procRoot()), sysfs);
            } catch (NumaspreadException e) {
                if (trigger == Trigger.START || attempt == TOPOLOGY_ATTEMPTS) {
                    throw e;
                }
                try {
                    Thread.sleep(TOPOLOGY_RETRY.toMillis());
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    throw e;
                }
            }
        }
    }

    /** What each file of the plan holds now, as a dry run of the apply reads it. */
    List<AffinityTransaction.Result> readBack(Placed state, Nic nic, List<Setting> wanted) {
        return placement
                .apply(nic, Wanted.only(wanted, state.threads()), settings.placement(true))
                .results();
    }

    /** Whether what the plan depends on changed since the last check (or the NIC came back). */
    static boolean changedSince(Placed state, Reading reading) {
        return !state.present
                || state.snapshot.map(s -> !s.equals(reading.snapshot())).orElse(true);
    }

    /** Whether the NIC was gone and is back with the vectors, queues, CPUs and plan it had before it went. */
    static boolean cameBackAsItWent(Placed state, Reading reading) {
        return !state.present && state.snapshot.equals(Optional.of(reading.snapshot()));
    }

    /** The files that hold their planned CPUs, in the plan's order. */
    static List<Target> held(List<AffinityTransaction.Result> found) {
        return found.stream()
                .filter(r -> r.status() == AffinityTransaction.Status.UNCHANGED)
                .map(AffinityTransaction.Result::target)
                .toList();
    }

    /** Whether a dry run found {@code result}'s file holding other CPUs than planned. */
    static boolean moved(AffinityTransaction.Result result) {
        return result.status() == AffinityTransaction.Status.WOULD_CHANGE;
    }

    /**
     * Why {@code iface} is no longer there, when it went away between its discovery and the writes: an unbind
     * removes the interface and then frees its IRQs, so a check that found the NIC can then find its IRQ files
     * gone. That is the NIC going, not a failure to report.
     */
    Optional<NumaspreadException> vanished(InterfaceName iface) {
        try {
            NicDiscovery.discover(iface, paths);
            return Optional.empty();
        } catch (NumaspreadException gone) {
            return Optional.of(gone);
        }
    }

    /** Whether {@code iface}, still there, is no longer the NIC that {@code read} describes. */
    boolean changedUnder(InterfaceName iface, Nic read) {
        try {
            return !NicDiscovery.discover(iface, paths).equals(read);
        } catch (NumaspreadException gone) {
            return false;
        }
    }

    /** Says {@code iface} gone ({@code why}), and forgets what would be said of it had it stayed. */
    void reportGone(InterfaceName iface, Placed state, NumaspreadException why, List<KernelEvent> events, Instant now) {
        boolean justWent = state.present;
        state.present = false;
        state.heldAfter.clear();
        state.failure = Optional.empty();
        listener.heard(new WatchEvent.Gone(
                iface, now, justWent, why.getMessage(), justWent ? settler.after(iface, events) : List.of()));
    }
}
