// SPDX-License-Identifier: Apache-2.0
package io.numaspread.plan;

/**
 * Busy-poll cores to plan: one core per polled queue, for the threads that spin on those queues' NAPI instances
 * (threaded busy polling, Linux 6.19+, where the kernel leaves the thread's CPU to the user).
 *
 * @param origin the NIC's node; -1 when it has none, and then every candidate core is as near as any other
 * @param queues how many queues are polled: one core each
 * @param sibling what the poll cores' SMT siblings do; {@link PollSibling#IDLE} by default
 */
public record PollRequest(int origin, int queues, PollSibling sibling) {
    public PollRequest {
        if (queues < 1) {
            throw new IllegalArgumentException("the poll queue count must be at least 1, not " + queues);
        }
        if (origin < -1) {
            throw new IllegalArgumentException("origin node " + origin + " is no node (-1 stands for none)");
        }
    }

    /** {@code queues} polled queues of a NIC on {@code origin}, their siblings kept free. */
    public static PollRequest of(int origin, int queues) {
        return new PollRequest(origin, queues, PollSibling.IDLE);
    }
}
