// SPDX-License-Identifier: Apache-2.0
package io.numaspread.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.numaspread.testing.NicFixture;
import io.numaspread.testing.UpperDeviceFixture;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code irqs --nic} of upper devices on mana's two i40e ports eth0 and eth1: bond0 over both, bond0.100 on it, and
 * a bridge br0 over eth1 and a veth.
 */
@Timeout(60)
class UpperDeviceIrqsTest extends StandInCliTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @BeforeEach
    void bondAndVlan() {
        NicFixture.secondI40ePort(sys, proc);
        UpperDeviceFixture.write(sys, "bond0", "bond", 10, 10, "eth0", "eth1");
        UpperDeviceFixture.write(sys, "bond0.100", "vlan", 11, 10, "bond0");
        UpperDeviceFixture.virtual(sys, "veth0", 12);
        UpperDeviceFixture.write(sys, "br0", "bridge", 13, 13, "eth1", "veth0");
    }

    @Test
    void aVlanOnABondShowsEachMembersQueuesWithTheirShareOfOnePlan() throws Exception {
        CliRun text = CliRun.of(args("irqs", "--nic", "bond0.100"));
        assertEquals(0, text.exitCode(), text.err());
        assertTrue(text.out().startsWith("bond0.100: VLAN over eth0, eth1, planned together\n"), text.out());
        assertTrue(
                text.out().contains("\n== eth0, member of bond0 (bond), via bond0.100\neth0: driver i40e"), text.out());
        assertTrue(
                text.out().contains("\n== eth1, member of bond0 (bond), via bond0.100\neth1: driver i40e"), text.out());
        assertTrue(text.out().matches("(?s).*60  i40e-eth1-TxRx-0\\s+0  0-7\\s+.*"), text.out());

        CliRun json = CliRun.of(args("irqs", "--nic", "bond0.100", "--json"));
        assertEquals(0, json.exitCode(), json.err());
        JsonNode root = JSON.readTree(json.out());
        assertEquals("bond0.100", root.at("/interface").asText());
        assertEquals("vlan", root.at("/kind").asText());
        assertEquals("eth1", root.at("/nics/1/interface").asText());
        assertEquals(
                "member of bond0 (bond), via bond0.100",
                root.at("/nics/1/relation").asText());
        assertEquals("[\"bond0.100\",\"bond0\"]", root.at("/nics/1/uppers").toString());
        List<String> planned = new ArrayList<>();
        for (JsonNode nic : root.at("/nics")) {
            for (JsonNode irq : nic.at("/irqs")) {
                if (irq.at("/role").asText().equals("queue")) {
                    planned.add(irq.at("/planned").toString());
                }
            }
        }
        Set<String> distinct = new HashSet<>(planned);
        assertEquals(8, planned.size(), planned.toString());
        assertEquals(8, distinct.size(), "both ports' queues on mana's 8 CPUs, one each: " + planned);
    }

    @Test
    void aNicIsShownAsItAlwaysWas() {
        CliRun text = CliRun.of(args("irqs", "--nic", "eth0"));
        assertEquals(0, text.exitCode(), text.err());
        assertTrue(text.out().startsWith("eth0: driver i40e, PCI 0000:3b:00.0, numa_node 0"), text.out());
        assertTrue(!text.out().contains("=="), text.out());
    }

    @Test
    void aBridgesVirtualPortIsNamedAndLeftOut() {
        CliRun text = CliRun.of(args("irqs", "--nic", "br0"));
        assertEquals(0, text.exitCode(), text.err());
        assertTrue(
                text.out()
                        .startsWith("br0: bridge over eth1 (no queue IRQs, left out: veth0)\n\n== eth1, member of"
                                + " br0 (bridge)\neth1: driver i40e"),
                text.out());
    }

    @Test
    void anUpperDeviceWithoutNicsIsOneLineOfBadInput() {
        UpperDeviceFixture.virtual(sys, "dummy0", 20);
        UpperDeviceFixture.write(sys, "bond1", "bond", 21, 21, "dummy0");
        CliRun run = CliRun.of(args("irqs", "--nic", "bond1"));
        assertEquals(Failures.BAD_INPUT, run.exitCode());
        assertEquals("", run.out());
        assertEquals(
                "numaspread: bond1's lower devices dummy0 are virtual (no device link in " + sys.resolve("class/net")
                        + "): bond1 has no queue IRQs\n",
                run.err());
    }

    @Test
    void svgOfABondOfTwoNicsIsRefusedNamingThem() {
        CliRun refused = CliRun.of(
                args("irqs", "--nic", "bond0", "--svg", run.resolve("bond0.svg").toString()));
        assertEquals(Failures.BAD_INPUT, refused.exitCode());
        assertTrue(
                refused.err().contains("--svg draws one NIC, and bond0 has 2 (eth0, eth1): give --nic eth0"),
                refused.err());
    }
}
