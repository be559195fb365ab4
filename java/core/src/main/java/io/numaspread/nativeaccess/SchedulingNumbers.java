// SPDX-License-Identifier: Apache-2.0
package io.numaspread.nativeaccess;

import io.numaspread.NumaspreadException;
import io.numaspread.kernel.SchedPolicy;
import io.numaspread.kernel.ThreadScheduling;

/** What every backend makes of a thread's policy and priority as the kernel numbers them. */
final class SchedulingNumbers {
    /**
     * {@code SCHED_RESET_ON_FORK}, which {@code sched_getscheduler} ORs into the policy of a thread that has it.
     * numaspread never sets it, and a NAPI kernel thread never forks.
     */
    private static final int RESET_ON_FORK = 0x40000000;

    private SchedulingNumbers() {}

    /** @throws NumaspreadException (bad input) for a policy numaspread cannot set back (SCHED_DEADLINE) */
    static ThreadScheduling scheduling(int tid, int policy, int priority) {
        SchedPolicy known = SchedPolicy.ofNumber(policy & ~RESET_ON_FORK)
                .orElseThrow(() -> NumaspreadException.badInput("thread " + tid + " has scheduling policy " + policy
                        + " (SCHED_DEADLINE is 6), which sched_setscheduler cannot set back"));
        return new ThreadScheduling(known, priority);
    }
}
