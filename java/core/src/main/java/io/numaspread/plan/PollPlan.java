// SPDX-License-Identifier: Apache-2.0
package io.numaspread.plan;

import io.numaspread.CpuSet;
import java.util.List;

/**
 * The planner's answer for busy polling: one core per polled queue, and the CPUs that IRQs and event loops must
 * therefore avoid.
 *
 * @param cores one per polled queue, in queue order, each on a core of its own
 * @param reserved the poll CPUs, plus their siblings when those are kept free ({@link PollSibling#IDLE})
 */
public record PollPlan(PollRequest request, List<PollCore> cores, CpuSet reserved) {
    public PollPlan {
        cores = List.copyOf(cores);
    }

    /** The poll CPUs alone. */
    public CpuSet cpus() {
        CpuSet.Builder builder = CpuSet.builder();
        for (PollCore core : cores) {
            builder.add(core.cpu());
        }
        return builder.build();
    }

    /** {@code irqsOrLoops} with the reserved CPUs added to what it excludes, so that its plan stays off them. */
    public PlanRequest avoidedBy(PlanRequest irqsOrLoops) {
        return irqsOrLoops.avoiding(reserved);
    }
}
