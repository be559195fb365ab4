// SPDX-License-Identifier: Apache-2.0
package io.numaspread.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.numaspread.irq.StateFile;
import io.numaspread.irq.Target;
import io.numaspread.kernel.InterfaceName;
import io.numaspread.testing.MachineShape;
import io.numaspread.testing.NicFixture;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code irqs}, {@code apply} and {@code restore} on fake kernel trees: a four-queue i40e NIC on the mana machine. */
class IrqCommandsTest extends StandInCliTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void irqsShowsEachVectorBesideThePlan() throws Exception {
        CliRun text = CliRun.of(args("irqs", "--nic", "eth0"));
        assertEquals(0, text.exitCode(), text.err());
        assertTrue(text.out().contains("eth0: driver i40e, PCI 0000:3b:00.0, numa_node 0"), text.out());
        assertTrue(text.out().contains("4 queues, 4 queue vectors, 1 control or other vector"), text.out());
        assertTrue(
                text.out().matches("(?s).*50  i40e-eth0-TxRx-0\\s+0  0-7\\s+0\\s+0\\s+differs\\s+0:5000 1:5001.*"),
                text.out());

        assertTrue(
                text.out()
                        .contains("warning: IRQ 52 (i40e-eth0-TxRx-2) is delivered to CPU 0, outside its planned"
                                + " CPUs 1: an IRQ moves at its next interrupt"),
                text.out());
        assertTrue(
                text.out()
                        .contains("\nNAPI source: interrupts (the sysfs backend has no netlink to ask netdev for"
                                + " NAPI IDs; queues are known by their IRQs in /proc/interrupts only)\n"),
                text.out());

        CliRun json = CliRun.of(args("irqs", "--nic", "eth0", "--json"));
        assertEquals(0, json.exitCode(), json.err());
        JsonNode root = JSON.readTree(json.out());
        assertEquals(0, root.get("origin").asInt());
        assertEquals(4, root.get("queues").asInt());
        JsonNode misc = root.at("/irqs/0");
        assertEquals("control", misc.get("role").asText());
        assertTrue(misc.get("planned").isNull());
        JsonNode queue2 = root.at("/irqs/3");
        assertEquals(52, queue2.get("irq").asInt());
        assertEquals(2, queue2.get("queue").asInt());
        assertEquals("[0,1,2,3,4,5,6,7]", queue2.get("smp_affinity_list").toString());
        assertEquals("[0]", queue2.get("effective_affinity_list").toString());
        assertEquals("[1]", queue2.get("planned").toString(), "a NIC's IRQs get one CPU each by default");
        assertEquals(5201, queue2.at("/counts/1").asLong());
        assertEquals("differs", queue2.get("state").asText());
        assertEquals("interrupts", root.at("/napi/source").asText(), "a copied tree is read by the sysfs backend");
        assertTrue(root.at("/napi/detail").asText().startsWith("the sysfs backend has no netlink"));
        assertEquals(0, root.at("/napi/instances").size());
    }

    @Test
    void planForTheNicTakesItsNodeAndQueueCount() throws Exception {
        CliRun plan = CliRun.of(args("plan", "--nic", "eth0", "--json"));
        assertEquals(0, plan.exitCode(), plan.err());
        JsonNode root = JSON.readTree(plan.out());
        assertEquals("[0]", root.get("origin").toString());
        assertEquals(4, root.get("count").asInt());
        assertEquals("0000:3b:00.0", root.get("pci").asText());
        assertEquals("interrupts", root.at("/napi/source").asText());
        List<String> cpus = new ArrayList<>();
        root.get("assignments").forEach(a -> cpus.add(a.get("cpus").toString()));
        assertEquals(List.of("[0]", "[2]", "[1]", "[3]"), cpus, "the mana patch's first four slots, one CPU each");

        CliRun siblings = CliRun.of(args("plan", "--nic", "eth0", "--siblings", "--json"));
        assertEquals(0, siblings.exitCode(), siblings.err());
        List<String> groups = new ArrayList<>();
        JSON.readTree(siblings.out())
                .get("assignments")
                .forEach(a -> groups.add(a.get("cpus").toString()));
        assertEquals(List.of("[0,1]", "[2,3]", "[0,1]", "[2,3]"), groups, "the mana patch's first four queues");
        CliRun conflicting = CliRun.of(args("plan", "--nic", "eth0", "--siblings", "--per-cpu"));
        assertEquals(Failures.BAD_INPUT, conflicting.exitCode());
        assertTrue(conflicting.err().contains("--per-cpu and --siblings exclude each other"), conflicting.err());

        CliRun polled = CliRun.of(args("plan", "--nic", "eth0", "--poll-queues", "1", "--json"));
        assertEquals(0, polled.exitCode(), polled.err());
        JsonNode polledRoot = JSON.readTree(polled.out());
        assertEquals("[2,3]", polledRoot.at("/poll/reserved").toString());
        List<String> polledCpus = new ArrayList<>();
        polledRoot.get("assignments").forEach(a -> polledCpus.add(a.get("cpus").toString()));
        assertEquals(List.of("[0]", "[1]", "[4]", "[6]"), polledCpus, "the IRQs keep off the poll core 2-3");

        CliRun text = CliRun.of(args("plan", "--nic", "eth0", "--per-cpu"));
        assertTrue(text.out().startsWith("eth0: PCI 0000:3b:00.0, numa_node 0; 4 queues (interface-named"), text.out());
        assertTrue(text.out().contains("\nNAPI source: interrupts (the sysfs backend has no netlink"), text.out());

        CliRun both = CliRun.of("plan", "--nic", "eth0", "--count", "2", "--sysfs-root", sys.toString());
        assertEquals(Failures.BAD_INPUT, both.exitCode());
        assertTrue(both.err().contains("leave out --node and --count"), both.err());
        assertEquals(Failures.BAD_INPUT, CliRun.of("plan").exitCode());
    }

    @Test
    void unknownNamingIsSaidAndEveryVectorIsAQueue(@TempDir Path otherSys, @TempDir Path otherProc) {
        NicFixture.at(otherSys, otherProc, MachineShape.mana())
                .iface("ens3")
                .pci("0000:07:00.0")
                .driver("acme")
                .numaNode(1)
                .vector(90, "acme-rq-a")
                .vector(91, "acme-rq-b")
                .vector(92, "acme-rq-c")
                .write();
        CliRun irqs = CliRun.of(
                "irqs", "--nic", "ens3", "--sysfs-root", otherSys.toString(), "--proc-root", otherProc.toString());
        assertEquals(0, irqs.exitCode(), irqs.err());
        assertTrue(
                irqs.out()
                        .contains("queue naming not recognised: every vector is treated as a queue, in vector order;"
                                + " 3 queues"),
                irqs.out());
        assertTrue(irqs.out().contains("near node 1"), irqs.out());
        assertTrue(irqs.out().matches("(?s).*92  acme-rq-c\\s+2\\s.*"), irqs.out());
    }

    @Test
    void applyThenRestoreReturnsEveryFileExactly() throws Exception {
        CliRun apply = CliRun.of(withState("apply", "--nic", "eth0"));
        assertEquals(0, apply.exitCode(), apply.err());
        assertEquals(
                List.of("0", "2", "1", "3"),
                List.of(affinity(50), affinity(51), affinity(52), affinity(53)),
                "one CPU each by default");
        assertEquals(
                "04",
                Files.readString(sys.resolve("class/net/eth0/queues/tx-1/xps_cpus"))
                        .strip(),
                "XPS aligned by default");
        assertEquals("0-7", affinity(49));
        assertTrue(apply.out().contains("IRQ 50 (i40e-eth0-TxRx-0)  0-7 -> 0  changed"), apply.out());
        assertTrue(apply.out().contains("Undo with: numaspread restore --state " + state), apply.out());
        assertTrue(Files.exists(state));

        CliRun matches = CliRun.of(args("irqs", "--nic", "eth0", "--json"));
        assertEquals("matches", JSON.readTree(matches.out()).at("/irqs/1/state").asText());

        CliRun restore = CliRun.of(withState("restore"));
        assertEquals(0, restore.exitCode(), restore.err());
        assertTrue(restore.out().contains("restored 8 values"), restore.out());
        assertEquals(before, NicFixture.snapshot(proc, sys));
        assertFalse(Files.exists(state));
    }

    @Test
    void oneCpuTakingTwoQueuesThePlanKeptApartIsWarned() throws Exception {
        CliRun apply = CliRun.of(withState("apply", "--nic", "eth0", "--siblings"));
        assertEquals(0, apply.exitCode(), apply.err());
        // What the kernel did in the guests with sibling-group masks: queues 0 and 2 (slots 0 and 1) both on CPU 1.
        Map<Integer, String> delivered = Map.of(50, "1", 51, "3", 52, "1", 53, "2");
        for (Map.Entry<Integer, String> entry : delivered.entrySet()) {
            Files.writeString(
                    proc.resolve("irq/" + entry.getKey() + "/effective_affinity_list"), entry.getValue() + "\n");
        }
        CliRun siblings = CliRun.of(args("irqs", "--nic", "eth0", "--siblings"));
        assertEquals(0, siblings.exitCode(), siblings.err());
        assertTrue(
                siblings.out()
                        .contains("warning: CPU 1 takes the interrupts of queues 0, 2, which the plan gave"
                                + " CPUs 0, 1 of their own"),
                siblings.out());
        assertEquals(
                1,
                siblings.out()
                        .lines()
                        .filter(line -> line.startsWith("warning: "))
                        .count(),
                siblings.out());
        JsonNode json = JSON.readTree(
                CliRun.of(args("irqs", "--nic", "eth0", "--siblings", "--json")).out());
        assertEquals(1, json.get("warnings").size(), json.toString());
    }

    @Test
    void noXpsLeavesTransmitQueuesAlone() throws Exception {
        String xps = Files.readString(sys.resolve("class/net/eth0/queues/tx-1/xps_cpus"));
        CliRun apply = CliRun.of(withState("apply", "--nic", "eth0", "--no-xps"));
        assertEquals(0, apply.exitCode(), apply.err());
        assertEquals("2", affinity(51));
        assertEquals(xps, Files.readString(sys.resolve("class/net/eth0/queues/tx-1/xps_cpus")));
        assertFalse(apply.out().contains("xps_cpus"), apply.out());
        CliRun restore = CliRun.of(withState("restore"));
        assertTrue(restore.out().contains("restored 4 values"), restore.out());
        assertEquals(before, NicFixture.snapshot(proc, sys));
    }

    @Test
    void dryRunChangesNothingAndSaysHowToApply() {
        CliRun dry = CliRun.of(withState("apply", "--nic", "eth0", "--dry-run", "--per-cpu"));
        assertEquals(0, dry.exitCode(), dry.err());
        assertTrue(dry.out().contains("IRQ 51 (i40e-eth0-TxRx-1)  0-7 -> 2  would change"), dry.out());
        assertTrue(
                dry.out().contains("dry run: nothing was changed. To apply: numaspread apply --nic eth0"), dry.out());
        assertEquals(before, NicFixture.snapshot(proc, sys));
        assertFalse(Files.exists(state));
    }

    @Test
    void aRunningIrqbalanceIsRefusedUnlessForced() throws Exception {
        NicFixture.process(proc, 700, "irqbalance", "/usr/sbin/irqbalance", "--foreground");
        before = NicFixture.snapshot(proc, sys);
        CliRun refused = CliRun.of(withState("apply", "--nic", "eth0"));
        assertEquals(Failures.REFUSED, refused.exitCode());
        assertEquals(
                "numaspread: irqbalance is running (pid 700) and would move IRQs [50, 51, 52, 53] again: stop it"
                        + " (systemctl stop irqbalance), or keep it off these IRQs (IRQBALANCE_ARGS=\"--banirq=50"
                        + " --banirq=51 --banirq=52 --banirq=53\" in /etc/default/irqbalance, and"
                        + " IRQBALANCE_BANNED_CPULIST for the planned CPUs to keep other IRQs off them), or pass --force\n",
                refused.err());
        assertEquals(before, NicFixture.snapshot(proc, sys));

        CliRun forced = CliRun.of(withState("apply", "--nic", "eth0", "--force", "--siblings"));
        assertEquals(0, forced.exitCode(), forced.err());
        assertEquals("2-3", affinity(51));
    }

    @Test
    void badInterfacesAndFlagsExitTwoNamingTheCulprit() {
        for (String[] bad : List.of(
                new String[] {"--nic", "../eth0"},
                new String[] {"--nic", "eth9"},
                new String[] {"--nic", "eth0", "--cpus", "0-"},
                new String[] {"--nic", "eth0", "--cpus", "64"})) {
            CliRun result = CliRun.of(withState("apply", bad));
            assertEquals(Failures.BAD_INPUT, result.exitCode(), String.join(" ", bad) + ": " + result.err());
            assertTrue(
                    result.err().startsWith("numaspread: ")
                            && result.err().lines().count() == 1,
                    result.err());
            assertFalse(result.err().contains("Exception"), result.err());
        }
        assertTrue(CliRun.of(withState("apply", "--nic", "eth9")).err().contains("no such interface eth9"));
        assertTrue(CliRun.of(withState("apply", "--nic", "eth0", "--cpus", "64"))
                .err()
                .contains("no candidate CPUs"));
        CliRun restore = CliRun.of(withState("restore"));
        assertEquals(Failures.BAD_INPUT, restore.exitCode());
        assertTrue(restore.err().contains("no state file " + state), restore.err());
        assertEquals(Failures.BAD_INPUT, CliRun.of("restore").exitCode());
        CliRun halfFake = CliRun.of("apply", "--nic", "eth0", "--sysfs-root", sys.toString());
        assertEquals(Failures.BAD_INPUT, halfFake.exitCode());
        assertTrue(halfFake.err().contains("both --proc-root and --sysfs-root or neither"), halfFake.err());
    }

    /** Core states the problem; the command line names its own way out, the --state option. */
    @Test
    void anotherInterfacesStateFileIsRefusedNamingTheOptionThatChoosesAnother() {
        StateFile.write(state, new StateFile.State(new InterfaceName("eth1"), List.of()));
        before = NicFixture.snapshot(proc, sys);
        CliRun apply = CliRun.of(withState("apply", "--nic", "eth0"));
        assertEquals(Failures.BAD_INPUT, apply.exitCode(), apply.err());
        assertEquals(
                "numaspread: state file " + state + " is for eth1, not eth0; nothing was changed (choose another"
                        + " with --state FILE)\n",
                apply.err());
        assertEquals(before, NicFixture.snapshot(proc, sys));
    }

    /** The refusal names the command to run first, with the stand-in roots, so that it restores the copy. */
    @Test
    void aStaleStateFileIsRefusedWithTheRestoreToRunFirst() throws Exception {
        StateFile.write(
                state,
                new StateFile.State(
                        new InterfaceName("eth0"),
                        List.of(new StateFile.Saved(Target.irq(50, "virtio7-input.0"), "3"))));
        CliRun apply = CliRun.of(withState("apply", "--nic", "eth0"));
        assertEquals(Failures.BAD_INPUT, apply.exitCode(), apply.err());
        assertTrue(
                apply.err()
                        .contains("the file is stale, from before a reboot or driver reload renumbered the IRQs:"
                                + " run numaspread restore --state " + state + " --sysfs-root " + sys + " --proc-root "
                                + proc
                                + " first (it puts back what still exists"),
                apply.err());
        assertEquals("0-7", affinity(50), "nothing was changed");
    }

    @Test
    void helpDocumentsTheExitCodes() {
        CliRun help = CliRun.of("apply", "--help");
        assertEquals(0, help.exitCode());
        for (String code :
                List.of("0   applied", "2   bad input", "3   refused for safety", "4   a write failed part way")) {
            assertTrue(help.out().contains(code), help.out());
        }
        assertTrue(CliRun.of("--help").out().contains("4   partial failure"));
    }

    @Test
    void aWriteThatFailsMidwayExitsFourWithEverythingBack() throws Exception {
        CliRun failed = ForkedCli.run(
                FaultyApply.class,
                List.of(),
                List.of(),
                ForkedCli.classPath(),
                Map.of(),
                FaultyApply.args("einval:3", withState("apply", "--nic", "eth0", "--siblings")));
        assertEquals(Failures.ROLLED_BACK, failed.exitCode(), failed.err());
        assertTrue(failed.err().startsWith("numaspread: IRQ 52 (i40e-eth0-TxRx-2): writing \"0-1\" to "), failed.err());
        assertTrue(failed.err().contains("EINVAL (Invalid argument); rolled back: 2 changes put back"), failed.err());
        assertEquals(before, NicFixture.snapshot(proc, sys));
        assertFalse(Files.exists(state));
    }

    @Test
    void aKillBetweenWritesIsUndoneByRestore() throws Exception {
        Process apply = ForkedCli.start(
                FaultyApply.class,
                List.of(),
                List.of(),
                ForkedCli.classPath(),
                Map.of(),
                FaultyApply.args("halt:3", withState("apply", "--nic", "eth0", "--siblings", "--xps")));
        try (BufferedReader err =
                new BufferedReader(new InputStreamReader(apply.getErrorStream(), StandardCharsets.UTF_8))) {
            String line = err.readLine();
            assertEquals("numaspread: test hook: halted after write 3", line);
            CliRun concurrent = CliRun.of(withState("apply", "--nic", "eth0", "--per-cpu"));
            assertEquals(Failures.REFUSED, concurrent.exitCode(), concurrent.err());
            assertTrue(
                    concurrent
                            .err()
                            .contains("another numaspread apply, restore or watch of " + state + " is running (pid "
                                    + apply.pid() + " holds "),
                    concurrent.err());
            apply.destroyForcibly().waitFor();
        }
        assertEquals(
                List.of("0-1", "2-3", "0-1", "0-7"),
                List.of(affinity(50), affinity(51), affinity(52), affinity(53)),
                "killed after three writes");
        assertTrue(Files.exists(state));

        CliRun restore = CliRun.of(withState("restore", "--nic", "eth0"));
        assertEquals(0, restore.exitCode(), restore.err());
        assertEquals(before, NicFixture.snapshot(proc, sys));
        assertFalse(Files.exists(state));
    }
}
