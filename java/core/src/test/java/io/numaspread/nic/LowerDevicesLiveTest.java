// SPDX-License-Identifier: Apache-2.0
package io.numaspread.nic;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.numaspread.NumaspreadException;
import io.numaspread.kernel.InterfaceName;
import io.numaspread.kernel.KernelPaths;
import io.numaspread.kernel.KernelText;
import io.numaspread.nic.LowerDevices.Kind;
import io.numaspread.nic.LowerDevices.Upper;
import io.numaspread.testing.IpLink;
import io.numaspread.testing.NeedsLiveNic;
import io.numaspread.testing.NeedsRoot;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Upper devices the running kernel makes, resolved from the live /sys: a macvlan on eth0, a bridge over that
 * macvlan and a veth, a bridge over a veth alone. They are the upper devices this kernel has built in (no
 * modules: bonding, 8021q, dummy and team are not there); a bond and a VLAN are the fixture trees' of {@link
 * LowerDevicesTest}. Every device is made down, so eth0 takes no address and no promiscuity, with names of this
 * run's own, and deleted after each test whatever happened.
 */
@NeedsRoot
@NeedsLiveNic
@Timeout(60)
class LowerDevicesLiveTest {
    private static final InterfaceName ETH0 = new InterfaceName("eth0");
    private static final String PREFIX = IpLink.name("");

    private final List<String> made = new ArrayList<>();
    private String eth0Flags;

    @BeforeEach
    void eth0AsItIs() {
        eth0Flags = KernelText.readRequired(KernelPaths.LIVE.netDevice(ETH0).resolve("flags"));
    }

    @AfterEach
    void deleteWhatWasMade() throws Exception {
        List<String> left = new ArrayList<>();
        for (int i = made.size() - 1; i >= 0; i--) {
            String device = made.get(i);
            if (Files.exists(KernelPaths.LIVE.netClass().resolve(device))) {
                IpLink.run("del", device);
            }
            if (Files.exists(KernelPaths.LIVE.netClass().resolve(device))) {
                left.add(device);
            }
        }
        assertEquals(List.of(), left, "devices left behind");
        assertEquals(
                eth0Flags,
                KernelText.readRequired(KernelPaths.LIVE.netDevice(ETH0).resolve("flags")),
                "eth0's flags (up, promiscuous) are as they were");
    }

    @Test
    void aMacvlanOnEth0ResolvesToEth0() throws Exception {
        String macvlan = make(PREFIX + "mv", "add", "link", "eth0", "name", PREFIX + "mv", "type", "macvlan");
        LowerDevices lower = LowerDevices.resolve(new InterfaceName(macvlan), KernelPaths.LIVE);
        assertEquals(Kind.MACVLAN, lower.kind());
        assertEquals(List.of(new LowerDevices.Member(ETH0, List.of(upper(macvlan, Kind.MACVLAN)))), lower.nics());
        assertEquals(
                "lower device of " + macvlan + " (macvlan)", lower.nics().get(0).relation());
    }

    /** Two levels, as a VLAN on a bond: the bridge's macvlan port is on eth0, its veth port has no queues. */
    @Test
    void aBridgeOverAMacvlanAndAVethResolvesToEth0ThroughTheMacvlan() throws Exception {
        String macvlan = make(PREFIX + "mv", "add", "link", "eth0", "name", PREFIX + "mv", "type", "macvlan");
        String veth = make(PREFIX + "va", "add", PREFIX + "va", "type", "veth", "peer", "name", PREFIX + "vb");
        String bridge = make(PREFIX + "br", "add", PREFIX + "br", "type", "bridge");
        IpLink.run("set", macvlan, "master", bridge);
        IpLink.run("set", veth, "master", bridge);
        LowerDevices lower = LowerDevices.resolve(new InterfaceName(bridge), KernelPaths.LIVE);
        assertEquals(Kind.BRIDGE, lower.kind());
        assertEquals(
                List.of(new LowerDevices.Member(
                        ETH0, List.of(upper(bridge, Kind.BRIDGE), upper(macvlan, Kind.MACVLAN)))),
                lower.nics());
        assertEquals(
                "lower device of " + macvlan + " (macvlan), via " + bridge,
                lower.nics().get(0).relation());
        assertEquals(
                List.of(new LowerDevices.Member(new InterfaceName(veth), List.of(upper(bridge, Kind.BRIDGE)))),
                lower.withoutQueues());
    }

    @Test
    void aBridgeOverAVethAloneHasNoQueueIrqs() throws Exception {
        String veth = make(PREFIX + "va", "add", PREFIX + "va", "type", "veth", "peer", "name", PREFIX + "vb");
        String bridge = make(PREFIX + "br", "add", PREFIX + "br", "type", "bridge");
        IpLink.run("set", veth, "master", bridge);
        NumaspreadException e = assertThrows(
                NumaspreadException.class, () -> LowerDevices.resolve(new InterfaceName(bridge), KernelPaths.LIVE));
        assertEquals(
                bridge + "'s lower devices " + veth + " are virtual (no device link in /sys/class/net): " + bridge
                        + " has no queue IRQs",
                e.getMessage());
        NumaspreadException alone = assertThrows(
                NumaspreadException.class,
                () -> LowerDevices.resolve(new InterfaceName(PREFIX + "vb"), KernelPaths.LIVE));
        assertEquals(
                PREFIX + "vb is a virtual interface (no device link in /sys/class/net/" + PREFIX
                        + "vb) with no lower devices: it has no queue IRQs",
                alone.getMessage());
    }

    @Test
    void eth0IsItsOwnNic() {
        LowerDevices lower = LowerDevices.resolve(ETH0, KernelPaths.LIVE);
        assertEquals(Kind.NIC, lower.kind());
        assertEquals(List.of(new LowerDevices.Member(ETH0, List.of())), lower.nics());
        assertFalse(NicDiscovery.discover(ETH0, KernelPaths.LIVE).queueVectors().isEmpty());
    }

    private static Upper upper(String name, Kind kind) {
        return new Upper(new InterfaceName(name), kind);
    }

    /** Runs {@code ip link ARGS}, which makes {@code device}, remembered for deletion before it runs. */
    private String make(String device, String... args) throws Exception {
        made.add(device);
        IpLink.run(args);
        return device;
    }
}
