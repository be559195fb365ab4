// SPDX-License-Identifier: Apache-2.0
package io.numaspread.nic;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.numaspread.NumaspreadException;
import io.numaspread.kernel.InterfaceName;
import io.numaspread.kernel.KernelPaths;
import io.numaspread.kernel.SysfsTree;
import io.numaspread.nativeaccess.BackendKind;
import io.numaspread.nativeaccess.Backends;
import io.numaspread.nativeaccess.NativeBackend;
import io.numaspread.netlink.CapturedNetlink;
import io.numaspread.netlink.NetdevNetlink;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** How netdev's answers become a {@link NapiMap}, and the fallbacks, on captured answers and stand-in trees. */
class NapiDiscoveryTest {
    private static final InterfaceName ETH0 = new InterfaceName("eth0");

    @TempDir
    Path sys;

    @TempDir
    Path proc;

    @Test
    void aDriverThatLinksQueuesGivesANetlinkMap() {
        NapiMap map = NapiDiscovery.fromNetlink(
                ETH0,
                NetdevNetlink.queues(CapturedNetlink.messages("netdev-6.18-virtio-queues.hex"), 4),
                NetdevNetlink.napis(CapturedNetlink.messages("netdev-6.18-virtio-napis.hex"), 4),
                1);
        assertEquals(NapiSource.NETLINK, map.source());
        assertEquals(
                List.of(new NapiInstance(
                        257, OptionalInt.of(0), OptionalInt.empty(), OptionalInt.empty(), OptionalInt.of(0))),
                map.instances(),
                "6.18 reports the NAPI's own threaded, 0");
        assertEquals(OptionalInt.of(0), map.queueOf(257));
        assertEquals(
                "netdev netlink: queue-get links 1 of 1 rx queues to NAPI IDs; napi-get gives 1 NAPI "
                        + "without IRQs, NAPI not threaded",
                map.detail());
    }

    @Test
    void a612VirtioNicGivesADerivedMapWithItsThreads() {
        NapiMap map = NapiDiscovery.fromNetlink(
                ETH0,
                NetdevNetlink.queues(CapturedNetlink.messages("netdev-6.12-virtio-queues.hex"), 2),
                NetdevNetlink.napis(CapturedNetlink.messages("netdev-6.12-virtio-napis-threaded.hex"), 2),
                4);
        assertEquals(NapiSource.NETLINK_DERIVED, map.source());
        assertEquals(
                List.of(
                        new NapiInstance(8193, OptionalInt.of(0), OptionalInt.empty(), OptionalInt.of(274)),
                        new NapiInstance(8194, OptionalInt.of(1), OptionalInt.empty(), OptionalInt.of(272)),
                        new NapiInstance(8195, OptionalInt.of(2), OptionalInt.empty(), OptionalInt.of(270)),
                        new NapiInstance(8196, OptionalInt.of(3), OptionalInt.empty(), OptionalInt.of(268))),
                map.instances());
        assertEquals(
                "netdev netlink: napi-get gives 4 NAPIs without IRQs, threaded (thread PIDs), but queue-get links"
                        + " no rx queue to them; rx queue i is taken to be the i-th lowest NAPI ID, since a driver that links"
                        + " none (virtio_net before about Linux 6.14) registers one NAPI per rx queue, in queue order, at"
                        + " probe",
                map.detail());
    }

    @Test
    void withoutLinkedQueuesEachRxQueueTakesTheNextNapiIdInOrder() {
        List<NetdevNetlink.Napi> napis = List.of(napi(8195, 912), napi(8193, 910), napi(8194, 911));
        List<NetdevNetlink.Queue> unlinked = List.of(
                queue(0, NetdevNetlink.NETDEV_QUEUE_TYPE_RX),
                queue(1, NetdevNetlink.NETDEV_QUEUE_TYPE_RX),
                queue(2, NetdevNetlink.NETDEV_QUEUE_TYPE_RX));
        NapiMap map = NapiDiscovery.fromNetlink(ETH0, unlinked, napis, 3);
        assertEquals(NapiSource.NETLINK_DERIVED, map.source());
        assertEquals(
                List.of(8193, 8194, 8195),
                map.instances().stream().map(NapiInstance::id).toList());
        assertEquals(OptionalInt.of(0), map.queueOf(8193));
        assertEquals(OptionalInt.of(2), map.queueOf(8195));
        assertEquals(OptionalInt.of(911), map.forQueue(1).orElseThrow().threadPid());
        assertTrue(
                map.detail().contains("threaded (thread PIDs)") && map.detail().contains("i-th lowest NAPI ID"),
                map.detail());
    }

    @Test
    void napisThatCannotBeMatchedToTheQueuesGetNoQueue() {
        NapiMap map = NapiDiscovery.fromNetlink(ETH0, List.of(), List.of(napi(8193, 0), napi(8194, 0)), 4);
        assertEquals(NapiSource.NETLINK_DERIVED, map.source());
        assertTrue(
                map.instances().stream().allMatch(instance -> instance.queue().isEmpty()));
        assertTrue(
                map.detail().endsWith("the 2 NAPIs cannot be matched to 4 rx queues, so no queue is assigned"),
                map.detail());
    }

    @Test
    void aLinkedRxQueueWinsOverATxQueueOfTheSameNapi() {
        List<NetdevNetlink.Queue> queues = List.of(
                new NetdevNetlink.Queue(3, NetdevNetlink.NETDEV_QUEUE_TYPE_TX, 4, OptionalInt.of(8200)),
                new NetdevNetlink.Queue(1, NetdevNetlink.NETDEV_QUEUE_TYPE_RX, 4, OptionalInt.of(8200)),
                new NetdevNetlink.Queue(0, NetdevNetlink.NETDEV_QUEUE_TYPE_RX, 4, OptionalInt.of(8199)));
        NapiMap map = NapiDiscovery.fromNetlink(ETH0, queues, List.of(napi(8199, 0), napi(8200, 0), napi(8201, 0)), 2);
        assertEquals(NapiSource.NETLINK, map.source());
        assertEquals(OptionalInt.of(1), map.queueOf(8200));
        assertEquals(OptionalInt.of(0), map.queueOf(8199));
        assertEquals(OptionalInt.empty(), map.queueOf(8201), "a NAPI no rx queue names (a tx-only one)");
    }

    @Test
    void theSysfsBackendFallsBackToInterruptsAndSaysWhy() throws Exception {
        stubInterface();
        NativeBackend sysfs = Backends.select(SysfsTree.live(), Optional.of(BackendKind.SYSFS))
                .backend();
        NapiMap map = NapiDiscovery.discover(ETH0, new KernelPaths(proc, sys), sysfs);
        assertEquals(NapiSource.INTERRUPTS, map.source());
        assertEquals(List.of(), map.instances());
        assertEquals(
                "the sysfs backend has no netlink to ask netdev for NAPI IDs; queues are known by their IRQs "
                        + "in /proc/interrupts only",
                map.detail());
    }

    @Test
    void aMissingInterfaceIsBadInputNamingIt() {
        NativeBackend sysfs = Backends.select(SysfsTree.live(), Optional.of(BackendKind.SYSFS))
                .backend();
        NumaspreadException e = assertThrows(
                NumaspreadException.class, () -> NapiDiscovery.discover(ETH0, new KernelPaths(proc, sys), sysfs));
        assertEquals(NumaspreadException.Kind.BAD_INPUT, e.kind());
        assertTrue(e.getMessage().startsWith("no such interface eth0"), e.getMessage());
    }

    @Test
    void aMalformedIfindexIsBadInputNamingTheFile() throws Exception {
        Path dir = stubInterface();
        Files.writeString(dir.resolve("ifindex"), "four\n");
        NativeBackend jna =
                Backends.select(SysfsTree.live(), Optional.of(BackendKind.JNA)).backend();
        NumaspreadException e = assertThrows(
                NumaspreadException.class, () -> NapiDiscovery.discover(ETH0, new KernelPaths(proc, sys), jna));
        assertEquals(dir.resolve("ifindex") + " holds \"four\", not an interface index", e.getMessage());
    }

    private Path stubInterface() throws Exception {
        Path dir = new KernelPaths(proc, sys).netDevice(ETH0);
        Files.createDirectories(dir.resolve("queues/rx-0"));
        Files.writeString(dir.resolve("ifindex"), "4\n");
        return dir;
    }

    private static NetdevNetlink.Napi napi(int id, int pid) {
        return new NetdevNetlink.Napi(
                id,
                4,
                OptionalInt.empty(),
                pid == 0 ? OptionalInt.empty() : OptionalInt.of(pid),
                java.util.OptionalLong.empty(),
                java.util.OptionalLong.empty(),
                java.util.OptionalLong.empty(),
                OptionalInt.empty());
    }

    private static NetdevNetlink.Queue queue(int id, int type) {
        return new NetdevNetlink.Queue(id, type, 4, OptionalInt.empty());
    }
}
