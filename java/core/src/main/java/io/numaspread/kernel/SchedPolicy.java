// SPDX-License-Identifier: Apache-2.0
package io.numaspread.kernel;

import java.util.Optional;

/**
 * A Linux scheduling policy, as {@code sched_setscheduler} takes it and {@code sched_getscheduler} gives it. The
 * numbers are the kernel's ABI ({@code <linux/sched.h>}), the same on every architecture; SCHED_DEADLINE is left
 * out, since {@code sched_setscheduler} cannot set it.
 */
public enum SchedPolicy {
    /** {@code SCHED_OTHER}: the fair scheduler, the default. */
    OTHER(0, false),
    /** {@code SCHED_FIFO}: real time, runs until it blocks or a higher priority preempts it. */
    FIFO(1, true),
    /** {@code SCHED_RR}: real time, round robin among its priority. */
    RR(2, true),
    /** {@code SCHED_BATCH}: fair, treated as CPU-bound. */
    BATCH(3, false),
    /** {@code SCHED_IDLE}: runs only when nothing else would. */
    IDLE(5, false);

    /** The highest real-time priority, {@code sched_get_priority_max(SCHED_FIFO)} on Linux. */
    public static final int MAX_RT_PRIORITY = 99;

    private final int number;
    private final boolean realTime;

    SchedPolicy(int number, boolean realTime) {
        this.number = number;
        this.realTime = realTime;
    }

    /** The kernel's number for it ({@code SCHED_FIFO} is 1). */
    public int number() {
        return number;
    }

    /** Whether it takes a priority of 1 to 99; the others take 0 only. */
    public boolean realTime() {
        return realTime;
    }

    /** The policy numbered {@code number} by the kernel, or empty for one this enum leaves out. */
    public static Optional<SchedPolicy> ofNumber(int number) {
        for (SchedPolicy policy : values()) {
            if (policy.number == number) {
                return Optional.of(policy);
            }
        }
        return Optional.empty();
    }
}
