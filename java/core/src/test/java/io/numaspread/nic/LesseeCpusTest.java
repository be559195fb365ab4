// SPDX-License-Identifier: Apache-2.0
package io.numaspread.nic;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.numaspread.CpuSet;
import io.numaspread.kernel.KernelPaths;
import io.numaspread.kernel.SysfsTree;
import io.numaspread.nativeaccess.Backends;
import io.numaspread.nativeaccess.NativeBackend;
import io.numaspread.netlink.NetdevNetlink;
import io.numaspread.netlink.NetdevNetlink.Lease;
import io.numaspread.netlink.NetlinkCodec;
import io.numaspread.netlink.NetlinkSocket;
import io.numaspread.plan.LeasePlanner.Lessee;
import io.numaspread.testing.CpusetCgroup;
import io.numaspread.testing.NeedsRoot;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A lease's netns-id joined to a namespace and its processes' CPUs: on a stand-in {@code /proc}, and on this
 * kernel with a real network namespace holding a real process in a real cpuset cgroup.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class LesseeCpusTest {
    private static final int RX = NetdevNetlink.NETDEV_QUEUE_TYPE_RX;
    private static final long POD = 4026532290L;

    @Test
    void aLeaseIntoANamedNamespaceGivesItsProcessesCpusAndOneInTheNicsOwnNone(@TempDir Path proc, @TempDir Path sys)
            throws IOException {
        Path ns = Files.createDirectories(proc.resolve("300/ns"));
        Files.createSymbolicLink(ns.resolve("net"), Path.of("net:[" + POD + "]"));
        Files.writeString(proc.resolve("300/cgroup"), "0::/pod\n");
        Files.createDirectories(sys.resolve("fs/cgroup/pod"));
        Files.writeString(sys.resolve("fs/cgroup/pod/cpuset.cpus.effective"), "2-3\n");
        KernelPaths paths = new KernelPaths(proc, sys);
        Map<Integer, Long> ids = Map.of(0, POD);

        assertEquals(
                Optional.of(new Lessee("ifindex 8 (queue 1) in netns 0", CpuSet.parse("2-3"))),
                LesseeCpus.lessee(paths, ids, new Lease(8, 1, RX, OptionalInt.of(0))));
        assertEquals(
                Optional.of(new Lessee("ifindex 8 (queue 1) in netns 5", CpuSet.EMPTY)),
                LesseeCpus.lessee(paths, ids, new Lease(8, 1, RX, OptionalInt.of(5))),
                "an id no namespace here has: no process found");
        assertEquals(
                Optional.empty(),
                LesseeCpus.lessee(paths, ids, new Lease(9, 1, RX, OptionalInt.empty())),
                "the NIC's own namespace: no container to follow");
    }

    @Test
    @NeedsRoot
    void aRealNamespaceWithAnIdIsFoundAndItsProcessesCpusetRead() throws Exception {
        NativeBackend backend =
                Backends.select(SysfsTree.live(), Optional.empty()).backend();
        KernelPaths live = KernelPaths.LIVE;
        long own = NamespaceCpus.netNamespace(
                        live, (int) ProcessHandle.current().pid())
                .orElseThrow();
        Process child = new ProcessBuilder("unshare", "--net", "sleep", "60").start();
        int pid = (int) child.pid();
        long namespace = awaitOwnNamespace(live, pid, own);
        CpuSet last = CpuSet.of(Runtime.getRuntime().availableProcessors() - 1);
        try (CpusetCgroup cgroup = CpusetCgroup.holding(child.toHandle(), last)) {
            assignId(backend, pid);
            Map<Integer, Long> ids = LesseeCpus.namespaceIds(live, backend);
            int id = ids.entrySet().stream()
                    .filter(entry -> entry.getValue() == namespace)
                    .mapToInt(Map.Entry::getKey)
                    .findFirst()
                    .orElseThrow(() -> new AssertionError("no id for net:[" + namespace + "] in " + ids));
            Optional<Lessee> lessee = LesseeCpus.lessee(live, ids, new Lease(8, 1, RX, OptionalInt.of(id)));
            assertEquals(last, lessee.orElseThrow().cpus(), "sleep's cpuset, " + cgroup.pid() + " alone in it");
        } finally {
            child.destroyForcibly();
        }
    }

    /** The namespace process {@code pid} is in once unshare has left {@code own}. */
    private static long awaitOwnNamespace(KernelPaths live, int pid, long own) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (System.nanoTime() < deadline) {
            OptionalLong namespace = NamespaceCpus.netNamespace(live, pid);
            if (namespace.isPresent() && namespace.getAsLong() != own) {
                return namespace.getAsLong();
            }
            Thread.sleep(20);
        }
        throw new AssertionError("unshare --net did not leave net:[" + own + "] within 10 s");
    }

    /**
     * RTM_NEWNSID (88) with NETNSA_NSID -1, which lets the kernel choose, and NETNSA_PID: this namespace gives
     * the child's an id, as it does itself when a lease or a veth peer crosses into it. The id goes with the
     * namespace.
     */
    private static void assignId(NativeBackend backend, int pid) {
        byte[] request = new NetlinkCodec.Builder(88, NetlinkCodec.NLM_F_REQUEST | NetlinkCodec.NLM_F_ACK, 1)
                .u8(0)
                .u8(0)
                .u16(0)
                .u32(1, 0xffffffffL)
                .u32(2, pid)
                .bytes();
        try (NetlinkSocket socket = NetlinkSocket.open(backend, NetlinkSocket.NETLINK_ROUTE, 0)) {
            assertTrue(socket.request(request, "rtnetlink newnsid", 5_000).isEmpty(), "an acknowledgement only");
        }
    }
}
