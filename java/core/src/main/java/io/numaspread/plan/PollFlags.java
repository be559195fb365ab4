// SPDX-License-Identifier: Apache-2.0
package io.numaspread.plan;

import io.numaspread.NumaspreadException;
import io.numaspread.topology.Topology;

/**
 * Busy-poll cores asked for, the NIC's node left to each plan: what {@code --poll-queues N --poll-sibling USE} say.
 * A value, so that a command parses its flags once and whoever plans later ({@code watch}, at every check) plans the
 * IRQs around the poll cores as {@code plan} and {@code apply} do.
 *
 * @param queues how many queues are polled: one core each
 * @param sibling what the poll cores' SMT siblings do
 */
public record PollFlags(int queues, PollSibling sibling) {
    public PollFlags {
        if (queues < 1) {
            throw new IllegalArgumentException("--poll-queues must be at least 1, not " + queues);
        }
    }

    /** The poll cores, and the IRQ plan made around them. */
    public record Around(PollPlan poll, SpreadPlan irqs) {}

    /**
     * The poll cores for {@code irqs}' origin, among the CPUs it plans over, and {@code irqs} planned off the CPUs
     * they reserve ({@link PollPlan#avoidedBy}).
     *
     * @throws NumaspreadException (bad input) naming {@code --poll-queues}: more than one origin, or too few CPUs to
     *     give every polled queue a core and still plan the IRQs
     */
    public Around plan(Topology topology, PlanRequest irqs) {
        if (irqs.origins().size() > 1) {
            throw NumaspreadException.badInput("--poll-queues plans for one NIC: give one --node, not "
                    + irqs.origins().size());
        }
        int origin = irqs.origins().isEmpty() ? -1 : irqs.origins().get(0);
        try {
            PollPlan poll = Planner.poll(topology, new PollRequest(origin, queues, sibling), irqs);
            return new Around(poll, Planner.plan(topology, poll.avoidedBy(irqs)));
        } catch (IllegalArgumentException e) {
            throw NumaspreadException.badInput("--poll-queues: " + e.getMessage());
        }
    }
}
