// SPDX-License-Identifier: Apache-2.0
package io.numaspread.lease;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.numaspread.CpuSet;
import io.numaspread.plan.Mode;
import io.numaspread.plan.PlanRequest;
import io.numaspread.plan.Planner;
import io.numaspread.testing.MachineShape;
import io.numaspread.testing.Topologies;
import io.numaspread.topology.Topology;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Planning around other processes' CPUs, on the mana machine: 2 nodes, CPUs 0-3 and 4-7, siblings 0-1, 2-3. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class LeasedPlannerTest {
    private static final Topology MANA = Topologies.of(MachineShape.mana());

    @Test
    void withNothingHeldThePlanIsThePlannersOwn() {
        PlanRequest request = PlanRequest.threads(0, 4);
        LeasedPlan leased = LeasedPlanner.plan(MANA, request, Map.of());
        assertEquals(Planner.plan(MANA, request), leased.plan());
        assertEquals(CpuSet.EMPTY, leased.shared());
    }

    /** Kubernetes' static CPU manager: the other pod's CPUs are outside this one's cpuset, so nothing changes. */
    @Test
    void cpusOutsideTheCpusetChangeNothing() {
        Topology container = MANA.withAllowed(CpuSet.range(0, 3));
        PlanRequest request = PlanRequest.threads(0, 4);
        LeasedPlan leased = LeasedPlanner.plan(container, request, Map.of(4, 1, 5, 1, 6, 2, 7, 1));
        assertEquals(Planner.plan(container, request), leased.plan());
        assertEquals(CpuSet.EMPTY, leased.shared());
    }

    @Test
    void heldCpusAreLeftWhileFreeOnesRemain() {
        PlanRequest request = PlanRequest.threads(0, 2);
        CpuSet today = LeasedPlanner.used(Planner.plan(MANA, request));
        CpuSet held = CpuSet.of(0, 2);
        assertTrue(today.intersects(held), "the test must hold CPUs the plan takes without leases: " + today);
        LeasedPlan leased = LeasedPlanner.plan(MANA, request, Map.of(0, 1, 2, 1));
        assertFalse(
                LeasedPlanner.used(leased.plan()).intersects(held),
                leased.plan().toString());
        assertEquals(2, leased.plan().size());
        assertEquals(CpuSet.EMPTY, leased.shared());
        // Still near node 0: the free CPUs 1 and 3 are there.
        assertEquals(CpuSet.of(1, 3), LeasedPlanner.used(leased.plan()));
    }

    @Test
    void whenNoFreeCpuRemainsTheLeastHeldAreSharedAndSaidSo() {
        Topology four = MANA.withAllowed(CpuSet.range(0, 3));
        PlanRequest request = PlanRequest.threads(0, 3).withMode(Mode.CPU);
        // CPUs 0 and 1 are free, 2 has one other holder, 3 has two.
        LeasedPlan leased = LeasedPlanner.plan(four, request, Map.of(2, 1, 3, 2));
        assertEquals(CpuSet.of(0, 1, 2), LeasedPlanner.used(leased.plan()));
        assertEquals(CpuSet.of(2), leased.shared());
        assertTrue(
                leased.plan().assignments().stream().allMatch(a -> a.pass() == 0),
                leased.plan().toString());
    }

    @Test
    void whenEveryCpuIsHeldThePlanIsThePlannersOwnAndAllShared() {
        Topology two = MANA.withAllowed(CpuSet.of(0, 1));
        PlanRequest request = PlanRequest.threads(0, 2).withMode(Mode.CPU);
        LeasedPlan leased = LeasedPlanner.plan(two, request, Map.of(0, 1, 1, 1));
        assertEquals(Planner.plan(two, request), leased.plan());
        assertEquals(CpuSet.of(0, 1), leased.shared());
    }
}
