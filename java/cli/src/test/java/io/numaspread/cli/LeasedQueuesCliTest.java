// SPDX-License-Identifier: Apache-2.0
package io.numaspread.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.numaspread.nic.QueueLeases;
import io.numaspread.testing.RecordedLeases;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import picocli.CommandLine;

/**
 * {@code plan}, {@code irqs}, {@code apply} and {@code restore} of the stand-in i40e eth0 on a leasing kernel
 * ({@link RecordedLeases}: Debian 7.3's answers with rx 1 leased into a pod, here on CPUs 5-6): every command plans
 * the leased queue on the pod's CPUs, and restore puts it back with the rest.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class LeasedQueuesCliTest extends StandInCliTest {
    private static final List<Integer> QUEUE_IRQS = List.of(50, 51, 52, 53);

    private List<String> affinitiesBefore;

    @BeforeEach
    void pod() throws IOException {
        RecordedLeases.pod(paths, "5-6");
        affinitiesBefore = affinities();
    }

    /** The CLI, each command's machine asking the recorded kernel about leases. */
    private static CliRun run(String... args) {
        QueueLeases.Source recorded = QueueLeases.asking(new RecordedLeases());
        CommandLine.IFactory factory = new CommandLine.IFactory() {
            @Override
            public <K> K create(Class<K> type) throws Exception {
                K command = CommandLine.defaultFactory().create(type);
                if (command instanceof ApplyCommand apply) {
                    apply.nicOptions.machine.leaseSource = recorded;
                } else if (command instanceof IrqsCommand irqs) {
                    irqs.nicOptions.machine.leaseSource = recorded;
                } else if (command instanceof PlanCommand plan) {
                    plan.planning.machine.leaseSource = recorded;
                }
                return command;
            }
        };
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int exitCode = Main.run(args, new PrintWriter(out, true), new PrintWriter(err, true), factory);
        return new CliRun(exitCode, out.toString(), err.toString());
    }

    @Test
    void applyPutsTheLeasedQueueOnThePodsCpusSaysSoAndRestorePutsItBack() throws IOException {
        CliRun apply = run(withState("apply", "--nic", "eth0"));
        assertEquals(0, apply.exitCode(), apply.err());

        List<String> after = affinities();
        assertTrue(Set.of("5", "6").contains(after.get(1)), "rx 1 on the pod's CPUs: " + after);
        List<String> others = List.of(after.get(0), after.get(2), after.get(3));
        assertEquals(3, new TreeSet<>(others).size(), "a CPU each: " + after);
        assertTrue(others.stream().allMatch(cpu -> Integer.parseInt(cpu) < 4), "on node 0: " + after);
        assertTrue(
                apply.out()
                        .contains("  rx 1 -> ifindex 4 (queue 1) in netns 5: planned on " + after.get(1)
                                + ", among the lessee's CPUs 5-6\n"),
                apply.out());

        CliRun restore = CliRun.of(withState("restore", "--nic", "eth0"));
        assertEquals(0, restore.exitCode(), restore.err());
        assertEquals(affinitiesBefore, affinities());
    }

    @Test
    void planAndIrqsShowTheLeasedQueueWhereApplyPutsIt() throws IOException {
        CliRun apply = run(withState("apply", "--nic", "eth0"));
        assertEquals(0, apply.exitCode(), apply.err());
        String leasedCpu = affinities().get(1);

        CliRun irqs = run(args("irqs", "--nic", "eth0"));
        assertEquals(0, irqs.exitCode(), irqs.err());
        assertTrue(
                irqs.out()
                        .contains("leased rx queues (Linux 7.0+: each on its lessee's CPUs where its processes are"
                                + " found):\n  rx 1 -> ifindex 4 (queue 1) in netns 5: planned on " + leasedCpu
                                + ", among the lessee's CPUs 5-6\n"),
                irqs.out());

        CliRun json = run(args("irqs", "--nic", "eth0", "--json"));
        assertEquals(0, json.exitCode(), json.err());
        assertTrue(json.out().contains("\"lessee\" : \"ifindex 4 (queue 1) in netns 5\""), json.out());

        CliRun plan = run(args("plan", "--nic", "eth0", "--json"));
        assertEquals(0, plan.exitCode(), plan.err());
        JsonNode root = new ObjectMapper().readTree(plan.out());
        assertEquals(
                leasedCpu, root.get("assignments").get(1).get("cpus").get(0).asText(), plan.out());
        for (JsonNode priority : root.get("priorities")) {
            // Judged with the leased queue, NUMA locality was broken: queue 1 on node 1 while a CPU of node 0 is free.
            assertNotEquals("broken", priority.get("status").asText(), "the host's queues judged alone: " + plan.out());
        }
        assertEquals(1, root.get("leases").size(), plan.out());
    }

    @Test
    void aPodWithoutCpusLeavesItsQueueWhereTheNicsPlanPutsItSayingWhy() throws IOException {
        RecordedLeases.pod(paths, ""); // the pod's cgroup has no CPU: no process of it can run

        CliRun apply = run(withState("apply", "--nic", "eth0"));
        assertEquals(0, apply.exitCode(), apply.err());
        List<String> after = affinities();
        assertTrue(Integer.parseInt(after.get(1)) < 4, "rx 1 on node 0 as without a lease: " + after);
        assertEquals(4, new TreeSet<>(after).size(), after.toString());
        assertTrue(
                apply.out()
                        .contains("  rx 1 -> ifindex 4 (queue 1) in netns 5: planned on " + after.get(1)
                                + " as without a lease: "),
                apply.out());
    }

    private List<String> affinities() throws IOException {
        List<String> cpus = new ArrayList<>();
        for (int irq : QUEUE_IRQS) {
            cpus.add(affinity(irq));
        }
        return cpus;
    }
}
