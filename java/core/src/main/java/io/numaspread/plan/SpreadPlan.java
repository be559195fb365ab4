package io.numaspread.plan;

import io.numaspread.CpuSet;
import java.util.List;

/** The planner's answer: one assignment per queue, in queue order. */
public record SpreadPlan(PlanRequest request, CpuSet candidates, List<Assignment> assignments) {
    public SpreadPlan {
        assignments = List.copyOf(assignments);
    }

    public Assignment get(int index) {
        return assignments.get(index);
    }

    public int size() {
        return assignments.size();
    }
}
