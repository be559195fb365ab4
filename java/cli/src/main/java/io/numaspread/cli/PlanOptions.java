// SPDX-License-Identifier: Apache-2.0
package io.numaspread.cli;

import io.numaspread.CpuSet;
import io.numaspread.NumaspreadException;
import io.numaspread.plan.Mode;
import io.numaspread.plan.PlanFlags;
import io.numaspread.plan.PlanRequest;
import io.numaspread.plan.Planner;
import io.numaspread.plan.Policy;
import io.numaspread.plan.Purpose;
import io.numaspread.plan.SpreadPlan;
import io.numaspread.topology.Topology;
import java.util.List;
import java.util.Optional;
import picocli.CommandLine.Option;

/**
 * The planning flags shared by {@code plan} and {@code apply}. Where the origin and count come from is the
 * command's business ({@code --node/--count} here, a NIC elsewhere): {@link #request} takes them.
 */
final class PlanOptions {
    @Option(
            names = "--per-cpu",
            description = "Give each queue its slot CPU alone instead of its sibling group"
                    + " (the default for a NIC's IRQs).")
    boolean perCpu;

    @Option(
            names = "--siblings",
            description = "Give each queue its whole sibling group (the default for"
                    + " --node/--count); the kernel then picks which CPU of the group takes the IRQ.")
    boolean siblings;

    @Option(
            names = "--cpus",
            paramLabel = "LIST",
            description = "Plan over these CPUs (a cpulist such as 0-3,8) instead of the default set.")
    String cpus;

    @Option(names = "--exclude", paramLabel = "LIST", description = "Never plan on these CPUs (a cpulist).")
    String exclude;

    @Option(
            names = "--skip-first",
            description = "Compute the first slot but give it no queue (left to a control IRQ, as mana does).")
    boolean skipFirst;

    @Option(
            names = "--policy",
            paramLabel = "P",
            defaultValue = "kernel",
            description = "kernel (default: one queue per CPU, then nearest nodes, then siblings apart), "
                    + "cores (every core before any sibling, even on farther nodes), "
                    + "local (only the nearest node(s); CPUs take several queues before any queue crosses).")
    String policy;

    /**
     * The request for {@code count} queues per origin; an empty origin list means no origin.
     *
     * @throws NumaspreadException (bad input) naming the flag for a malformed cpulist, unknown policy or bad count
     */
    PlanRequest request(List<Integer> origins, int count, Purpose purpose) {
        if (count < 1) {
            throw NumaspreadException.badInput("--count must be at least 1, not " + count);
        }
        try {
            return refine(
                    new PlanRequest(origins, count, Mode.SIBLINGS, purpose, Optional.empty(), CpuSet.EMPTY, false));
        } catch (IllegalArgumentException e) {
            throw NumaspreadException.badInput(e.getMessage());
        }
    }

    /**
     * {@code base} (origins, count and purpose from {@code --node/--count} or a NIC) with these flags applied.
     *
     * @throws NumaspreadException (bad input) naming the flag for a malformed cpulist or unknown policy
     */
    PlanRequest refine(PlanRequest base) {
        return flags().applyTo(base);
    }

    /**
     * These flags as a value, for planning again later (watch, at every check).
     *
     * @throws NumaspreadException (bad input) naming the flag for a malformed cpulist or unknown policy
     */
    PlanFlags flags() {
        if (perCpu && siblings) {
            throw NumaspreadException.badInput("--per-cpu and --siblings exclude each other");
        }
        Optional<Mode> mode = perCpu ? Optional.of(Mode.CPU) : siblings ? Optional.of(Mode.SIBLINGS) : Optional.empty();
        return new PlanFlags(
                mode,
                policy(),
                skipFirst,
                Optional.ofNullable(cpus).map(list -> cpuList("--cpus", list)),
                Optional.ofNullable(exclude).map(list -> cpuList("--exclude", list)));
    }

    /** Plans, turning the planner's refusals (unknown node, no candidate CPU) into bad-input errors. */
    static SpreadPlan plan(Topology topology, PlanRequest request) {
        try {
            return Planner.plan(topology, request);
        } catch (IllegalArgumentException e) {
            throw NumaspreadException.badInput(e.getMessage());
        }
    }

    private Policy policy() {
        try {
            return Policy.of(policy);
        } catch (IllegalArgumentException e) {
            throw NumaspreadException.badInput("--policy: " + e.getMessage());
        }
    }

    private static CpuSet cpuList(String flag, String list) {
        try {
            return CpuSet.parse(list);
        } catch (IllegalArgumentException e) {
            throw NumaspreadException.badInput(flag + ": " + e.getMessage());
        }
    }
}
