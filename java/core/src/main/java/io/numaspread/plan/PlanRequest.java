// SPDX-License-Identifier: Apache-2.0
package io.numaspread.plan;

import io.numaspread.CpuSet;
import java.util.List;
import java.util.Optional;

/**
 * What to plan.
 *
 * <p><b>Several origins.</b> Each entry of {@code origins} is one consumer of queues (a NIC, or one port of a
 * NIC on its own node) and gets {@code count} queues of its own; the same node may appear twice (two NICs on
 * one node). All origins share one CPU budget: they take turns, one queue each in list order, and every turn
 * takes a CPU with the fewest queues so far, so no two queues share a CPU while a candidate CPU has none.
 * Among those CPUs each origin prefers its own nearest level, then the sibling group with the fewest queues
 * in this pass, then the group with the fewest of its own queues. With a single origin this is exactly the
 * kernel-compatible order described in {@link Planner}.
 *
 * @param origins the nodes the queues are near (a NIC's node); -1 stands for a consumer whose node is
 *     unknown; empty means one consumer with no origin. Either way, an origin without a node sees every
 *     candidate CPU as one level.
 * @param count how many queues each origin gets (one consumer: the total)
 * @param mode sibling groups or single CPUs
 * @param purpose IRQs or threads, which decides the default allowed set
 * @param cpus replaces the default allowed set ({@code --cpus}), when present
 * @param exclude removed from the allowed set ({@code --exclude})
 * @param skipFirst each origin's first slot is computed but gets no queue (mana leaves it to its control IRQ)
 * @param policy how the priorities rank; {@link Policy#KERNEL} by default
 */
public record PlanRequest(
        List<Integer> origins,
        int count,
        Mode mode,
        Purpose purpose,
        Optional<CpuSet> cpus,
        CpuSet exclude,
        boolean skipFirst,
        Policy policy) {

    /** The most queues one plan may hold, so that a typo in a count fails instead of exhausting memory. */
    public static final int MAX_QUEUES = 1 << 20;

    public PlanRequest {
        origins = List.copyOf(origins);
        if (count < 1) {
            throw new IllegalArgumentException("the queue count must be at least 1, not " + count);
        }
        for (int origin : origins) {
            if (origin < -1) {
                throw new IllegalArgumentException("origin node " + origin + " is no node (-1 stands for none)");
            }
        }
        if ((long) count * Math.max(1, origins.size()) > MAX_QUEUES) {
            throw new IllegalArgumentException(
                    "the queue count " + count + " is beyond the " + MAX_QUEUES + " queues a plan may hold");
        }
    }

    /** The request as it was before policies existed: the {@link Policy#KERNEL} policy. */
    public PlanRequest(
            List<Integer> origins,
            int count,
            Mode mode,
            Purpose purpose,
            Optional<CpuSet> cpus,
            CpuSet exclude,
            boolean skipFirst) {
        this(origins, count, mode, purpose, cpus, exclude, skipFirst, Policy.KERNEL);
    }

    /** {@code count} queues near {@code node}, sibling mode, for IRQs, with default CPUs. */
    public static PlanRequest irqs(int node, int count) {
        return irqs(List.of(node), count);
    }

    /** {@code count} queues for each of {@code origins}, sharing the CPUs; sibling mode, for IRQs. */
    public static PlanRequest irqs(List<Integer> origins, int count) {
        return new PlanRequest(origins, count, Mode.SIBLINGS, Purpose.IRQS, Optional.empty(), CpuSet.EMPTY, false);
    }

    /** {@code count} threads near {@code node}, sibling mode, within this process's allowed CPUs. */
    public static PlanRequest threads(int node, int count) {
        return new PlanRequest(
                List.of(node), count, Mode.SIBLINGS, Purpose.THREADS, Optional.empty(), CpuSet.EMPTY, false);
    }

    /** How many queues the plan holds: {@code count} for each origin. */
    public int totalCount() {
        return count * Math.max(1, origins.size());
    }

    public PlanRequest withMode(Mode newMode) {
        return new PlanRequest(origins, count, newMode, purpose, cpus, exclude, skipFirst, policy);
    }

    public PlanRequest withCount(int newCount) {
        return new PlanRequest(origins, newCount, mode, purpose, cpus, exclude, skipFirst, policy);
    }

    public PlanRequest withOrigins(List<Integer> newOrigins) {
        return new PlanRequest(newOrigins, count, mode, purpose, cpus, exclude, skipFirst, policy);
    }

    public PlanRequest withPolicy(Policy newPolicy) {
        return new PlanRequest(origins, count, mode, purpose, cpus, exclude, skipFirst, newPolicy);
    }

    public PlanRequest withPurpose(Purpose newPurpose) {
        return new PlanRequest(origins, count, mode, newPurpose, cpus, exclude, skipFirst, policy);
    }

    public PlanRequest withCpus(CpuSet newCpus) {
        return new PlanRequest(origins, count, mode, purpose, Optional.of(newCpus), exclude, skipFirst, policy);
    }

    public PlanRequest withExclude(CpuSet newExclude) {
        return new PlanRequest(origins, count, mode, purpose, cpus, newExclude, skipFirst, policy);
    }

    /** This request with {@code cpus} added to what it excludes, so that its plan stays off them. */
    public PlanRequest avoiding(CpuSet cpus) {
        return withExclude(exclude.union(cpus));
    }

    public PlanRequest withSkipFirst(boolean newSkipFirst) {
        return new PlanRequest(origins, count, mode, purpose, cpus, exclude, newSkipFirst, policy);
    }
}
