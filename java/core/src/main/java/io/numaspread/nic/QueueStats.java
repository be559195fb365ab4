// SPDX-License-Identifier: Apache-2.0
package io.numaspread.nic;

import io.numaspread.NumaspreadException;
import io.numaspread.kernel.Errno;
import io.numaspread.kernel.InterfaceName;
import io.numaspread.kernel.KernelPaths;
import io.numaspread.nativeaccess.NativeBackend;
import io.numaspread.nativeaccess.NativeCallException;
import io.numaspread.netlink.NetdevNetlink;
import io.numaspread.netlink.NetdevSession;
import java.util.List;
import java.util.Optional;

/** Reads a NIC's per-queue counters through netdev {@code qstats-get} (Linux 6.10+). */
public final class QueueStats {

    private QueueStats() {}

    /**
     * The per-queue counters of {@code iface}, or empty when they cannot be had: a backend without netlink, a
     * kernel without {@code qstats-get}, or a driver that keeps none.
     *
     * @throws NumaspreadException (call failed) when a netlink call fails otherwise, naming it and its errno
     */
    public static Optional<List<QueueCounters>> read(InterfaceName iface, KernelPaths paths, NativeBackend backend) {
        Optional<NetdevSession> opened = NetdevSession.open(backend);
        if (opened.isEmpty()) {
            return Optional.empty();
        }
        try (NetdevSession session = opened.get()) {
            Optional<NetdevNetlink.Family> family = session.family();
            if (family.isEmpty() || !family.get().has(NetdevNetlink.NETDEV_CMD_QSTATS_GET)) {
                return Optional.empty();
            }
            int ifindex = NapiDiscovery.parseIfindex(paths.netDevice(iface).resolve("ifindex"));
            String call = "netdev qstats-get " + iface;
            try {
                return Optional.of(NetdevSession.parse(
                        session.request(
                                sequence -> NetdevNetlink.queueStatsDumpRequest(family.get(), sequence, ifindex), call),
                        answer -> counters(NetdevNetlink.queueCounters(answer, ifindex)),
                        call));
            } catch (NativeCallException e) {
                // EOPNOTSUPP: the driver keeps no per-queue counters.
                if (e.errno() == Errno.EOPNOTSUPP.number()) {
                    return Optional.empty();
                }
                throw e;
            }
        }
    }

    private static List<QueueCounters> counters(List<NetdevNetlink.QueueCounts> counts) {
        return counts.stream()
                .map(count -> new QueueCounters(count.receive(), count.queue(), count.packets(), count.bytes()))
                .toList();
    }
}
