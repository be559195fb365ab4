// SPDX-License-Identifier: Apache-2.0
package io.numaspread.kernel;

import java.util.Objects;

/**
 * A thread's scheduling class: its policy and its static priority ({@code sched_param.sched_priority}), 1 to 99
 * for the real-time policies and 0 for the others, as {@code sched_setscheduler} requires.
 */
public record ThreadScheduling(SchedPolicy policy, int priority) {
    /** SCHED_OTHER, priority 0: where every thread starts. */
    public static final ThreadScheduling OTHER = new ThreadScheduling(SchedPolicy.OTHER, 0);

    public ThreadScheduling {
        Objects.requireNonNull(policy, "policy");
        if (policy.realTime() && (priority < 1 || priority > SchedPolicy.MAX_RT_PRIORITY)) {
            throw new IllegalArgumentException("priority " + priority + " is outside 1-" + SchedPolicy.MAX_RT_PRIORITY
                    + ", which " + policy + " takes");
        }
        if (!policy.realTime() && priority != 0) {
            throw new IllegalArgumentException("priority " + priority + " with " + policy + ", which takes 0 only");
        }
    }

    @Override
    public String toString() {
        return "SCHED_" + policy + (policy.realTime() ? " priority " + priority : "");
    }
}
