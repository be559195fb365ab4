// SPDX-License-Identifier: Apache-2.0
package io.numaspread.cli;

import io.numaspread.NumaspreadException;
import io.numaspread.plan.PlanRequest;
import io.numaspread.plan.PollFlags;
import io.numaspread.plan.PollSibling;
import io.numaspread.topology.Topology;
import java.util.Optional;
import picocli.CommandLine.Option;

/**
 * The busy-poll flags of {@code plan}, {@code apply} and {@code watch}: one declaration of each, planned the same way.
 */
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
     * The flags as a value, for planning later ({@code watch}, at every check); empty without {@code --poll-queues}.
     *
     * @throws NumaspreadException (bad input) naming the flag
     */
    Optional<PollFlags> flags() {
        if (pollQueues == null) {
            if (pollSibling != null) {
                throw NumaspreadException.badInput("--poll-sibling goes with --poll-queues N");
            }
            return Optional.empty();
        }
        if (pollQueues < 1) {
            throw NumaspreadException.badInput("--poll-queues must be at least 1, not " + pollQueues);
        }
        try {
            return Optional.of(
                    new PollFlags(pollQueues, pollSibling == null ? PollSibling.IDLE : PollSibling.of(pollSibling)));
        } catch (IllegalArgumentException e) {
            throw NumaspreadException.badInput("--poll-queues: " + e.getMessage());
        }
    }

    /**
     * The busy-poll cores for the IRQ request's origin, among the CPUs it plans over, and the IRQs planned around
     * them; empty without {@code --poll-queues}.
     *
     * @throws NumaspreadException (bad input) naming the flag
     */
    Optional<PollFlags.Around> plan(Topology topology, PlanRequest irqs) {
        return flags().map(poll -> poll.plan(topology, irqs));
    }
}
