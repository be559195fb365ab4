// SPDX-License-Identifier: Apache-2.0
package io.numaspread.testing;

import io.numaspread.kernel.InterfaceName;
import io.numaspread.kernel.KernelPaths;
import io.numaspread.netlink.CapturedNetlink;
import io.numaspread.netlink.NamespaceIds;
import io.numaspread.netlink.NetdevNetlink;
import io.numaspread.nic.QueueLeases;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * A leasing kernel's two answers, as Debian's 7.3 kernel gave them in the guest, for the stand-in i40e eth0
 * ({@link NicFixture#i40eOnMana}, 4 queues as the captured NIC has): {@code queue-get}'s dump
 * ({@code netdev-7.3-netdevsim-leased-queue.hex}: rx 1 leased to ifindex 4's queue 1 in the namespace with id 5)
 * and {@code RTM_GETNSID}'s id 5 for the lessee's namespace ({@code rtnl-7.3-getnsid-lessee.hex}), whose one
 * process (PID 300, the namespace's inode as it was in the guest) {@link #pod} writes into the stand-in {@code
 * /proc}, with its cpuset cgroup under the stand-in {@code /sys}. The rest is the production path.
 */
public final class RecordedLeases implements QueueLeases.Kernel {
    /** The lessee's network namespace: the inode of its {@code /proc/PID/ns/net} in the guest. */
    public static final long POD_NAMESPACE = 4026532300L;

    /** The queue the dump leases into the pod, and its IRQ on the stand-in eth0. */
    public static final int LEASED_QUEUE = 1;

    public static final int LEASED_QUEUE_IRQ = 51;

    /** The captured NIC's ifindex. */
    private static final int DUMP_IFINDEX = 3;

    private static final int POD_PID = 300;

    /**
     * Writes the pod, its process in cgroup {@code /pod} whose effective CPUs are {@code cpus}; written again, the
     * pod's cpuset changes.
     */
    public static void pod(KernelPaths paths, String cpus) {
        try {
            Path ns = Files.createDirectories(paths.procRoot().resolve(POD_PID + "/ns"));
            if (!Files.isSymbolicLink(ns.resolve("net"))) {
                Files.createSymbolicLink(ns.resolve("net"), Path.of("net:[" + POD_NAMESPACE + "]"));
            }
            Files.writeString(paths.procRoot().resolve(POD_PID + "/cgroup"), "0::/pod\n");
            Path cgroup = Files.createDirectories(paths.sysfsRoot().resolve("fs/cgroup/pod"));
            Files.writeString(cgroup.resolve("cpuset.cpus.effective"), cpus + "\n");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public List<NetdevNetlink.Queue> queues(KernelPaths paths, InterfaceName iface) {
        return iface.value().equals("eth0")
                ? NetdevNetlink.queues(CapturedNetlink.messages("netdev-7.3-netdevsim-leased-queue.hex"), DUMP_IFINDEX)
                : List.of();
    }

    @Override
    public Map<Integer, Long> namespaceIds(KernelPaths paths) {
        int id = NamespaceIds.id(CapturedNetlink.messages("rtnl-7.3-getnsid-lessee.hex"))
                .orElseThrow();
        return Map.of(id, POD_NAMESPACE);
    }
}
