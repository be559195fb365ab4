// SPDX-License-Identifier: Apache-2.0
package io.numaspread.plan;

import io.numaspread.CpuSet;
import java.util.Optional;

/**
 * The planning choices a command's flags make, beyond where the queues come from and how many there are: the mode
 * when one is chosen, the policy, whether the first slot is skipped, the CPUs planned over and those excluded. A
 * value, so that a command parses its flags once and whoever plans later (watch, at every check) applies them.
 *
 * @param mode replaces the base request's mode, when present
 * @param cpus replaces the allowed set, when present
 * @param exclude replaces the excluded CPUs, when present
 */
public record PlanFlags(
        Optional<Mode> mode, Policy policy, boolean skipFirst, Optional<CpuSet> cpus, Optional<CpuSet> exclude) {
    /** {@code base} (origins, count and purpose from {@code --node/--count} or a NIC) with these choices. */
    public PlanRequest applyTo(PlanRequest base) {
        PlanRequest request = base.withPolicy(policy).withSkipFirst(skipFirst);
        if (mode.isPresent()) {
            request = request.withMode(mode.get());
        }
        if (cpus.isPresent()) {
            request = request.withCpus(cpus.get());
        }
        return exclude.isEmpty() ? request : request.withExclude(exclude.get());
    }
}
