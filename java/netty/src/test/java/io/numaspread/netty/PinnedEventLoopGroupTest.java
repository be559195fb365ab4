// SPDX-License-Identifier: Apache-2.0
package io.numaspread.netty;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.numaspread.CpuSet;
import io.numaspread.NumaspreadException;
import io.numaspread.kernel.InterfaceName;
import io.numaspread.kernel.KernelPaths;
import io.numaspread.kernel.SysfsTree;
import io.numaspread.nativeaccess.SysfsBackend;
import io.numaspread.nic.NapiInstance;
import io.numaspread.nic.NapiMap;
import io.numaspread.nic.NapiSource;
import io.numaspread.nic.Nic;
import io.numaspread.nic.NicDiscovery;
import io.numaspread.nic.PerNapiThreaded;
import io.numaspread.pin.ThreadPinner;
import io.numaspread.plan.Assignment;
import io.numaspread.plan.Planner;
import io.numaspread.plan.PollSibling;
import io.numaspread.plan.Purpose;
import io.numaspread.plan.SpreadPlan;
import io.numaspread.testing.MachineShape;
import io.numaspread.testing.NeedsLiveNic;
import io.numaspread.testing.NicFixture;
import io.numaspread.testing.ProcStatus;
import io.numaspread.topology.Topology;
import io.numaspread.topology.TopologyDiscovery;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

class PinnedEventLoopGroupTest {
    @Test
    @NeedsLiveNic
    void forNicPutsLoopIOnQueueIsSiblingGroupOfTheLiveEth0() throws Exception {
        Nic eth0 = NicDiscovery.discover(new InterfaceName("eth0"), KernelPaths.LIVE);
        ThreadPinner pinner = ThreadPinner.live();
        Topology live =
                TopologyDiscovery.discover(pinner.backend(), SysfsTree.live()).withAllowed(pinner.allowed());
        assertEquals("virtio", eth0.grouping().scheme(), "this test is for the virtio eth0 of the project's machines");
        assertEquals(
                Optional.of(0),
                eth0.origin(live),
                "virtio keeps numa_node on the parent PCI function: " + eth0.originReason(live));
        SpreadPlan planned = Planner.plan(live, eth0.planRequest(live, Purpose.THREADS));
        PinnedEventLoopGroup group = PinnedEventLoopGroup.forNic("eth0", Transport.NIO.ioHandlerFactory());
        try {
            assertEquals(eth0.queues().size(), group.loops().size());
            for (PinnedLoop loop : group.loops()) {
                assertEquals(planned.get(loop.index()).cpus(), loop.assignment().cpus());
                assertEquals(loop.assignment().cpus(), loop.cpus());
                assertEquals(loop.cpus(), ProcStatus.cpusAllowed(loop.tid()));
            }
        } finally {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }

    @Test
    void forNodeSpreadsTheLoopsOverTheSiblingGroupsOfTheAllowedCpus() throws Exception {
        PinnedEventLoopGroup group = PinnedEventLoopGroup.forNode(0, 3, Transport.EPOLL.ioHandlerFactory());
        try {
            List<CpuSet> cpus = group.loops().stream().map(PinnedLoop::cpus).toList();
            assertEquals(group.loops().stream().map(l -> l.assignment().cpus()).toList(), cpus);
            for (PinnedLoop loop : group.loops()) {
                assertEquals(loop.cpus(), ProcStatus.cpusAllowed(loop.tid()), loop.threadName());
                assertEquals("numaspread-loop-" + loop.index(), loop.threadName());
            }
            assertEquals(3, cpus.size());
        } finally {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }

    @Test
    void aVirtioNicOnNode1PlansItsLoopsAsPlanNicPlansItsIrqs(@TempDir Path sys, @TempDir Path proc) {
        NicFixture.at(sys, proc, MachineShape.mana())
                .virtioDevice("virtio2")
                .numaNode(-1)
                .localCpus("4-7")
                .vector(37, "virtio2-config")
                .vector(38, "virtio2-input.0")
                .vector(39, "virtio2-output.0")
                .vector(40, "virtio2-input.1")
                .vector(41, "virtio2-output.1")
                .vector(42, "virtio2-input.2")
                .vector(43, "virtio2-output.2")
                .vector(44, "virtio2-input.3")
                .vector(45, "virtio2-output.3")
                .write();
        List<CpuSet> loops = cpus(loopPlan(sys, proc, "eth0", 0));
        assertEquals(
                List.of(CpuSet.range(4, 5), CpuSet.range(6, 7), CpuSet.range(4, 5), CpuSet.range(6, 7)),
                loops,
                "four queues from node 1, whose numa_node is -1 and local_cpulist 4-7");
        assertLoopsHoldTheirQueuesIrqCpu(cpus(irqPlan(sys, proc, "eth0")), loops);
        assertEquals(loops.subList(0, 2), cpus(loopPlan(sys, proc, "eth0", 2)), "loops(2) keeps the first two");
    }

    @Test
    void aPhysicalNicOnNode1PlansItsLoopsAsPlanNicPlansItsIrqs(@TempDir Path sys, @TempDir Path proc) {
        NicFixture.at(sys, proc, MachineShape.mana())
                .iface("enp8s0")
                .pci("0000:08:00.0")
                .driver("mlx5_core")
                .numaNode(1)
                .localCpus(null)
                .vector(60, "mlx5_async0@pci:0000:08:00.0")
                .vector(61, "mlx5_comp0@pci:0000:08:00.0")
                .vector(62, "mlx5_comp1@pci:0000:08:00.0")
                .vector(63, "mlx5_comp2@pci:0000:08:00.0")
                .write();
        List<CpuSet> loops = cpus(loopPlan(sys, proc, "enp8s0", 0));
        assertEquals(List.of(CpuSet.range(4, 5), CpuSet.range(6, 7), CpuSet.range(4, 5)), loops);
        assertLoopsHoldTheirQueuesIrqCpu(cpus(irqPlan(sys, proc, "enp8s0")), loops);
        NumaspreadException unknown = assertThrows(NumaspreadException.class, () -> loopPlan(sys, proc, "eth9", 0));
        assertTrue(
                unknown.getMessage().contains("no such interface eth9")
                        && unknown.getMessage().contains("enp8s0"),
                unknown.getMessage());
    }

    @Test
    void loopsOnIrqCpusRunEachLoopOnItsQueuesIrqCpuAlone(@TempDir Path sys, @TempDir Path proc) {
        NicFixture.at(sys, proc, MachineShape.mana())
                .iface("enp8s0")
                .pci("0000:08:00.0")
                .driver("mlx5_core")
                .numaNode(1)
                .localCpus(null)
                .vector(60, "mlx5_async0@pci:0000:08:00.0")
                .vector(61, "mlx5_comp0@pci:0000:08:00.0")
                .vector(62, "mlx5_comp1@pci:0000:08:00.0")
                .vector(63, "mlx5_comp2@pci:0000:08:00.0")
                .write();
        SysfsTree tree = SysfsTree.at(sys);
        SpreadPlan onIrqCpus = PinnedEventLoopGroup.builder(Transport.NIO.ioHandlerFactory())
                .nic("enp8s0")
                .kernel(new KernelPaths(proc, sys))
                .loopsOnIrqCpus(true)
                .spreadPlan(new ThreadPinner(new SysfsBackend(tree, proc), tree.possible()));
        List<CpuSet> irqs = cpus(irqPlan(sys, proc, "enp8s0"));
        assertEquals(List.of(CpuSet.of(4), CpuSet.of(6), CpuSet.of(5)), irqs, "one CPU per queue, cores first");
        assertEquals(irqs, cpus(onIrqCpus));
        assertEquals(
                List.of(CpuSet.range(4, 5), CpuSet.range(6, 7), CpuSet.range(4, 5)),
                cpus(loopPlan(sys, proc, "enp8s0", 0)),
                "by default a loop has its IRQ CPU's sibling group");
        IllegalArgumentException noNic = assertThrows(
                IllegalArgumentException.class,
                () -> PinnedEventLoopGroup.builder(Transport.NIO.ioHandlerFactory())
                        .node(0, 2)
                        .loopsOnIrqCpus(true)
                        .build());
        assertTrue(noNic.getMessage().contains("need the NIC"), noNic.getMessage());
    }

    /** mana's enp8s0 on node 1 with three queues, whose loops go on 4-5, 6-7, 4-5 when nothing busy-polls. */
    private static void manaEnp8s0(Path sys, Path proc) {
        NicFixture.at(sys, proc, MachineShape.mana())
                .iface("enp8s0")
                .pci("0000:08:00.0")
                .driver("mlx5_core")
                .numaNode(1)
                .localCpus(null)
                .vector(60, "mlx5_async0@pci:0000:08:00.0")
                .vector(61, "mlx5_comp0@pci:0000:08:00.0")
                .vector(62, "mlx5_comp1@pci:0000:08:00.0")
                .vector(63, "mlx5_comp2@pci:0000:08:00.0")
                .write();
    }

    /**
     * What netdev napi-get answers for enp8s0: NAPI 8193 (queue 0) with {@code threaded} and its thread, pid 4242,
     * whose affinity the stand-in /proc gives as {@code cpus} (what sched_getaffinity answers on the live one).
     */
    private static NapiMap napiGet(Path proc, int threaded, String cpus) throws IOException {
        Files.createDirectories(proc.resolve("4242"));
        Files.writeString(proc.resolve("4242/status"), "Name:\tnapi/enp8s0-8193\nCpus_allowed_list:\t" + cpus + "\n");
        return new NapiMap(
                new InterfaceName("enp8s0"),
                List.of(
                        new NapiInstance(
                                8193,
                                OptionalInt.of(0),
                                OptionalInt.of(61),
                                OptionalInt.of(4242),
                                OptionalInt.of(threaded)),
                        new NapiInstance(
                                8194, OptionalInt.of(1), OptionalInt.of(62), OptionalInt.empty(), OptionalInt.of(0))),
                NapiSource.NETLINK,
                "stand-in napi-get");
    }

    private static SpreadPlan loopPlan(Path sys, Path proc, NapiMap napis, PollSibling sibling) {
        SysfsTree tree = SysfsTree.at(sys);
        return PinnedEventLoopGroup.builder(Transport.NIO.ioHandlerFactory())
                .nic("enp8s0")
                .kernel(new KernelPaths(proc, sys))
                .napis(napis)
                .pollSibling(sibling)
                .spreadPlan(new ThreadPinner(new SysfsBackend(tree, proc), tree.possible()));
    }

    private static CpuSet union(List<CpuSet> sets) {
        return sets.stream().reduce(CpuSet.EMPTY, CpuSet::union);
    }

    @Test
    @Timeout(60)
    void loopsStayOffABusyPollThreadsCoreAndWithSharedSiblingsOffItsCpu(@TempDir Path sys, @TempDir Path proc)
            throws IOException {
        manaEnp8s0(sys, proc);
        NapiMap pinnedTo6 = napiGet(proc, PerNapiThreaded.BUSY_POLL, "6");
        List<CpuSet> idle = cpus(loopPlan(sys, proc, pinnedTo6, PollSibling.IDLE));
        assertEquals(3, idle.size());
        assertFalse(union(idle).intersects(CpuSet.range(6, 7)), "off CPU 6 and its sibling 7: " + idle);
        List<CpuSet> shared = cpus(loopPlan(sys, proc, pinnedTo6, PollSibling.SHARED));
        assertEquals(3, shared.size());
        assertFalse(union(shared).contains(6), "off CPU 6: " + shared);
        assertTrue(union(shared).contains(7), "its sibling 7 may hold a loop: " + shared);
    }

    @Test
    @Timeout(60)
    void noThreadedBusyPollNapiChangesNothing(@TempDir Path sys, @TempDir Path proc) throws IOException {
        manaEnp8s0(sys, proc);
        NapiMap threadedOnly = napiGet(proc, 1, "6");
        assertEquals(
                List.of(CpuSet.range(4, 5), CpuSet.range(6, 7), CpuSet.range(4, 5)),
                cpus(loopPlan(sys, proc, threadedOnly, PollSibling.IDLE)));
    }

    @Test
    @Timeout(60)
    void aBusyPollThreadOnEveryCpuFailsNamingTheNicAndItsCpus(@TempDir Path sys, @TempDir Path proc)
            throws IOException {
        manaEnp8s0(sys, proc);
        NapiMap unpinned = napiGet(proc, PerNapiThreaded.BUSY_POLL, "0-7");
        NumaspreadException e =
                assertThrows(NumaspreadException.class, () -> loopPlan(sys, proc, unpinned, PollSibling.IDLE));
        assertTrue(
                e.getMessage().contains("enp8s0")
                        && e.getMessage().contains("8193")
                        && e.getMessage().contains("CPUs 0-7"),
                e.getMessage());
    }

    /** The IRQ plan gives queue i one CPU, and loop i runs on that CPU's sibling group. */
    private static void assertLoopsHoldTheirQueuesIrqCpu(List<CpuSet> irqs, List<CpuSet> loops) {
        assertEquals(irqs.size(), loops.size());
        for (int i = 0; i < irqs.size(); i++) {
            assertEquals(1, irqs.get(i).size(), "queue " + i + "'s IRQ gets one CPU: " + irqs);
            assertTrue(loops.get(i).containsAll(irqs.get(i)), "loop " + i + " " + loops + " holds " + irqs);
        }
    }

    /** The plan a group for {@code nic} of the fake machine is built on, with every CPU of it allowed. */
    private static SpreadPlan loopPlan(Path sys, Path proc, String nic, int loops) {
        SysfsTree tree = SysfsTree.at(sys);
        ThreadPinner pinner = new ThreadPinner(new SysfsBackend(tree, proc), tree.possible());
        PinnedEventLoopGroup.Builder builder = PinnedEventLoopGroup.builder(Transport.NIO.ioHandlerFactory())
                .nic(nic)
                .kernel(new KernelPaths(proc, sys));
        return (loops > 0 ? builder.loops(loops) : builder).spreadPlan(pinner);
    }

    /** What {@code numaspread plan --nic NIC --sysfs-root SYS --proc-root PROC} plans for the queue IRQs. */
    private static SpreadPlan irqPlan(Path sys, Path proc, String nic) {
        SysfsTree tree = SysfsTree.at(sys);
        Topology mana = TopologyDiscovery.discover(new SysfsBackend(tree, proc), tree);
        return Planner.plan(
                mana,
                NicDiscovery.discover(new InterfaceName(nic), new KernelPaths(proc, sys))
                        .planRequest(mana, Purpose.IRQS));
    }

    private static List<CpuSet> cpus(SpreadPlan plan) {
        return plan.assignments().stream().map(Assignment::cpus).toList();
    }

    @Test
    void wantsExactlyOnePlacement() {
        IllegalArgumentException none = assertThrows(
                IllegalArgumentException.class,
                () -> PinnedEventLoopGroup.builder(Transport.NIO.ioHandlerFactory())
                        .build());
        IllegalArgumentException two = assertThrows(
                IllegalArgumentException.class,
                () -> PinnedEventLoopGroup.builder(Transport.NIO.ioHandlerFactory())
                        .nic("lo")
                        .node(0, 2)
                        .build());
        assertEquals(none.getMessage(), two.getMessage());
        assertTrue(none.getMessage().contains("exactly one of a NIC, a node and a count, or a plan"));
    }
}
