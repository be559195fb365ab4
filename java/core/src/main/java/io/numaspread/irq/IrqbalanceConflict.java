// SPDX-License-Identifier: Apache-2.0
package io.numaspread.irq;

import io.numaspread.CpuSet;
import io.numaspread.NumaspreadException;
import java.util.List;

/**
 * A refusal because a running irqbalance would move planned IRQs again. It carries what was found as values, so
 * that each caller words the way out in its own terms (the CLI names irqbalance's service, its options and
 * {@code --force}); the message states only the conflict.
 */
public final class IrqbalanceConflict extends NumaspreadException {
    private static final long serialVersionUID = 1L;

    private final int pid;
    private final transient List<Integer> irqs;
    private final transient CpuSet plannedOnBannedCpus;

    IrqbalanceConflict(int pid, List<Integer> irqs, CpuSet plannedOnBannedCpus) {
        super(Kind.REFUSED, describe(pid, irqs, plannedOnBannedCpus));
        this.pid = pid;
        this.irqs = List.copyOf(irqs);
        this.plannedOnBannedCpus = plannedOnBannedCpus;
    }

    private static String describe(int pid, List<Integer> irqs, CpuSet plannedOnBannedCpus) {
        return "irqbalance is running (pid " + pid + ") and would move IRQs " + irqs + " again"
                + (plannedOnBannedCpus.isEmpty()
                        ? ""
                        : "; its environment bans CPUs " + plannedOnBannedCpus
                                + " of the plan (IRQBALANCE_BANNED_CPULIST or _CPUS), which keeps other IRQs off them"
                                + " but makes it move these IRQs away from them");
    }

    /** The irqbalance's pid. */
    public int pid() {
        return pid;
    }

    /** The planned IRQs its command line does not ban, in ascending order. */
    public List<Integer> irqs() {
        return irqs;
    }

    /** The planned CPUs of those IRQs that its environment bans; empty when it bans none of them. */
    public CpuSet plannedOnBannedCpus() {
        return plannedOnBannedCpus;
    }
}
