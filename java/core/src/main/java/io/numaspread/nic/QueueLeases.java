// SPDX-License-Identifier: Apache-2.0
package io.numaspread.nic;

import io.numaspread.NumaspreadException;
import io.numaspread.kernel.InterfaceName;
import io.numaspread.kernel.KernelPaths;
import io.numaspread.kernel.KernelText;
import io.numaspread.nativeaccess.NativeBackend;
import io.numaspread.netlink.NetdevNetlink;
import io.numaspread.netlink.NetdevSession;
import io.numaspread.plan.LeasePlanner;
import io.numaspread.plan.SpreadPlan;
import io.numaspread.topology.Topology;
import java.io.IOException;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Supplier;

/**
 * A NIC's leased rx queues (Linux 7.0+) and its plan with them on their lessees' CPUs: the edge that asks
 * {@code queue-get}, finds each lessee's processes ({@link LesseeCpus}) and hands {@link LeasePlanner} the result.
 * Every plan that writes or shows a NIC's queue IRQs ({@code plan}, {@code irqs}, {@code apply}, {@code watch})
 * takes its NIC's share through a {@link Source}, so that a leased queue is placed the same way by each.
 */
public final class QueueLeases {
    private QueueLeases() {}

    /**
     * A NIC's leased rx queues as the kernel names them, and its plan with them.
     *
     * @param leases the leased rx queues by queue id; empty where none is leased
     * @param plan the NIC's plan with each leased queue on its lessee's CPUs where they are found
     */
    public record Leased(Map<Integer, NetdevNetlink.Lease> leases, LeasePlanner.Plan plan) {
        public Leased {
            leases = Collections.unmodifiableMap(new TreeMap<>(leases));
        }

        /** No queue leased: {@code today} as it is. */
        public static Leased none(SpreadPlan today) {
            return new Leased(Map.of(), LeasePlanner.Plan.unleased(today));
        }
    }

    /** Where a plan learns which of a NIC's rx queues are leased, and to whose CPUs. */
    @FunctionalInterface
    public interface Source {
        /** No queue is ever leased. */
        Source NONE = (paths, topology, nic, today) -> Leased.none(today);

        /**
         * {@code nic}'s leases and {@code today}, its share of the host's plan, with them.
         *
         * @throws NumaspreadException (call failed) when the kernel cannot be asked
         */
        Leased leased(KernelPaths paths, Topology topology, Nic nic, SpreadPlan today);
    }

    /**
     * The two questions a lease plan asks the kernel: netdev netlink's {@code queue-get} and rtnetlink's {@code
     * RTM_GETNSID}. The live kernel's are {@link #live}'s; the tests give recorded answers.
     */
    public interface Kernel {
        /**
         * The NIC's queues as {@code queue-get} names them, with each one's lease; empty where no queue can be
         * leased (a kernel without {@code queue-create}, a backend without netlink).
         *
         * @throws NumaspreadException (call failed) when a netlink call fails or the ifindex cannot be read
         */
        List<NetdevNetlink.Queue> queues(KernelPaths paths, InterfaceName iface);

        /**
         * The namespaces the NIC's namespace has given an id, by id ({@link LesseeCpus#namespaceIds}).
         *
         * @throws NumaspreadException (call failed) when {@code /proc} cannot be listed or the kernel refuses
         */
        Map<Integer, Long> namespaceIds(KernelPaths paths);
    }

    /**
     * The live kernel's leases through {@code backend}'s netlink and their lessees' CPUs; over stand-in trees,
     * which netlink does not describe, and on every kernel before 7.0, none.
     */
    public static Source live(Supplier<NativeBackend> backend) {
        Source asking = asking(new Kernel() {
            /**
             * The netdev family when it can lease, empty when it cannot or the backend has no netlink; null until
             * the first plan asks. A running kernel's family keeps its id and ops, so that each of watch's checks
             * and each NIC of a command asks only {@code queue-get}, and a kernel before 7.0 nothing at all.
             */
            private volatile Optional<NetdevNetlink.Family> leasing;

            @Override
            public List<NetdevNetlink.Queue> queues(KernelPaths paths, InterfaceName iface) {
                Optional<NetdevNetlink.Family> known = leasing;
                if (known != null && known.isEmpty()) {
                    return List.of();
                }
                Optional<NetdevSession> opened = NetdevSession.open(backend.get());
                if (opened.isEmpty()) {
                    leasing = Optional.empty();
                    return List.of();
                }
                try (NetdevSession session = opened.get()) {
                    Optional<NetdevNetlink.Family> family = known != null
                            ? known
                            : session.family()
                                    .filter(netdev -> netdev.has(NetdevNetlink.NETDEV_CMD_QUEUE_CREATE)
                                            && netdev.has(NetdevNetlink.NETDEV_CMD_QUEUE_GET));
                    leasing = family;
                    return family.isEmpty()
                            ? List.of()
                            : session.queues(family.get(), ifindex(paths, iface), iface.value());
                }
            }

            @Override
            public Map<Integer, Long> namespaceIds(KernelPaths paths) {
                return LesseeCpus.namespaceIds(paths, backend.get());
            }
        });
        return (paths, topology, nic, today) ->
                paths.isLive() ? asking.leased(paths, topology, nic, today) : Leased.none(today);
    }

    /**
     * Leases as {@code kernel} answers: its leased rx queues, each on its lessee's CPUs ({@link LesseeCpus}, {@link
     * LeasePlanner}). A leased rx queue is taken to be the driver queue of the same number, as for a NIC's combined
     * channels; one with no IRQ of its own, or whose lessee shares the NIC's namespace, stays as today's plan puts it
     * and is not in the plan's {@code moved} or {@code kept}.
     */
    public static Source asking(Kernel kernel) {
        return (paths, topology, nic, today) -> {
            Map<Integer, NetdevNetlink.Lease> leases = new TreeMap<>();
            for (NetdevNetlink.Queue queue : kernel.queues(paths, nic.name())) {
                if (queue.type() == NetdevNetlink.NETDEV_QUEUE_TYPE_RX
                        && queue.lease().isPresent()) {
                    leases.put(queue.id(), queue.lease().get());
                }
            }
            if (leases.isEmpty()) {
                return Leased.none(today);
            }
            Map<Integer, LeasePlanner.Lessee> lessees = new TreeMap<>();
            if (leases.values().stream().anyMatch(lease -> lease.netnsId().isPresent())) {
                Map<Integer, Long> ids = kernel.namespaceIds(paths);
                try {
                    for (Map.Entry<Integer, NetdevNetlink.Lease> entry : leases.entrySet()) {
                        if (nic.queues().contains(entry.getKey())) {
                            LesseeCpus.lessee(paths, ids, entry.getValue())
                                    .ifPresent(found -> lessees.put(nic.planIndex(entry.getKey()), found));
                        }
                    }
                } catch (IOException e) {
                    throw new NumaspreadException(
                            NumaspreadException.Kind.CALL_FAILED,
                            "cannot list " + paths.procRoot() + ": " + e.getMessage(),
                            e);
                }
            }
            return new Leased(leases, LeasePlanner.plan(topology, today, lessees));
        };
    }

    private static int ifindex(KernelPaths paths, InterfaceName iface) {
        try {
            return Integer.parseInt(KernelText.read(paths.netDevice(iface).resolve("ifindex")));
        } catch (IOException | NumberFormatException e) {
            throw new NumaspreadException(
                    NumaspreadException.Kind.CALL_FAILED,
                    "cannot read " + paths.netDevice(iface).resolve("ifindex") + ": " + e.getMessage(),
                    e);
        }
    }
}
