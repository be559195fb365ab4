// SPDX-License-Identifier: Apache-2.0
package io.numaspread.plan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.numaspread.CpuSet;
import io.numaspread.NumaspreadException;
import io.numaspread.testing.MachineShape;
import io.numaspread.testing.Topologies;
import io.numaspread.topology.Topology;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Busy-poll cores: one core per polled queue, the NIC's node first, their siblings kept free by default, and the
 * IRQ and event loop plans kept off them.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class PollPlannerTest {
    private static PollPlan poll(Topology topology, int node, int queues, PollSibling sibling) {
        return Planner.poll(topology, new PollRequest(node, queues, sibling), PlanRequest.irqs(node, 1));
    }

    private static List<Integer> cpus(PollPlan plan) {
        return plan.cores().stream().map(PollCore::cpu).toList();
    }

    /** Every CPU the IRQ plan and the event loop plan for {@code count} queues near {@code node} may use. */
    private static CpuSet irqAndLoopCpus(Topology topology, PollPlan poll, int node, int count) {
        CpuSet.Builder used = CpuSet.builder();
        for (PlanRequest request : List.of(PlanRequest.irqs(node, count), PlanRequest.threads(node, count))) {
            Planner.plan(topology, poll.avoidedBy(request)).assignments().forEach(a -> used.addAll(a.cpus()));
        }
        return used.build();
    }

    @Test
    void manaTakesTheNodesHighestCoreAndKeepsItsSiblingFree() {
        Topology mana = Topologies.of(MachineShape.mana());
        PollPlan plan = poll(mana, 0, 1, PollSibling.IDLE);
        assertEquals(List.of(2), cpus(plan));
        assertEquals(CpuSet.of(3), plan.cores().get(0).siblings());
        assertEquals(CpuSet.of(2, 3), plan.reserved());
        assertEquals(0, plan.cores().get(0).node());
        assertEquals(10, plan.cores().get(0).distance().getAsInt());
        CpuSet used = irqAndLoopCpus(mana, plan, 0, 8);
        assertFalse(used.intersects(plan.reserved()), used.toString());
        // The IRQs keep the rest of node 0 first.
        assertEquals(
                CpuSet.of(0, 1),
                Planner.plan(mana, plan.avoidedBy(PlanRequest.irqs(0, 1)))
                        .get(0)
                        .cpus());
    }

    @Test
    void manaSpillsToTheNextNodeByDistanceOnceTheNicsNodeIsFull() {
        Topology mana = Topologies.of(MachineShape.mana());
        PollPlan plan = poll(mana, 0, 3, PollSibling.IDLE);
        assertEquals(List.of(2, 0, 6), cpus(plan));
        assertEquals(List.of(0, 0, 1), plan.cores().stream().map(PollCore::node).toList());
        assertEquals(
                List.of(0, 0, 1), plan.cores().stream().map(PollCore::level).toList());
        assertEquals(21, plan.cores().get(2).distance().getAsInt());
        assertEquals(CpuSet.parse("0-3,6-7"), plan.reserved());
        assertEquals(CpuSet.of(4, 5), irqAndLoopCpus(mana, plan, 0, 4));
    }

    @Test
    void sharedSiblingsStayCandidatesForIrqsAndLoops() {
        Topology mana = Topologies.of(MachineShape.mana());
        PollPlan plan = poll(mana, 0, 2, PollSibling.SHARED);
        assertEquals(List.of(2, 0), cpus(plan));
        assertEquals(CpuSet.of(0, 2), plan.reserved());
        CpuSet used = irqAndLoopCpus(mana, plan, 0, 8);
        assertFalse(used.intersects(plan.reserved()), used.toString());
        assertTrue(used.containsAll(CpuSet.of(1, 3)), used.toString());
    }

    @Test
    void kunpengFillsNode2ThenItsNearestNodeOneCpuEach() {
        Topology kunpeng = Topologies.of(MachineShape.kunpeng920Sockets());
        PollPlan plan = poll(kunpeng, 2, 30, PollSibling.IDLE);
        List<Integer> expected = IntStream.concat(
                        IntStream.iterate(71, cpu -> cpu >= 48, cpu -> cpu - 1),
                        IntStream.iterate(95, cpu -> cpu >= 90, cpu -> cpu - 1))
                .boxed()
                .toList();
        assertEquals(expected, cpus(plan));
        assertTrue(plan.cores().stream().allMatch(core -> core.siblings().isEmpty()));
        assertEquals(plan.cpus(), plan.reserved());
        CpuSet used = irqAndLoopCpus(kunpeng, plan, 2, 96);
        assertFalse(used.intersects(plan.reserved()), used.toString());
        assertEquals(kunpeng.online().minus(plan.reserved()), used);
    }

    @Test
    void huge4096GivesEveryPolledQueueADistinctCoreOnTheNicsNode() {
        Topology huge = Topologies.of(MachineShape.huge4096());
        PollPlan plan = poll(huge, 5, 100, PollSibling.IDLE);
        assertEquals(100, plan.cpus().size());
        assertEquals(List.of(767, 766), cpus(plan).subList(0, 2));
        for (PollCore core : plan.cores()) {
            assertEquals(5, core.node(), "CPU " + core.cpu());
            assertEquals(CpuSet.of(core.cpu() + 2048), core.siblings(), "CPU " + core.cpu());
        }
        assertEquals(200, plan.reserved().size());
        CpuSet used = irqAndLoopCpus(huge, plan, 5, 4096);
        assertFalse(used.intersects(plan.reserved()));
        assertEquals(huge.online().minus(plan.reserved()), used);
    }

    @Test
    void refusesWhenNoCpuWouldBeLeftForIrqsAndNamesHowManyFit() {
        Topology vm = Topologies.of(MachineShape.singleNodeVm());
        NumaspreadException refusal = assertThrows(NumaspreadException.class, () -> poll(vm, 0, 2, PollSibling.IDLE));
        assertEquals(NumaspreadException.Kind.BAD_INPUT, refusal.kind());
        assertEquals(
                "node 0 and the nodes beyond it cannot give 2 busy-poll cores and still leave a CPU for IRQs:"
                        + " the CPUs planned over, 0-3, hold 2 cores (2 on the nearest level) with their siblings"
                        + " kept free, so at most 1 poll core fit",
                refusal.getMessage());
        // Shared siblings leave CPUs 1 and 3 to the IRQs; a third queue has no core of its own.
        assertEquals(List.of(2, 0), cpus(poll(vm, 0, 2, PollSibling.SHARED)));
        assertThrows(NumaspreadException.class, () -> poll(vm, 0, 3, PollSibling.SHARED));
        Topology mana = Topologies.of(MachineShape.mana());
        NumaspreadException full = assertThrows(NumaspreadException.class, () -> poll(mana, 0, 4, PollSibling.IDLE));
        assertTrue(full.getMessage().endsWith("so at most 3 poll cores fit"), full.getMessage());
    }

    @Test
    void pollCoresComeFromTheCpusTheIrqsArePlannedOver() {
        Topology mana = Topologies.of(MachineShape.mana());
        PollPlan plan =
                Planner.poll(mana, PollRequest.of(0, 1), PlanRequest.irqs(0, 1).withExclude(CpuSet.of(3)));
        // Core 2-3 has an excluded CPU but still one candidate; it stays the node's highest core.
        assertEquals(List.of(2), cpus(plan));
        PollPlan within =
                Planner.poll(mana, PollRequest.of(0, 1), PlanRequest.irqs(0, 1).withCpus(CpuSet.parse("0-1,4-7")));
        assertEquals(List.of(0), cpus(within));
        NumaspreadException none = assertThrows(
                NumaspreadException.class,
                () -> Planner.poll(
                        mana, PollRequest.of(0, 1), PlanRequest.irqs(0, 1).withCpus(CpuSet.EMPTY)));
        assertTrue(none.getMessage().contains("the CPUs planned over, none, hold 0 cores"), none.getMessage());
        assertThrows(IllegalArgumentException.class, () -> poll(mana, 7, 1, PollSibling.IDLE));
        assertThrows(IllegalArgumentException.class, () -> new PollRequest(0, 0, PollSibling.IDLE));
    }
}
