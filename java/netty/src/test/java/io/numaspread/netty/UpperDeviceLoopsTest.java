// SPDX-License-Identifier: Apache-2.0
package io.numaspread.netty;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.numaspread.CpuSet;
import io.numaspread.NumaspreadException;
import io.numaspread.kernel.InterfaceName;
import io.numaspread.kernel.KernelPaths;
import io.numaspread.kernel.SysfsTree;
import io.numaspread.nativeaccess.SysfsBackend;
import io.numaspread.nic.NapiDiscovery;
import io.numaspread.nic.NapiMap;
import io.numaspread.nic.NapiSettings;
import io.numaspread.nic.Nic;
import io.numaspread.nic.NicDiscovery;
import io.numaspread.pin.ThreadPinner;
import io.numaspread.plan.Assignment;
import io.numaspread.plan.Planner;
import io.numaspread.plan.Purpose;
import io.numaspread.plan.SpreadPlan;
import io.numaspread.testing.IpLink;
import io.numaspread.testing.MachineShape;
import io.numaspread.testing.NeedsLiveNic;
import io.numaspread.testing.NeedsRoot;
import io.numaspread.testing.NicFixture;
import io.numaspread.testing.UpperDeviceFixture;
import io.numaspread.topology.Topology;
import io.numaspread.topology.TopologyDiscovery;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Groups for upper devices: a bond over mana's two i40e ports eth0 and eth1 (four queues each, node 0), a VLAN on
 * it, and on the live host a macvlan on eth0.
 */
@Timeout(60)
class UpperDeviceLoopsTest {
    @TempDir
    Path sys;

    @TempDir
    Path proc;

    private void bondOverTwoPorts() {
        NicFixture.i40eOnMana(sys, proc);
        NicFixture.secondI40ePort(sys, proc);
        UpperDeviceFixture.write(sys, "bond0", "bond", 10, 10, "eth0", "eth1");
        UpperDeviceFixture.write(sys, "bond0.100", "vlan", 11, 10, "bond0");
    }

    private PinnedEventLoopGroup.Builder builder(String nic) {
        return PinnedEventLoopGroup.builder(Transport.NIO.ioHandlerFactory())
                .nic(nic)
                .kernel(new KernelPaths(proc, sys));
    }

    private SpreadPlan loopPlan(PinnedEventLoopGroup.Builder builder) {
        SysfsTree tree = SysfsTree.at(sys);
        return builder.spreadPlan(new ThreadPinner(new SysfsBackend(tree, proc), tree.possible()));
    }

    private Topology mana() {
        SysfsTree tree = SysfsTree.at(sys);
        return TopologyDiscovery.discover(new SysfsBackend(tree, proc), tree);
    }

    private Nic nic(String name) {
        return NicDiscovery.discover(new InterfaceName(name), new KernelPaths(proc, sys));
    }

    private static List<CpuSet> cpus(SpreadPlan plan) {
        return plan.assignments().stream().map(Assignment::cpus).toList();
    }

    @Test
    void aBondGetsALoopPerQueueOfEachPortPlannedAsTheTwoPortsTogether() {
        bondOverTwoPorts();
        Topology mana = mana();
        SpreadPlan together = Planner.plan(
                mana, nic("eth0").planRequest(mana, Purpose.THREADS).withOrigins(List.of(0, 0)));
        SpreadPlan bond = loopPlan(builder("bond0"));
        assertEquals(8, bond.size(), "four loops for eth0's queues, then four for eth1's");
        assertEquals(cpus(together), cpus(bond));
        assertEquals(cpus(bond), cpus(loopPlan(builder("bond0.100"))), "a VLAN on the bond has the bond's loops");
        List<CpuSet> onIrqCpus = cpus(loopPlan(builder("bond0").loopsOnIrqCpus(true)));
        assertEquals(
                8,
                onIrqCpus.stream().reduce(CpuSet.EMPTY, CpuSet::union).size(),
                "eight queues on mana's eight CPUs, one each, not both ports' queue 0 on one CPU: " + onIrqCpus);
    }

    @Test
    void loopsGivesEachPortThatMany() {
        bondOverTwoPorts();
        SpreadPlan two = loopPlan(builder("bond0").loops(2));
        assertEquals(4, two.size());
        assertEquals(
                List.of(0, 1, 0, 1),
                two.assignments().stream().map(Assignment::index).toList());
    }

    @Test
    void portsWithDifferentQueueCountsNeedALoopCount() {
        NicFixture eth0 = NicFixture.i40eOnMana(sys, proc);
        NicFixture.at(sys, proc, MachineShape.mana())
                .besides(eth0)
                .iface("eth1")
                .pci("0000:3b:00.1")
                .driver("i40e")
                .numaNode(0)
                .vector(59, "i40e-0000:3b:00.1:misc")
                .vector(60, "i40e-eth1-TxRx-0")
                .vector(61, "i40e-eth1-TxRx-1")
                .write();
        UpperDeviceFixture.write(sys, "bond0", "bond", 10, 10, "eth0", "eth1");
        NumaspreadException e = assertThrows(NumaspreadException.class, () -> loopPlan(builder("bond0")));
        assertEquals(NumaspreadException.Kind.BAD_INPUT, e.kind());
        assertEquals(
                "bond0's NICs have different queue counts (eth0 4, eth1 2): give the loops per NIC (Builder.loops)",
                e.getMessage());
        assertEquals(4, loopPlan(builder("bond0").loops(2)).size());
    }

    @Test
    void napiSettingsAreRefusedForAnUpperDevice() {
        bondOverTwoPorts();
        NumaspreadException e = assertThrows(
                NumaspreadException.class,
                () -> loopPlan(builder("bond0.100").napiSettings(new NapiSettings(2, 20_000, 0))));
        assertEquals(NumaspreadException.Kind.REFUSED, e.kind());
        assertEquals(
                "NAPI settings and IRQ suspension are per NIC, and bond0.100 is a VLAN: build the group for one of"
                        + " its NICs [eth0, eth1]",
                e.getMessage());
    }

    @Test
    void aBondOverVirtualDevicesOnlyIsNamed() {
        NicFixture.i40eOnMana(sys, proc);
        UpperDeviceFixture.virtual(sys, "dummy0", 20);
        UpperDeviceFixture.write(sys, "bond1", "bond", 21, 21, "dummy0");
        NumaspreadException e = assertThrows(NumaspreadException.class, () -> loopPlan(builder("bond1")));
        assertEquals(
                "bond1's lower devices dummy0 are virtual (no device link in " + sys.resolve("class/net")
                        + "): bond1 has no queue IRQs",
                e.getMessage());
    }

    /**
     * A macvlan the running kernel makes on eth0 (down, so eth0 takes no address and no promiscuity; deleted after):
     * its group has eth0's loops and steers by the NAPI IDs of eth0's queues, as eth0's own group does.
     */
    @Test
    @NeedsRoot
    @NeedsLiveNic
    void aLiveMacvlansGroupHasEth0sLoopsAndNapiMap() throws Exception {
        String macvlan = IpLink.name("gmv");
        String eth0Flags = Files.readString(Path.of("/sys/class/net/eth0/flags"));
        IpLink.run("add", "link", "eth0", "name", macvlan, "type", "macvlan");
        try {
            ThreadPinner pinner = ThreadPinner.live();
            PinnedEventLoopGroup group = PinnedEventLoopGroup.forNic(macvlan, Transport.EPOLL.ioHandlerFactory());
            PinnedEventLoopGroup eth0 = PinnedEventLoopGroup.forNic("eth0", Transport.EPOLL.ioHandlerFactory());
            try {
                assertEquals(
                        eth0.loops().stream().map(PinnedLoop::cpus).toList(),
                        group.loops().stream().map(PinnedLoop::cpus).toList());
                NapiMap eth0Napis =
                        NapiDiscovery.discover(new InterfaceName("eth0"), KernelPaths.LIVE, pinner.backend());
                NapiMap expected = NapiMap.merged(
                        new InterfaceName(macvlan),
                        List.of(eth0Napis),
                        List.of(eth0.loops().size()));
                ConnectionSteering steering = group.steering().orElseThrow();
                assertEquals(eth0.steering().orElseThrow().key(), steering.key());
                assertEquals(expected, steering.napis().orElseThrow());
                assertEquals(
                        eth0Napis.instances().stream().map(n -> n.queue()).toList(),
                        steering.napis().orElseThrow().instances().stream()
                                .map(n -> n.queue())
                                .toList(),
                        "one NIC's queues keep their numbers");
            } finally {
                group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
                eth0.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
            }
        } finally {
            IpLink.run("del", macvlan);
        }
        assertEquals(false, Files.exists(Path.of("/sys/class/net", macvlan)), macvlan + " is deleted");
        assertEquals(eth0Flags, Files.readString(Path.of("/sys/class/net/eth0/flags")), "eth0's flags as they were");
    }
}
