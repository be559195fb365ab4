// SPDX-License-Identifier: Apache-2.0
package io.numaspread.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.numaspread.testing.MachineShape;
import io.numaspread.testing.SysfsFixture;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code numaspread plan} against sysfs fixture trees. */
class PlanCommandTest {
    @TempDir
    Path root;

    private CliRun run(MachineShape shape, String... args) {
        SysfsFixture.write(shape, root);
        List<String> all = new ArrayList<>(List.of("plan", "--sysfs-root", root.toString()));
        all.addAll(List.of(args));
        return CliRun.of(all.toArray(String[]::new));
    }

    @Test
    void jsonForTheManaExample() throws Exception {
        CliRun run = run(MachineShape.mana(), "--node", "0", "--count", "8", "--json");
        assertEquals(0, run.exitCode(), run.err());
        JsonNode plan = new ObjectMapper().readTree(run.out());
        assertEquals("[0]", plan.get("origin").toString());
        assertEquals(8, plan.get("count").asInt());
        assertEquals("siblings", plan.get("mode").asText());
        JsonNode first = plan.get("assignments").get(0);
        assertEquals("[0,1]", first.get("cpus").toString());
        assertEquals(0, first.get("cpu").asInt());
        assertEquals(0, first.get("node").asInt());
        assertEquals(10, first.get("distance").asInt());
        List<String> cpus = new ArrayList<>();
        plan.get("assignments").forEach(a -> cpus.add(a.get("cpus").toString()));
        assertEquals(List.of("[0,1]", "[2,3]", "[0,1]", "[2,3]", "[4,5]", "[6,7]", "[4,5]", "[6,7]"), cpus);
        assertEquals(21, plan.get("assignments").get(4).get("distance").asInt());
        assertEquals("held", plan.get("priorities").get(0).get("status").asText());
        assertEquals("not-possible", plan.get("priorities").get(2).get("status").asText());
    }

    @Test
    void perCpuWithoutOriginHasNullDistances() throws Exception {
        CliRun run = run(MachineShape.mana(), "--count", "4", "--per-cpu", "--json");
        assertEquals(0, run.exitCode(), run.err());
        JsonNode plan = new ObjectMapper().readTree(run.out());
        assertEquals("cpu", plan.get("mode").asText());
        assertEquals("[]", plan.get("origin").toString());
        assertTrue(plan.get("assignments").get(0).get("distance").isNull());
        assertEquals("[0]", plan.get("assignments").get(0).get("cpus").toString());
    }

    @Test
    void humanViewIsATableWithOneLinePerPriority() {
        CliRun run = run(MachineShape.kunpeng920(), "--node", "2", "--count", "100", "--per-cpu", "--exclude", "0-23");
        assertEquals(0, run.exitCode(), run.err());
        String[] lines = run.out().split("\n");
        assertEquals("candidates 24-95   policy kernel   mode cpu", lines[0]);
        assertTrue(lines[1].startsWith("queue  cpus"), lines[1]);
        assertEquals("    0  48                  48     2        10      0     0", lines[2]);
        assertEquals("   24  72                  72     3        16      1     0", lines[26]);
        assertTrue(
                run.out().contains("1 one queue per CPU: not-possible (100 queues for 72 candidate CPUs"), run.out());
        assertTrue(run.out().contains("2 NUMA locality: held"), run.out());
        assertTrue(run.out().contains("3 sibling dislocality: held"), run.out());
    }

    @Test
    void severalNodesShareTheCpus() throws Exception {
        CliRun run =
                run(MachineShape.mana(), "--node", "0,1", "--count", "2", "--per-cpu", "--policy", "cores", "--json");
        assertEquals(0, run.exitCode(), run.err());
        JsonNode plan = new ObjectMapper().readTree(run.out());
        assertEquals("[0,1]", plan.get("origin").toString());
        assertEquals(4, plan.get("assignments").size());
        assertEquals(1, plan.get("assignments").get(2).get("origin").asInt());
        assertEquals(4, plan.get("assignments").get(2).get("cpu").asInt());
    }

    @Test
    void badInputIsOneLineAndExitTwo() {
        assertBadInput(
                run(MachineShape.mana(), "--node", "5", "--count", "2"),
                "numaspread: node 5 does not exist; the nodes are [0, 1]");
        assertBadInput(
                run(MachineShape.mana(), "--node", "0", "--count", "0"),
                "numaspread: --count must be at least 1, not 0");
        assertBadInput(
                run(MachineShape.mana(), "--node", "0", "--count", "-3"),
                "numaspread: --count must be at least 1, not -3");
        assertBadInput(
                run(MachineShape.mana(), "--node", "0", "--count", "2", "--cpus", "5-3"),
                "numaspread: --cpus: malformed cpulist \"5-3\": range \"5-3\" ends before it starts");
        assertBadInput(
                run(MachineShape.mana(), "--node", "0", "--count", "2", "--exclude", "x"),
                "numaspread: --exclude: malformed cpulist \"x\": \"x\" is not a CPU number");
        assertBadInput(
                run(MachineShape.mana(), "--node", "0", "--count", "2", "--policy", "fast"),
                "numaspread: --policy: unknown policy \"fast\"; the policies are kernel, cores, local");
        assertBadInput(
                run(MachineShape.mana(), "--node", "0", "--count", "2", "--exclude", "0-7"),
                "numaspread: no candidate CPUs: the allowed set 0-7 minus the excluded CPUs 0-7 leaves none of the"
                        + " online CPUs 0-7");
        assertEquals(2, run(MachineShape.mana(), "--node", "0").exitCode(), "--count is required");
    }

    @Test
    void pollQueuesShowTheirCoresBesideTheIrqAndLoopCpus() throws Exception {
        CliRun text = run(MachineShape.mana(), "--node", "0", "--count", "4", "--poll-queues", "1");
        assertEquals(0, text.exitCode(), text.err());
        String[] lines = text.out().split("\n");
        assertEquals(
                "busy poll: 1 queue, one spinning core each, siblings kept free; IRQs and event loops avoid CPUs 2-3",
                lines[0]);
        assertEquals("poll  cpu  node  distance  level  siblings", lines[1]);
        assertEquals("   0    2     0        10      0  3 (idle)", lines[2]);
        assertEquals("event loops (4): CPUs 0,1,4,6", lines[3]);
        assertEquals("candidates 0-1,4-7   policy kernel   mode siblings", lines[5]);

        CliRun json = run(MachineShape.mana(), "--node", "0", "--count", "4", "--poll-queues", "3", "--json");
        assertEquals(0, json.exitCode(), json.err());
        JsonNode plan = new ObjectMapper().readTree(json.out());
        JsonNode poll = plan.get("poll");
        assertEquals(3, poll.get("queues").asInt());
        assertEquals("idle", poll.get("sibling").asText());
        assertEquals("[0,2,6]", poll.get("cpus").toString());
        assertEquals("[0,1,2,3,6,7]", poll.get("reserved").toString());
        assertEquals(6, poll.at("/cores/2/cpu").asInt());
        assertEquals(1, poll.at("/cores/2/node").asInt());
        assertEquals(21, poll.at("/cores/2/distance").asInt());
        assertEquals("[7]", poll.at("/cores/2/siblings").toString());
        assertEquals("[4,5,4,5]", poll.get("loop_cpus").toString());
        assertEquals("[4,5]", plan.get("candidates").toString());
        plan.get("assignments").forEach(a -> assertEquals("[4,5]", a.get("cpus").toString()));

        CliRun shared = run(
                MachineShape.mana(),
                "--node",
                "0",
                "--count",
                "2",
                "--poll-queues",
                "2",
                "--poll-sibling",
                "shared",
                "--json");
        assertEquals(0, shared.exitCode(), shared.err());
        JsonNode sharedPlan = new ObjectMapper().readTree(shared.out());
        assertEquals("[0,2]", sharedPlan.at("/poll/reserved").toString());
        assertEquals("[1]", sharedPlan.at("/assignments/0/cpus").toString());
        assertEquals("[3]", sharedPlan.at("/assignments/1/cpus").toString());
    }

    @Test
    void pollQueuesThatLeaveNoCpuForIrqsAreRefusedInOneLine() {
        assertBadInput(
                run(MachineShape.singleNodeVm(), "--node", "0", "--count", "2", "--poll-queues", "2"),
                "numaspread: node 0 and the nodes beyond it cannot give 2 busy-poll cores and still leave a CPU for"
                        + " IRQs: the CPUs planned over, 0-3, hold 2 cores (2 on the nearest level) with their"
                        + " siblings kept free, so at most 1 poll core fit");
        assertBadInput(
                run(MachineShape.mana(), "--node", "0", "--count", "2", "--poll-queues", "1", "--poll-sibling", "off"),
                "numaspread: --poll-queues: unknown poll sibling use 'off': idle or shared");
        assertBadInput(
                run(MachineShape.mana(), "--node", "0,1", "--count", "2", "--poll-queues", "1"),
                "numaspread: --poll-queues plans for one NIC: give one --node, not 2");
        assertBadInput(
                run(MachineShape.mana(), "--node", "0", "--count", "2", "--poll-queues", "0"),
                "numaspread: --poll-queues must be at least 1, not 0");
        assertBadInput(
                run(MachineShape.mana(), "--node", "0", "--count", "2", "--poll-sibling", "shared"),
                "numaspread: --poll-sibling goes with --poll-queues N");
    }

    private static void assertBadInput(CliRun run, String message) {
        assertEquals(2, run.exitCode(), run.out());
        assertEquals(message, run.err().strip());
        assertFalse(run.err().contains("\tat "), run.err());
    }
}
