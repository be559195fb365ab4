// SPDX-License-Identifier: Apache-2.0
package io.numaspread.lease;

import io.numaspread.CpuSet;
import io.numaspread.plan.Assignment;
import io.numaspread.plan.PlanRequest;
import io.numaspread.plan.Planner;
import io.numaspread.plan.SpreadPlan;
import io.numaspread.topology.Topology;
import java.util.Map;
import java.util.TreeSet;

/**
 * Plans around the CPUs other processes hold (their leases): pure, the held CPUs are an argument.
 *
 * <p>While the CPUs nobody else holds can give every queue a CPU of its own, the plan is made over them alone,
 * as {@link Planner} makes it. When they cannot, the CPUs the fewest other processes hold join them (those held
 * by one, then by two, and so on) until every queue has a CPU of its own, and the plan is made over all of them
 * as the planner ranks them; when even every candidate cannot, the plan is the planner's own. A held CPU that
 * the request's candidates (this process's allowed CPUs, for threads) do not include changes nothing, so
 * processes that their cpusets already keep apart (Kubernetes' static CPU manager) get exactly the plans they
 * got without leases.
 */
public final class LeasedPlanner {
    private LeasedPlanner() {}

    /**
     * @param heldByOthers how many other processes hold each CPU they hold
     * @throws IllegalArgumentException as {@link Planner#plan} does
     */
    public static LeasedPlan plan(Topology topology, PlanRequest request, Map<Integer, Integer> heldByOthers) {
        CpuSet candidates = Planner.candidates(topology, request);
        TreeSet<Integer> holderCounts = new TreeSet<>();
        CpuSet.Builder heldBuilder = CpuSet.builder();
        heldByOthers.forEach((cpu, holders) -> {
            if (holders > 0 && candidates.contains(cpu)) {
                heldBuilder.add(cpu);
                holderCounts.add(holders);
            }
        });
        CpuSet held = heldBuilder.build();
        if (held.isEmpty()) {
            return new LeasedPlan(Planner.plan(topology, request), CpuSet.EMPTY);
        }
        holderCounts.add(0);
        SpreadPlan plan = null;
        for (int admitted : holderCounts) {
            CpuSet avoided = moreHeldThan(heldByOthers, held, admitted);
            if (avoided.containsAll(candidates)) {
                continue;
            }
            plan = Planner.plan(topology, request.avoiding(avoided));
            if (everyQueueAlone(plan)) {
                break;
            }
        }
        return new LeasedPlan(plan, used(plan).intersect(held));
    }

    /** The CPUs of {@code held} that more than {@code admitted} other processes hold. */
    private static CpuSet moreHeldThan(Map<Integer, Integer> heldByOthers, CpuSet held, int admitted) {
        CpuSet.Builder more = CpuSet.builder();
        for (int cpu : held) {
            if (heldByOthers.get(cpu) > admitted) {
                more.add(cpu);
            }
        }
        return more.build();
    }

    /** Whether no CPU of {@code plan} has a second queue (every assignment is in the first pass). */
    private static boolean everyQueueAlone(SpreadPlan plan) {
        return plan.assignments().stream().allMatch(assignment -> assignment.pass() == 0);
    }

    /** Every CPU the plan's queues are pinned to. */
    public static CpuSet used(SpreadPlan plan) {
        CpuSet.Builder used = CpuSet.builder();
        for (Assignment assignment : plan.assignments()) {
            used.addAll(assignment.cpus());
        }
        return used.build();
    }
}
