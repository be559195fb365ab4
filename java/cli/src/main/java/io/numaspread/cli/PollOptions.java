// SPDX-License-Identifier: Apache-2.0
package io.numaspread.cli;

import io.numaspread.NumaspreadException;
import io.numaspread.plan.PlanRequest;
import io.numaspread.plan.Planner;
import io.numaspread.plan.PollPlan;
import io.numaspread.plan.PollRequest;
import io.numaspread.plan.PollSibling;
import io.numaspread.topology.Topology;
import java.util.Optional;
import picocli.CommandLine.Option;

/** The busy-poll flags of {@code plan} and {@code apply}: one declaration of each, planned the same way. */
final class PollOptions {
    @Option(
            names = "--poll-queues",
            paramLabel = "N",
            description = "Busy-poll cores, one per polled queue (the first N), on the origin node first: each spins"
                    + " a whole core, and IRQs and event loops stay off it.")
    Integer pollQueues;

    @Option(
            names = "--poll-sibling",
            paramLabel = "USE",
            description = "What a poll core's SMT siblings do: idle (default: kept free, as a spinning sibling"
                    + " shares the pipeline) or shared (IRQs and event loops may use them).")
    String pollSibling;

    /**
     * The busy-poll cores for the IRQ request's origin, among the CPUs it plans over; empty without
     * {@code --poll-queues}.
     *
     * @throws NumaspreadException (bad input) naming the flag
     */
    Optional<PollPlan> plan(Topology topology, PlanRequest irqs) {
        if (pollQueues == null) {
            if (pollSibling != null) {
                throw NumaspreadException.badInput("--poll-sibling goes with --poll-queues N");
            }
            return Optional.empty();
        }
        if (pollQueues < 1) {
            throw NumaspreadException.badInput("--poll-queues must be at least 1, not " + pollQueues);
        }
        if (irqs.origins().size() > 1) {
            throw NumaspreadException.badInput("--poll-queues plans for one NIC: give one --node, not "
                    + irqs.origins().size());
        }
        try {
            PollSibling sibling = pollSibling == null ? PollSibling.IDLE : PollSibling.of(pollSibling);
            int origin = irqs.origins().isEmpty() ? -1 : irqs.origins().get(0);
            return Optional.of(Planner.poll(topology, new PollRequest(origin, pollQueues, sibling), irqs));
        } catch (IllegalArgumentException e) {
            throw NumaspreadException.badInput("--poll-queues: " + e.getMessage());
        }
    }
}
