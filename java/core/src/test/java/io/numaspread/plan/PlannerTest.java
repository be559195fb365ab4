// SPDX-License-Identifier: Apache-2.0
package io.numaspread.plan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.numaspread.CpuSet;
import io.numaspread.plan.PriorityCheck.Status;
import io.numaspread.testing.MachineShape;
import io.numaspread.testing.SysfsFixture;
import io.numaspread.testing.Topologies;
import io.numaspread.topology.Topology;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Multi-origin sharing, policies, allowed sets, the priority report and errors, on named machines. */
class PlannerTest {
    private static final Topology MANA = Topologies.of(MachineShape.mana());
    private static final Topology KUNPENG = Topologies.of(MachineShape.kunpeng920());

    @Test
    void inMemoryTopologiesAreWhatDiscoveryReads(@TempDir Path root) {
        for (MachineShape shape : List.of(
                MachineShape.mana(),
                MachineShape.kunpeng920(),
                MachineShape.intelNumbering(),
                MachineShape.mana().withOffline(CpuSet.of(5)),
                MachineShape.singleNodeVm().withCpulessNode(1, new int[] {20, 10}))) {
            assertTrue(
                    SysfsFixture.topology(shape, root.resolve(shape.name())).sameMachineAs(Topologies.of(shape)),
                    shape.name());
        }
    }

    @Test
    void skipFirstLeavesTheFirstSlotToTheControlIrq() {
        SpreadPlan plan =
                Planner.plan(MANA, PlanRequest.irqs(0, 8).withMode(Mode.CPU).withSkipFirst(true));
        assertEquals(List.of(2, 1, 3, 4, 6, 5, 7, 0), slots(plan));
        assertEquals(1, plan.get(7).pass());
    }

    @Test
    void twoOriginsOnTwoNodesEachKeepTheirNode() {
        SpreadPlan plan = Planner.plan(MANA, PlanRequest.irqs(List.of(0, 1), 4).withMode(Mode.CPU));
        assertEquals(List.of(0, 2, 1, 3), slots(plan.forOrigin(0)));
        assertEquals(List.of(4, 6, 5, 7), slots(plan.forOrigin(1)));
        assertEquals(
                List.of(0, 0, 0, 0, 1, 1, 1, 1),
                plan.assignments().stream().map(a -> a.origin().getAsInt()).toList());
        assertTrue(plan.assignments().stream().allMatch(a -> a.distance().getAsInt() == 10));
    }

    @Test
    void twoOriginsOnOneNodeShareItWithoutSharingACpuOrACoreEarly() {
        SpreadPlan plan = Planner.plan(MANA, PlanRequest.irqs(List.of(0, 0), 2).withMode(Mode.CPU));
        // Turns alternate: A takes 0, B the empty core (2), A its own empty core (3), B what is left (1).
        assertEquals(List.of(0, 3), slots(plan.forOrigin(0)));
        assertEquals(List.of(2, 1), slots(plan.forOrigin(1)));
        SpreadPlan spill = Planner.plan(MANA, PlanRequest.irqs(List.of(0, 0), 4).withMode(Mode.CPU));
        assertEquals(
                8, spill.assignments().stream().map(Assignment::cpu).distinct().count());
    }

    @Test
    void coresPolicyUsesEveryCoreBeforeAnySibling() {
        SpreadPlan plan =
                Planner.plan(MANA, PlanRequest.irqs(0, 8).withMode(Mode.CPU).withPolicy(Policy.CORES));
        assertEquals(List.of(0, 2, 4, 6, 1, 3, 5, 7), slots(plan));
        List<PriorityCheck> three =
                Priorities.check(MANA, Planner.plan(MANA, plan.request().withCount(3)));
        assertEquals(Status.WAIVED, three.get(1).status(), three.get(1).toString());
    }

    @Test
    void localPolicyDoublesUpOnTheOriginsNodeRatherThanCrossing() {
        SpreadPlan plan =
                Planner.plan(KUNPENG, PlanRequest.irqs(2, 48).withMode(Mode.CPU).withPolicy(Policy.LOCAL));
        assertEquals(IntStream.range(0, 48).map(i -> 48 + i % 24).boxed().toList(), slots(plan));
        List<PriorityCheck> checks = Priorities.check(KUNPENG, plan);
        assertEquals(Status.WAIVED, checks.get(0).status(), checks.get(0).toString());
    }

    @Test
    void threadsStayInsideTheProcessesAllowedCpus() {
        Topology container = MANA.withAllowed(CpuSet.range(2, 5));
        SpreadPlan plan = Planner.plan(container, PlanRequest.threads(0, 12));
        assertTrue(plan.assignments().stream().allMatch(a -> CpuSet.range(2, 5).containsAll(a.cpus())));
        assertEquals(
                List.of("2-3", "2-3", "4-5", "4-5"),
                plan.assignments().subList(0, 4).stream()
                        .map(a -> a.cpus().toString())
                        .toList());
    }

    @Test
    void irqsAvoidIsolatedAndNohzFullCpus() {
        Topology isolated = Topologies.of(MachineShape.mana().withIsolation(CpuSet.of(0), CpuSet.of(3)));
        SpreadPlan plan = Planner.plan(isolated, PlanRequest.irqs(0, 16).withMode(Mode.CPU));
        assertEquals(CpuSet.parse("1-2,4-7"), plan.candidates());
        assertTrue(plan.assignments().stream().noneMatch(a -> a.cpu() == 0 || a.cpu() == 3));
        SpreadPlan threads = Planner.plan(isolated, PlanRequest.threads(0, 8).withMode(Mode.CPU));
        assertEquals(CpuSet.range(0, 7), threads.candidates(), "threads may use what the process may use");
    }

    @Test
    void cpusReplaceAndExcludeRemove() {
        SpreadPlan plan = Planner.plan(
                MANA,
                PlanRequest.irqs(0, 3)
                        .withCpus(CpuSet.parse("1-6"))
                        .withExclude(CpuSet.of(2))
                        .withMode(Mode.CPU));
        assertEquals(CpuSet.parse("1,3-6"), plan.candidates());
        assertEquals(List.of(1, 3, 4), slots(plan));
    }

    @Test
    void theReportExplainsWhatCouldNotHold() {
        List<PriorityCheck> eight = Priorities.check(MANA, Planner.plan(MANA, PlanRequest.irqs(0, 8)));
        assertEquals(
                List.of(Status.HELD, Status.HELD, Status.NOT_POSSIBLE),
                eight.stream().map(PriorityCheck::status).toList());
        assertTrue(
                eight.get(2).detail().contains("siblings 0-1 share 2 queues"),
                eight.get(2).detail());
        List<PriorityCheck> twelve = Priorities.check(MANA, Planner.plan(MANA, PlanRequest.irqs(0, 12)));
        assertEquals(
                "1 one queue per CPU: not-possible (12 queues for 8 candidate CPUs: each CPU carries 1 or 2)",
                twelve.get(0).toString());
    }

    @Test
    void theReportNamesWhatAKernelPlacementBreaks() {
        List<PriorityCheck> before2020 =
                check(KUNPENG, 2, KernelPlacements.localSpreadBefore2020(KUNPENG, KUNPENG.online(), 2, 48));
        assertEquals(
                "2 NUMA locality: broken (queue 24 of node 2 is on CPU 0 (node 0, distance 32) while CPU 72 "
                        + "(node 3, distance 16) carries fewer queues)",
                before2020.get(1).toString());
        List<PriorityCheck> hops = check(MANA, 0, KernelPlacements.localSpreadByHops(MANA, MANA.online(), 0, 2));
        assertEquals(
                "3 sibling dislocality: broken (siblings 0-1 carry 2 queues while siblings 2-3 of the same "
                        + "level carry 0)",
                hops.get(2).toString());
    }

    @Test
    void theKernelPortsReproduceThePatchesExamples() {
        assertEquals(
                List.of("0-1", "2-3", "0-1", "2-3", "4-5", "6-7", "4-5", "6-7"),
                KernelPlacements.irqSetupMerged(MANA, MANA.online(), 0, 8).stream()
                        .map(CpuSet::toString)
                        .toList());
        assertEquals(
                List.of("0-1", "2-3", "0-1", "2-3", "0-1", "2-3", "0-1", "2-3"),
                KernelPlacements.irqSetupPosted(MANA, MANA.online(), 0, 8).stream()
                        .map(CpuSet::toString)
                        .toList(),
                "as posted, a hop runs weight rounds: all 8 IRQs stay on node 0");
        assertEquals(
                IntStream.rangeClosed(48, 95).mapToObj(Integer::toString).toList(),
                KernelPlacements.localSpreadByHops(KUNPENG, KUNPENG.online(), 2, 48).stream()
                        .map(CpuSet::toString)
                        .toList());
        assertEquals(
                IntStream.concat(IntStream.rangeClosed(48, 71), IntStream.rangeClosed(0, 23))
                        .mapToObj(Integer::toString)
                        .toList(),
                KernelPlacements.localSpreadBefore2020(KUNPENG, KUNPENG.online(), 2, 48).stream()
                        .map(CpuSet::toString)
                        .toList(),
                "the Kunpeng patch's 'before': IRQs 24-47 on CPUs 0-23");
    }

    private static List<PriorityCheck> check(Topology topology, int origin, List<CpuSet> irqs) {
        return Priorities.check(
                topology,
                topology.online(),
                irqs.stream()
                        .map(cpus -> new Priorities.Queue(java.util.OptionalInt.of(origin), cpus))
                        .toList(),
                Policy.KERNEL);
    }

    @Test
    void badRequestsNameTheCulprit() {
        assertEquals(
                "node 7 does not exist; the nodes are [0, 1]",
                assertThrows(
                                IllegalArgumentException.class,
                                () -> Planner.plan(MANA, PlanRequest.irqs(List.of(0, 7), 2)))
                        .getMessage());
        assertTrue(assertThrows(
                        IllegalArgumentException.class,
                        () -> Planner.plan(MANA, PlanRequest.irqs(0, 2).withCpus(CpuSet.of(9))))
                .getMessage()
                .startsWith("no candidate CPUs"));
        assertEquals(
                "the queue count must be at least 1, not 0",
                assertThrows(IllegalArgumentException.class, () -> PlanRequest.irqs(0, 0))
                        .getMessage());
        assertEquals(
                "origin node -2 is no node (-1 stands for none)",
                assertThrows(IllegalArgumentException.class, () -> PlanRequest.irqs(-2, 1))
                        .getMessage());
        assertThrows(IllegalArgumentException.class, () -> PlanRequest.irqs(List.of(0, 1), PlanRequest.MAX_QUEUES));
    }

    @Test
    void noOriginMeansOneLevelAndNoDistance() {
        SpreadPlan plan = Planner.plan(MANA, PlanRequest.irqs(List.of(-1), 4).withMode(Mode.CPU));
        assertEquals(List.of(0, 2, 4, 6), slots(plan));
        assertTrue(plan.assignments().stream()
                .allMatch(a -> a.distance().isEmpty() && a.origin().isEmpty()));
    }

    private static List<Integer> slots(SpreadPlan plan) {
        return slots(plan.assignments());
    }

    private static List<Integer> slots(List<Assignment> assignments) {
        return assignments.stream().map(Assignment::cpu).toList();
    }
}
