// SPDX-License-Identifier: Apache-2.0
package io.numaspread.watch;

import io.numaspread.CpuSet;
import io.numaspread.NumaspreadException;
import io.numaspread.nic.Nic;
import io.numaspread.plan.PlanFlags;
import io.numaspread.plan.PlanRequest;
import io.numaspread.plan.Planner;
import io.numaspread.plan.PollFlags;
import io.numaspread.plan.PollPlan;
import io.numaspread.plan.Purpose;
import io.numaspread.plan.SpreadPlan;
import io.numaspread.topology.Topology;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * What each check plans with, besides the machine and the NIC it reads: the plan flags, parsed once by the
 * command, the kubelet's CPU state file, whose exclusive CPUs are kept free of queues beyond the flags' own
 * (they change while watch runs: the file is read at every check, {@link KubeletCpuState}), and the busy-poll
 * cores asked for, around which every plan is made as {@code apply --poll-queues} makes it.
 */
public record WatchPlanning(PlanFlags flags, Optional<Path> kubeletCpuState, Optional<PollFlags> poll) {
    /**
     * {@code nic}'s queue IRQs planned on {@code topology}, off {@code keptFree}, with the poll cores when asked
     * for (chosen off {@code keptFree} too), the IRQs off the CPUs those reserve.
     */
    Planned plan(Topology topology, Nic nic, CpuSet keptFree) {
        PlanRequest request = request(topology, nic, keptFree);
        if (poll.isPresent()) {
            PollFlags.Around around = poll.get().plan(topology, request);
            return new Planned(around.irqs(), Optional.of(around.poll()));
        }
        try {
            return new Planned(Planner.plan(topology, request), Optional.empty());
        } catch (IllegalArgumentException e) {
            throw NumaspreadException.badInput(e.getMessage());
        }
    }

    /**
     * {@code nic}'s share of the plan of every watched NIC that is present ({@code watched}, {@code nic} among
     * them), planned together as {@code apply --nic A --nic B} plans them ({@link Planner#together}): no CPU gets a
     * second queue IRQ while one they may use has none. A NIC alone, or busy-poll cores (planned around one NIC's
     * queues), is planned as {@link #plan(Topology, Nic, CpuSet)} plans it.
     *
     * @param sitting the CPUs each of {@code watched} has its queues on now (its last check's plan), by queue;
     *     a queue keeps its CPU where the priorities rank it alike with the one a plan made afresh would take
     */
    Planned plan(Topology topology, Nic nic, List<Nic> watched, List<List<CpuSet>> sitting, CpuSet keptFree) {
        if (poll.isPresent() || watched.size() < 2) {
            return plan(topology, nic, keptFree);
        }
        int index = watched.indexOf(nic);
        if (index < 0) {
            throw new IllegalArgumentException(nic.name() + " is not among the watched NICs " + watched);
        }
        try {
            List<SpreadPlan> shares = Planner.together(
                    topology,
                    watched.stream().map(n -> request(topology, n, keptFree)).toList(),
                    sitting);
            return new Planned(shares.get(index), Optional.empty());
        } catch (IllegalArgumentException e) {
            throw NumaspreadException.badInput(e.getMessage());
        }
    }

    private PlanRequest request(Topology topology, Nic nic, CpuSet keptFree) {
        PlanRequest request = flags.applyTo(nic.planRequest(topology, Purpose.IRQS));
        return keptFree.isEmpty()
                ? request
                : request.withExclude(request.exclude().union(keptFree));
    }

    /** One check's plan: the queue IRQs', and the busy-poll cores when asked for. */
    record Planned(SpreadPlan irqs, Optional<PollPlan> poll) {}
}
