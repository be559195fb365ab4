// SPDX-License-Identifier: Apache-2.0
package io.numaspread.plan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.numaspread.CpuSet;
import io.numaspread.plan.LeasePlanner.Lessee;
import io.numaspread.testing.MachineShape;
import io.numaspread.testing.Topologies;
import io.numaspread.topology.Topology;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Leased queues planned onto their lessees' CPUs, the NIC's other queues as today's plan puts them. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class LeasePlannerTest {
    /** 2 nodes: node 0 = CPUs 0-3, node 1 = 4-7, sibling pairs 0-1, 2-3, ... */
    private static final Topology MANA = Topologies.of(MachineShape.mana());
    /** A NIC on node 0 with 6 queues, one CPU each. */
    private static final SpreadPlan TODAY =
            Planner.plan(MANA, PlanRequest.irqs(0, 6).withMode(Mode.CPU));

    private static List<CpuSet> cpus(List<Assignment> assignments) {
        return assignments.stream().map(Assignment::cpus).toList();
    }

    @Test
    void withNoLeasedQueueThePlanIsTodays() {
        LeasePlanner.Plan plan = LeasePlanner.plan(MANA, TODAY, Map.of());
        assertEquals(TODAY.assignments(), plan.assignments());
        assertEquals(Map.of(), plan.moved());
        assertEquals(Map.of(), plan.kept());
    }

    @Test
    void leasedQueuesSpreadOverTheirContainersCpusAndTheOthersStayWhereTheyWere() {
        Lessee pod = new Lessee("ifindex 8 in netns 0", CpuSet.parse("4-7"));
        LeasePlanner.Plan plan = LeasePlanner.plan(MANA, TODAY, Map.of(2, pod, 5, pod));
        assertEquals(
                List.of(CpuSet.of(0), CpuSet.of(2), CpuSet.of(1), CpuSet.of(3), CpuSet.of(4), CpuSet.of(6)),
                cpus(TODAY.assignments()),
                "today: node 0's CPUs one per sibling group and round, then node 1's");
        assertEquals(
                List.of(CpuSet.of(0), CpuSet.of(2), CpuSet.of(4), CpuSet.of(3), CpuSet.of(4), CpuSet.of(6)),
                cpus(plan.assignments()),
                "queues 2 and 5 one per sibling group of the pod's CPUs; 0, 1, 3 and 4 as today");
        assertEquals(2, plan.assignments().get(2).index(), "a moved queue keeps its index");
        assertEquals(Map.of(2, pod, 5, pod), plan.moved());
        assertEquals(Map.of(), plan.kept());
    }

    @Test
    void eachLesseeGetsItsOwnCpusAndOneWithoutProcessesOrUsableCpusIsKeptWithWhy() {
        Lessee first = new Lessee("ifindex 8 in netns 0", CpuSet.parse("2-3"));
        Lessee second = new Lessee("ifindex 9 in netns 1", CpuSet.of(7));
        Lessee idle = new Lessee("ifindex 10 in netns 2", CpuSet.EMPTY);
        Lessee excluded = new Lessee("ifindex 11 in netns 3", CpuSet.of(6));
        SpreadPlan today =
                Planner.plan(MANA, PlanRequest.irqs(0, 6).withMode(Mode.CPU).withExclude(CpuSet.of(6)));
        LeasePlanner.Plan plan =
                LeasePlanner.plan(MANA, today, Map.of(0, first, 1, second, 3, first, 4, idle, 5, excluded));
        List<CpuSet> was = cpus(today.assignments());
        assertEquals(
                List.of(CpuSet.of(2), CpuSet.of(7), was.get(2), CpuSet.of(3), was.get(4), was.get(5)),
                cpus(plan.assignments()));
        assertEquals(Map.of(0, first, 1, second, 3, first), plan.moved());
        assertEquals(
                Map.of(
                        4, "no process found for ifindex 10 in netns 2",
                        5, "none of ifindex 11 in netns 3's CPUs 6 is online and not excluded (6)"),
                plan.kept());
    }

    @Test
    void theHostsSkippedFirstSlotIsNotSkippedAmongALesseesCpus() {
        SpreadPlan mana =
                Planner.plan(MANA, PlanRequest.irqs(0, 3).withMode(Mode.CPU).withSkipFirst(true));
        LeasePlanner.Plan plan = LeasePlanner.plan(MANA, mana, Map.of(1, new Lessee("ifindex 8", CpuSet.parse("0-1"))));
        assertEquals(CpuSet.of(0), plan.assignments().get(1).cpus(), "CPU 0 is the pod's, not the control IRQ's");
        assertEquals(mana.get(0), plan.assignments().get(0));
    }

    @Test
    void aLesseeOnlyOnCpusThatAreNotOnlineIsKept() {
        LeasePlanner.Plan plan =
                LeasePlanner.plan(MANA, TODAY, Map.of(3, new Lessee("ifindex 8", CpuSet.parse("12-13"))));
        assertEquals(TODAY.assignments(), plan.assignments());
        assertEquals(Map.of(3, "none of ifindex 8's CPUs 12-13 is online"), plan.kept());
    }

    @Test
    void aPlanIndexOutsideTodaysPlanIsRefused() {
        IllegalArgumentException e = assertThrows(
                IllegalArgumentException.class,
                () -> LeasePlanner.plan(MANA, TODAY, Map.of(6, new Lessee("ifindex 8", CpuSet.of(4)))));
        assertEquals("plan index 6 of a leased queue is not in the plan of 6", e.getMessage());
    }
}
