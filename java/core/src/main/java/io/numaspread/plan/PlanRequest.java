package io.numaspread.plan;

import io.numaspread.CpuSet;
import java.util.List;
import java.util.Optional;

/**
 * What to plan.
 *
 * @param origins the nodes the queues are near (a NIC's node); empty for no origin, where all CPUs are one level
 * @param count how many queues
 * @param mode sibling groups or single CPUs
 * @param purpose IRQs or threads, which decides the default allowed set
 * @param cpus replaces the default allowed set ({@code --cpus}), when present
 * @param exclude removed from the allowed set ({@code --exclude})
 * @param skipFirst compute the first slot but give it no queue (mana leaves it to its control IRQ)
 */
public record PlanRequest(List<Integer> origins, int count, Mode mode, Purpose purpose, Optional<CpuSet> cpus,
        CpuSet exclude, boolean skipFirst) {

    public PlanRequest {
        origins = List.copyOf(origins);
        if (count < 1) {
            throw new IllegalArgumentException("the queue count must be at least 1, not " + count);
        }
    }

    /** {@code count} queues near {@code node}, sibling mode, for IRQs, with default CPUs. */
    public static PlanRequest irqs(int node, int count) {
        return new PlanRequest(List.of(node), count, Mode.SIBLINGS, Purpose.IRQS, Optional.empty(), CpuSet.EMPTY,
                false);
    }

    /** {@code count} threads near {@code node}, sibling mode, within this process's allowed CPUs. */
    public static PlanRequest threads(int node, int count) {
        return new PlanRequest(List.of(node), count, Mode.SIBLINGS, Purpose.THREADS, Optional.empty(),
                CpuSet.EMPTY, false);
    }

    public PlanRequest withMode(Mode newMode) {
        return new PlanRequest(origins, count, newMode, purpose, cpus, exclude, skipFirst);
    }

    public PlanRequest withCount(int newCount) {
        return new PlanRequest(origins, newCount, mode, purpose, cpus, exclude, skipFirst);
    }
}
