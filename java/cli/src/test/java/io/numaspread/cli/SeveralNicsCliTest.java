// SPDX-License-Identifier: Apache-2.0
package io.numaspread.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.numaspread.testing.NicFixture;
import io.numaspread.testing.UpperDeviceFixture;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * irqs, plan, apply and restore on two NICs at once: the two ports of one i40e card on the mana machine's node 0
 * (eth0: IRQs 50-53, eth1: IRQs 60-63), which have 8 CPUs between them, 4 of them on their node.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class SeveralNicsCliTest extends StandInCliTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final List<Integer> ETH0 = List.of(50, 51, 52, 53);
    private static final List<Integer> ETH1 = List.of(60, 61, 62, 63);

    /** The kernel's files: every file of the trees but the state directory's, whose lock files stay. */
    private Map<Path, String> kernelFiles() {
        Map<Path, String> files = new TreeMap<>(NicFixture.snapshot(proc, sys));
        files.keySet().removeIf(file -> file.startsWith(proc.resolve("numaspread")));
        return files;
    }

    private Path eth0State;
    private Path eth1State;

    @BeforeEach
    void writeTheSecondPort() {
        NicFixture.secondI40ePort(sys, proc);
        before = NicFixture.snapshot(proc, sys);
        eth0State = proc.resolve("numaspread/eth0.json");
        eth1State = proc.resolve("numaspread/eth1.json");
    }

    private List<String> affinities(List<Integer> irqs) throws IOException {
        List<String> cpus = new ArrayList<>();
        for (int irq : irqs) {
            cpus.add(affinity(irq));
        }
        return cpus;
    }

    /**
     * A server listens on a VLAN on a bond of both ports: {@code apply --nic bond0.100} applies the ports' joint plan,
     * each port with its own state file, and {@code restore --nic bond0.100} undoes both.
     */
    @Test
    void aVlanOnABondIsAppliedAndRestoredAsItsMembers() throws Exception {
        UpperDeviceFixture.write(sys, "bond0", "bond", 10, 10, "eth0", "eth1");
        UpperDeviceFixture.write(sys, "bond0.100", "vlan", 11, 10, "bond0");
        Map<Path, String> withBond = kernelFiles();
        CliRun apply = CliRun.of(args("apply", "--nic", "bond0.100"));
        assertEquals(0, apply.exitCode(), apply.err() + apply.out());
        assertEquals(List.of("0", "3", "4", "7"), affinities(ETH0), apply.out());
        assertEquals(List.of("2", "1", "6", "5"), affinities(ETH1), apply.out());
        assertTrue(Files.exists(eth0State) && Files.exists(eth1State), apply.out());

        CliRun restore = CliRun.of(args("restore", "--nic", "bond0.100"));
        assertEquals(0, restore.exitCode(), restore.err() + restore.out());
        assertTrue(restore.out().startsWith("eth0:\n"), restore.out());
        assertTrue(restore.out().contains("\neth1:\n"), restore.out());
        assertEquals(withBond, kernelFiles(), "every value as before the apply");
    }

    @Test
    void applyAllPlansBothPortsTogetherAndRestoreAllUndoesThem() throws Exception {
        CliRun apply = CliRun.of(args("apply", "--all"));
        assertEquals(0, apply.exitCode(), apply.err() + apply.out());
        // Together: the ports take turns, node 0 first, so no CPU has two queue IRQs while another has none.
        // Each port's queues are on both cores of its node, one CPU of each: sibling dislocality within the NIC.
        assertEquals(List.of("0", "3", "4", "7"), affinities(ETH0), apply.out());
        assertEquals(List.of("2", "1", "6", "5"), affinities(ETH1), apply.out());
        assertTrue(Files.exists(eth0State) && Files.exists(eth1State), "each NIC keeps its own state file");
        assertTrue(apply.out().contains("Undo with: numaspread restore --nic eth0"), apply.out());

        // Planned alone, as apply did before, each port took CPUs 0-3 and shared them with the other.
        CliRun alone = CliRun.of(args("plan", "--nic", "eth1", "--json"));
        List<String> aloneCpus = new ArrayList<>();
        JSON.readTree(alone.out())
                .get("assignments")
                .forEach(a -> aloneCpus.add(a.get("cpu").asText()));
        assertEquals(List.of("0", "2", "1", "3"), aloneCpus);

        CliRun again = CliRun.of(args("apply", "--nic", "eth0", "--nic", "eth1"));
        assertEquals(0, again.exitCode(), again.err());
        assertTrue(again.out().endsWith("nothing to change\n"), "--all is the NICs by name:\n" + again.out());

        CliRun restore = CliRun.of(args("restore", "--all"));
        assertEquals(0, restore.exitCode(), restore.err() + restore.out());
        assertTrue(restore.out().startsWith("eth0:\n"), restore.out());
        assertTrue(restore.out().contains("\neth1:\n"), restore.out());
        assertEquals(before, kernelFiles());
        assertFalse(Files.exists(eth0State) || Files.exists(eth1State));
        CliRun none = CliRun.of(args("restore", "--all"));
        assertEquals(0, none.exitCode(), none.err());
        assertTrue(none.out().startsWith("no state file in "), none.out());
    }

    @Test
    void irqsAndPlanShowTheJointPlan() throws Exception {
        JsonNode irqs = JSON.readTree(CliRun.of(args("irqs", "--nic", "eth0", "--nic", "eth1", "--json"))
                .out());
        List<String> planned = new ArrayList<>();
        for (JsonNode nic : irqs.get("nics")) {
            nic.get("irqs").forEach(irq -> {
                if (irq.get("role").asText().equals("queue")) {
                    planned.add(nic.get("interface").asText() + ":" + irq.get("planned"));
                }
            });
        }
        assertEquals(
                List.of("eth0:[0]", "eth0:[3]", "eth0:[4]", "eth0:[7]", "eth1:[2]", "eth1:[1]", "eth1:[6]", "eth1:[5]"),
                planned);

        JsonNode plan = JSON.readTree(CliRun.of(args("plan", "--all", "--json")).out());
        TreeSet<Integer> cpus = new TreeSet<>();
        plan.get("nics")
                .forEach(nic -> nic.get("assignments")
                        .forEach(a -> cpus.add(a.get("cpu").asInt())));
        assertEquals(8, cpus.size(), plan.toString());
        assertEquals("held", plan.at("/priorities/0/status").asText(), plan.toString());

        CliRun text = CliRun.of(args("plan", "--all"));
        assertEquals(0, text.exitCode(), text.err());
        assertTrue(text.out().contains("\neth1: PCI 0000:3b:00.1, numa_node 0; 4 queues"), text.out());
        assertTrue(text.out().contains("priorities over the 2 NICs' 8 queues:"), text.out());
        CliRun irqsText = CliRun.of(args("irqs", "--all"));
        assertTrue(
                irqsText.out().matches("(?s).*\\n\\s*60  i40e-eth1-TxRx-0\\s+0  0-7\\s+0\\s+2\\s+differs.*"),
                irqsText.out());
    }

    @Test
    void aFailureOnTheSecondNicPutsTheFirstBackToo() throws Exception {
        // eth0: four IRQ writes and four XPS writes; write 10 is eth1's second IRQ.
        CliRun failed = ForkedCli.run(
                FaultyApply.class,
                List.of(),
                List.of(),
                ForkedCli.classPath(),
                Map.of(),
                FaultyApply.args("einval:10", args("apply", "--all")));
        assertEquals(Failures.ROLLED_BACK, failed.exitCode(), failed.err());
        assertTrue(failed.err().startsWith("numaspread: IRQ 61 (i40e-eth1-TxRx-1): writing \"1\" to "), failed.err());
        assertTrue(
                failed.err().contains("; eth0 (8 values) put back too, with its state file as before\n"), failed.err());
        assertEquals(before, kernelFiles());
        assertFalse(Files.exists(eth0State), "no state file claims a change that was undone");
        assertFalse(Files.exists(eth1State));
    }

    @Test
    void anEarlierApplysStateFileIsKeptAsItWasWhenTheSecondNicFails() throws Exception {
        CliRun first = CliRun.of(args("apply", "--nic", "eth0", "--siblings"));
        assertEquals(0, first.exitCode(), first.err());
        String recorded = Files.readString(eth0State);
        Map<Path, String> applied = kernelFiles();
        // eth0 now holds 0-1, 2-3, 0-1, 2-3 and its XPS masks; together it moves to 0, 3, 4, 7 (4 IRQs and 4 masks).
        CliRun failed = ForkedCli.run(
                FaultyApply.class,
                List.of(),
                List.of(),
                ForkedCli.classPath(),
                Map.of(),
                FaultyApply.args("einval:9", args("apply", "--all")));
        assertEquals(Failures.ROLLED_BACK, failed.exitCode(), failed.err());
        assertTrue(failed.err().contains("; eth0 (8 values) put back too"), failed.err());
        assertEquals(applied, kernelFiles(), "eth0 is back to the earlier apply's values");
        assertEquals(recorded, Files.readString(eth0State), "and its state file still holds the original values");
        assertFalse(Files.exists(eth1State));
    }

    @Test
    void badInputNamesTheCulpritAndChangesNothing() {
        assertBadInput("no such interface eth9", "apply", "--nic", "eth0", "--nic", "eth9");
        assertBadInput(
                "--all takes every NIC with queue IRQs: leave out --nic eth0", "apply", "--all", "--nic", "eth0");
        assertBadInput("--nic eth0 is given twice", "apply", "--nic", "eth0", "--nic", "eth1", "--nic", "eth0");
        assertBadInput("give --nic IFACE (repeat it for several NICs) or --all", "apply");
        assertBadInput("--state works on one NIC, and 2 were chosen (eth0, eth1)", "apply", "--all", "--state", "x");
        assertBadInput("--poll-queues works on one NIC", "apply", "--all", "--poll-queues", "1");
        assertBadInput("--irq-suspend works on one NIC", "apply", "--all", "--irq-suspend");
        assertBadInput("no such interface eth9", "irqs", "--nic", "eth9", "--nic", "eth0");
        assertBadInput("--poll-queues works on one NIC", "plan", "--all", "--poll-queues", "1");
        assertBadInput(
                "--all restores every state file of the state directory: leave out --nic eth0",
                "restore",
                "--all",
                "--nic",
                "eth0");
    }

    private void assertBadInput(String message, String command, String... more) {
        CliRun run = CliRun.of(args(command, more));
        assertEquals(Failures.BAD_INPUT, run.exitCode(), run.err() + run.out());
        assertEquals(1, run.err().lines().count(), run.err());
        assertTrue(run.err().startsWith("numaspread: " + message), run.err());
        assertEquals(before, kernelFiles(), "nothing was changed");
    }

    @Test
    void restoreAllNamesTheNicItCouldNotRestoreAndRestoresTheOthers() throws Exception {
        CliRun apply = CliRun.of(args("apply", "--nic", "eth0"));
        assertEquals(0, apply.exitCode(), apply.err());
        Files.writeString(eth1State, "{\"interface\": \"eth1\", \"saved\": 3}");
        CliRun restore = CliRun.of(args("restore", "--all"));
        assertEquals(Failures.BAD_INPUT, restore.exitCode(), restore.err());
        assertTrue(
                restore.err()
                        .startsWith("numaspread: restore --all: 1 of 2 NICs not restored: eth1 (state file " + eth1State
                                + " is not a numaspread state file"),
                restore.err());
        assertTrue(restore.out().contains("\neth1:\nnot restored: state file "), restore.out());
        assertEquals(ETH0.stream().map(irq -> "0-7").toList(), affinities(ETH0), "eth0 was restored all the same");
        assertFalse(Files.exists(eth0State));
        assertTrue(Files.exists(eth1State));
    }
}
