// SPDX-License-Identifier: Apache-2.0
package io.numaspread.nic;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.numaspread.NumaspreadException;
import io.numaspread.kernel.InterfaceName;
import io.numaspread.kernel.KernelPaths;
import io.numaspread.nic.LowerDevices.Kind;
import io.numaspread.nic.LowerDevices.Member;
import io.numaspread.testing.NicFixture;
import io.numaspread.testing.UpperDeviceFixture;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Upper devices resolved to their NICs in copied sysfs trees: two i40e ports eth0 and eth1 on mana's node 0. */
@Timeout(30)
class LowerDevicesTest {
    @TempDir
    Path sys;

    @TempDir
    Path proc;

    private KernelPaths paths() {
        return new KernelPaths(proc, sys);
    }

    @BeforeEach
    void twoPorts() {
        NicFixture.i40eOnMana(sys, proc);
        NicFixture.secondI40ePort(sys, proc);
    }

    private LowerDevices resolve(String name) {
        return LowerDevices.resolve(new InterfaceName(name), paths());
    }

    private static List<String> names(List<Member> members) {
        return members.stream().map(m -> m.name().value()).toList();
    }

    @Test
    void aNicIsItsOwnOnlyNic() {
        LowerDevices eth0 = resolve("eth0");
        assertEquals(Kind.NIC, eth0.kind());
        assertEquals(List.of(new Member(new InterfaceName("eth0"), List.of())), eth0.nics());
        assertEquals("", eth0.nics().get(0).relation());
    }

    @Test
    void aBondOverTwoNicsHasBothInNameOrder() {
        UpperDeviceFixture.write(sys, "bond0", "bond", 10, 10, "eth1", "eth0");
        LowerDevices bond = resolve("bond0");
        assertEquals(Kind.BOND, bond.kind());
        assertEquals(List.of("eth0", "eth1"), names(bond.nics()));
        assertEquals("member of bond0 (bond)", bond.nics().get(1).relation());
        assertEquals(List.of(), bond.withoutQueues());
    }

    @Test
    void aVlanOnABondReachesTheBondsMembersThroughIt() {
        UpperDeviceFixture.write(sys, "bond0", "bond", 10, 10, "eth0", "eth1");
        UpperDeviceFixture.write(sys, "bond0.100", "vlan", 11, 10, "bond0");
        LowerDevices vlan = resolve("bond0.100");
        assertEquals(Kind.VLAN, vlan.kind());
        assertEquals(List.of("eth0", "eth1"), names(vlan.nics()));
        assertEquals(
                List.of(
                        new LowerDevices.Upper(new InterfaceName("bond0.100"), Kind.VLAN),
                        new LowerDevices.Upper(new InterfaceName("bond0"), Kind.BOND)),
                vlan.nics().get(0).uppers());
        assertEquals("member of bond0 (bond), via bond0.100", vlan.nics().get(0).relation());
    }

    @Test
    void aMacvlanIsOnItsOneLowerDeviceByIflink() {
        UpperDeviceFixture.write(sys, "mv0", null, 12, 2, "eth0");
        LowerDevices macvlan = resolve("mv0");
        assertEquals(Kind.MACVLAN, macvlan.kind());
        assertEquals(List.of("eth0"), names(macvlan.nics()));
        assertEquals("lower device of mv0 (macvlan)", macvlan.nics().get(0).relation());
    }

    @Test
    void aMasterWithoutDevtypeIsATeamOrAnotherMaster() {
        UpperDeviceFixture.write(sys, "team0", null, 13, 13, "eth0", "eth1");
        LowerDevices team = resolve("team0");
        assertEquals(Kind.MASTER, team.kind());
        assertEquals(List.of("eth0", "eth1"), names(team.nics()));
        assertEquals(
                "member of team0 (team or other master)", team.nics().get(0).relation());
    }

    @Test
    void aBridgesVirtualPortsAreLeftOutAndListed() {
        UpperDeviceFixture.virtual(sys, "veth0", 20);
        UpperDeviceFixture.write(sys, "br0", "bridge", 21, 21, "veth0", "eth1");
        LowerDevices bridge = resolve("br0");
        assertEquals(Kind.BRIDGE, bridge.kind());
        assertEquals(List.of("eth1"), names(bridge.nics()));
        assertEquals(List.of("veth0"), names(bridge.withoutQueues()));
    }

    @Test
    void aNicReachedTwiceIsListedOnce() {
        UpperDeviceFixture.write(sys, "eth0.10", "vlan", 30, 2, "eth0");
        UpperDeviceFixture.write(sys, "eth0.20", "vlan", 31, 2, "eth0");
        UpperDeviceFixture.write(sys, "br0", "bridge", 32, 32, "eth0.10", "eth0.20");
        LowerDevices bridge = resolve("br0");
        assertEquals(List.of("eth0"), names(bridge.nics()));
        assertEquals(
                "lower device of eth0.10 (VLAN), via br0", bridge.nics().get(0).relation());
    }

    @Test
    void aLoopInTheLowerDevicesIsNamed() {
        UpperDeviceFixture.write(sys, "bond1", "bond", 41, 41, "eth0");
        UpperDeviceFixture.write(sys, "bond0", "bond", 40, 40, "bond1");
        UpperDeviceFixture.addLower(sys, "bond1", "bond0");
        NumaspreadException e = assertThrows(NumaspreadException.class, () -> resolve("bond0"));
        assertEquals(NumaspreadException.Kind.BAD_INPUT, e.kind());
        assertEquals("the lower devices of bond0 loop: bond0 -> bond1 -> bond0", e.getMessage());
    }

    @Test
    void aStackDeeperThanTheKernelAllowsIsRefused() {
        String below = "eth0";
        for (int level = 1; level <= LowerDevices.MAX_DEPTH + 1; level++) {
            UpperDeviceFixture.write(sys, "v" + level, "vlan", 50 + level, 49 + level, below);
            below = "v" + level;
        }
        assertEquals(List.of("eth0"), names(resolve("v8").nics()), "8 levels of upper devices are allowed");
        NumaspreadException e = assertThrows(NumaspreadException.class, () -> resolve("v9"));
        assertEquals(
                "the lower devices of v9 nest deeper than the 8 levels the kernel allows: "
                        + "v9 -> v8 -> v7 -> v6 -> v5 -> v4 -> v3 -> v2 -> v1 -> eth0",
                e.getMessage());
    }

    @Test
    void aVirtualDeviceWithNoLowerDevicesIsNamed() {
        UpperDeviceFixture.virtual(sys, "dummy0", 60);
        NumaspreadException e = assertThrows(NumaspreadException.class, () -> resolve("dummy0"));
        assertEquals(
                "dummy0 is a virtual interface (no device link in " + sys.resolve("class/net")
                        + "/dummy0) with no lower devices: it has no queue IRQs",
                e.getMessage());
        UpperDeviceFixture.write(sys, "bond9", "bond", 61, 61);
        assertThrows(NumaspreadException.class, () -> resolve("bond9"), "a bond without members");
    }

    @Test
    void anUpperDeviceOverVirtualDevicesOnlyHasNoQueueIrqs() {
        UpperDeviceFixture.virtual(sys, "dummy0", 60);
        UpperDeviceFixture.virtual(sys, "dummy1", 61);
        UpperDeviceFixture.write(sys, "bond0", "bond", 62, 62, "dummy0", "dummy1");
        NumaspreadException e = assertThrows(NumaspreadException.class, () -> resolve("bond0"));
        assertEquals(
                "bond0's lower devices dummy0, dummy1 are virtual (no device link in " + sys.resolve("class/net")
                        + "): bond0 has no queue IRQs",
                e.getMessage());
    }

    @Test
    void aLowerDeviceMissingFromTheTreeIsNamed() {
        UpperDeviceFixture.write(sys, "bond0", "bond", 64, 64, "eth0", "gone0");
        NumaspreadException e = assertThrows(NumaspreadException.class, () -> resolve("bond0"));
        assertEquals(
                "bond0 has lower device gone0 (lower_gone0), which is not in " + sys.resolve("class/net")
                        + ": is it in another network namespace?",
                e.getMessage());
    }

    @Test
    void anUnknownInterfaceIsNamedWithThoseThereAre() {
        NumaspreadException e = assertThrows(NumaspreadException.class, () -> resolve("eth9"));
        assertEquals("no such interface eth9 (" + sys.resolve("class/net") + " has eth0, eth1)", e.getMessage());
    }

    @Test
    void devtypeIsReadFromUevent() {
        assertEquals(Optional.of("bond"), LowerDevices.devtype("DEVTYPE=bond\nINTERFACE=bond0\nIFINDEX=5\n"));
        assertEquals(Optional.empty(), LowerDevices.devtype("INTERFACE=mv0\nIFINDEX=6\n"));
    }

    @Test
    void aLowerLinkThatNamesNoInterfaceIsNamed() {
        NumaspreadException e = assertThrows(
                NumaspreadException.class,
                () -> LowerDevices.lowerNames(Path.of("/sys/class/net/bond0"), List.of("lower_", "mtu")));
        assertEquals("/sys/class/net/bond0/lower_: invalid interface name \"\": it is empty", e.getMessage());
        assertEquals(
                List.of(new InterfaceName("a"), new InterfaceName("b")),
                LowerDevices.lowerNames(Path.of("/x"), List.of("lower_b", "upper_c", "lower_a")));
    }
}
