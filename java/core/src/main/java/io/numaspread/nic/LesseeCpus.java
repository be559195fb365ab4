// SPDX-License-Identifier: Apache-2.0
package io.numaspread.nic;

import io.numaspread.CpuSet;
import io.numaspread.NumaspreadException;
import io.numaspread.kernel.Errno;
import io.numaspread.kernel.KernelPaths;
import io.numaspread.kernel.ProcessFiles;
import io.numaspread.nativeaccess.NativeBackend;
import io.numaspread.nativeaccess.NativeCallException;
import io.numaspread.netlink.NamespaceIds;
import io.numaspread.netlink.NetdevNetlink;
import io.numaspread.netlink.NetlinkSocket;
import io.numaspread.plan.LeasePlanner;
import java.io.IOException;
import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;

/**
 * The lessees of a NIC's leased queues, with the CPUs their containers' processes may run on: the edge that
 * joins a {@code queue-get} lease's {@code netns-id} to a namespace in {@code /proc} ({@code RTM_GETNSID} for one
 * process of each namespace, asked from the NIC's namespace, which gave the id) and reads its processes' cpusets
 * ({@link NamespaceCpus}).
 */
public final class LesseeCpus {
    /** How long one RTM_GETNSID waits; the kernel answers at once. */
    private static final int TIMEOUT_MILLIS = 5_000;

    private LesseeCpus() {}

    /**
     * The namespaces this process's namespace has given an id, by id: the inode of each ({@code
     * /proc/PID/ns/net}), asked about through one process in it. A process that exits before it is asked about
     * is passed over.
     *
     * @throws NumaspreadException (call failed) when {@code /proc} cannot be listed or the kernel refuses
     * @throws UnsupportedOperationException on a backend without netlink (sysfs)
     */
    public static Map<Integer, Long> namespaceIds(KernelPaths paths, NativeBackend backend) {
        Map<Integer, Long> ids = new TreeMap<>();
        Set<Long> asked = new HashSet<>();
        int sequence = 0;
        try (NetlinkSocket socket = NetlinkSocket.open(backend, NetlinkSocket.NETLINK_ROUTE, 0)) {
            for (int pid : ProcessFiles.pids(paths.procRoot())) {
                OptionalLong namespace = NamespaceCpus.netNamespace(paths, pid);
                if (namespace.isEmpty() || !asked.add(namespace.getAsLong())) {
                    continue;
                }
                String call = "rtnetlink getnsid pid " + pid;
                OptionalInt id;
                try {
                    id = NamespaceIds.id(socket.request(NamespaceIds.request(++sequence, pid), call, TIMEOUT_MILLIS));
                } catch (NativeCallException e) {
                    if (e.errno() == Errno.ESRCH.number()) {
                        asked.remove(namespace.getAsLong()); // gone: ask through the namespace's next process
                        continue;
                    }
                    throw e;
                } catch (IllegalArgumentException e) {
                    throw new NumaspreadException(
                            NumaspreadException.Kind.CALL_FAILED,
                            "netlink " + call + ": the kernel's answer is malformed: " + e.getMessage(),
                            e);
                }
                if (id.isPresent()) {
                    ids.put(id.getAsInt(), namespace.getAsLong());
                }
            }
        } catch (IOException e) {
            throw new NumaspreadException(
                    NumaspreadException.Kind.CALL_FAILED, "cannot list " + paths.procRoot() + ": " + e.getMessage(), e);
        }
        return ids;
    }

    /**
     * The lessee of {@code lease} for {@link LeasePlanner}, or empty when it shares the NIC's namespace: there is
     * no container to follow, and the queue is planned as the host's. A namespace id that no namespace in {@code
     * ids} has, or a namespace without processes, gives a lessee without CPUs, which the planner keeps, saying so.
     * The device is named as the NIC's namespace sees it: {@code ifindex 8 (queue 1) in netns 0}.
     *
     * @param ids {@link #namespaceIds}
     * @throws IOException when {@code /proc} cannot be listed
     */
    public static Optional<LeasePlanner.Lessee> lessee(
            KernelPaths paths, Map<Integer, Long> ids, NetdevNetlink.Lease lease) throws IOException {
        if (lease.netnsId().isEmpty()) {
            return Optional.empty();
        }
        int id = lease.netnsId().getAsInt();
        String device = "ifindex " + lease.ifindex() + " (queue " + lease.queue() + ") in netns " + id;
        Long namespace = ids.get(id);
        CpuSet cpus = namespace == null
                ? CpuSet.EMPTY
                : NamespaceCpus.in(paths, namespace).cpus();
        return Optional.of(new LeasePlanner.Lessee(device, cpus));
    }
}
