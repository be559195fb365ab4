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
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * A NIC's leased rx queues (Linux 7.0+) and its plan with them on their lessees' CPUs: the edge that asks
 * {@code queue-get}, finds each lessee's processes ({@link LesseeCpus}) and hands {@link LeasePlanner} the result.
 */
public final class QueueLeases {
    private QueueLeases() {}

    /**
     * The NIC's leased rx queues by queue id, as {@code queue-get} names them on the live kernel. Empty where no
     * queue can be leased: a kernel without {@code queue-create}, a backend without netlink, or stand-in trees,
     * which netlink does not describe.
     *
     * @throws NumaspreadException (call failed) when a netlink call fails or the ifindex cannot be read
     */
    public static Map<Integer, NetdevNetlink.Lease> discover(
            InterfaceName iface, KernelPaths paths, NativeBackend backend) {
        Map<Integer, NetdevNetlink.Lease> leases = new TreeMap<>();
        if (!paths.isLive()) {
            return leases;
        }
        Optional<NetdevSession> opened = NetdevSession.open(backend);
        if (opened.isEmpty()) {
            return leases;
        }
        try (NetdevSession session = opened.get()) {
            Optional<NetdevNetlink.Family> family = session.family();
            if (family.isEmpty()
                    || !family.get().has(NetdevNetlink.NETDEV_CMD_QUEUE_CREATE)
                    || !family.get().has(NetdevNetlink.NETDEV_CMD_QUEUE_GET)) {
                return leases;
            }
            int ifindex = ifindex(paths, iface);
            for (NetdevNetlink.Queue queue : session.queues(family.get(), ifindex, iface.value())) {
                if (queue.type() == NetdevNetlink.NETDEV_QUEUE_TYPE_RX
                        && queue.lease().isPresent()) {
                    leases.put(queue.id(), queue.lease().get());
                }
            }
        }
        return leases;
    }

    /**
     * {@code today} with the NIC's leased queues on their lessees' CPUs. A leased rx queue is taken to be the
     * driver queue of the same number, as for a NIC's combined channels; one with no IRQ of its own, or whose
     * lessee shares the NIC's namespace, stays as today's plan puts it and is not in the plan's {@code moved}
     * or {@code kept}.
     *
     * @throws NumaspreadException (call failed) when {@code /proc} cannot be listed or rtnetlink fails
     */
    public static LeasePlanner.Plan plan(
            KernelPaths paths,
            NativeBackend backend,
            Topology topology,
            Nic nic,
            SpreadPlan today,
            Map<Integer, NetdevNetlink.Lease> leases) {
        Map<Integer, LeasePlanner.Lessee> lessees = new TreeMap<>();
        if (leases.values().stream().anyMatch(lease -> lease.netnsId().isPresent())) {
            Map<Integer, Long> ids = LesseeCpus.namespaceIds(paths, backend);
            try {
                for (Map.Entry<Integer, NetdevNetlink.Lease> entry : leases.entrySet()) {
                    if (nic.queues().contains(entry.getKey())) {
                        Optional<LeasePlanner.Lessee> lessee = LesseeCpus.lessee(paths, ids, entry.getValue());
                        lessee.ifPresent(found -> lessees.put(nic.planIndex(entry.getKey()), found));
                    }
                }
            } catch (IOException e) {
                throw new NumaspreadException(
                        NumaspreadException.Kind.CALL_FAILED,
                        "cannot list " + paths.procRoot() + ": " + e.getMessage(),
                        e);
            }
        }
        return LeasePlanner.plan(topology, today, lessees);
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
