// SPDX-License-Identifier: Apache-2.0
package io.numaspread.plan;

import io.numaspread.CpuSet;
import java.util.List;

/**
 * The planner's answer: one assignment per queue, origin by origin in the request's order, each origin's
 * queues in index order. With one origin (or none) the list is simply queue 0, 1, ...
 */
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

    /** The queues of the origin at {@code position} in {@link PlanRequest#origins()}, in index order. */
    public List<Assignment> forOrigin(int position) {
        int origins = Math.max(1, request.origins().size());
        if (position < 0 || position >= origins) {
            throw new IndexOutOfBoundsException("the plan has " + origins + " origins, not " + (position + 1));
        }
        return assignments.subList(position * request.count(), (position + 1) * request.count());
    }
}
