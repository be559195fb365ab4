// SPDX-License-Identifier: Apache-2.0
package io.numaspread.plan;

/**
 * Whether a plan keeps one of the three priorities, and why not where it does not.
 *
 * @param detail one line for people: what held, or which queue and CPU show that it did not
 */
public record PriorityCheck(Priority priority, Status status, String detail) {

    /** The priorities of mana's {@code irq_setup()}, most important first. */
    public enum Priority {
        ONE_QUEUE_PER_CPU(1, "one queue per CPU"),
        NUMA_LOCALITY(2, "NUMA locality"),
        SIBLING_DISLOCALITY(3, "sibling dislocality");

        private final int rank;
        private final String title;

        Priority(int rank, String title) {
            this.rank = rank;
            this.title = title;
        }

        public int rank() {
            return rank;
        }

        public String title() {
            return title;
        }
    }

    public enum Status {
        /** The plan keeps it. */
        HELD,
        /** No plan could keep it, and this one comes as close as possible (e.g. more queues than CPUs). */
        NOT_POSSIBLE,
        /** The request's policy gives it up for a priority it ranks higher. */
        WAIVED,
        /** The plan breaks it although a plan keeping it (and every higher priority) exists. */
        BROKEN;

        public String id() {
            return name().toLowerCase(java.util.Locale.ROOT).replace('_', '-');
        }
    }

    public boolean broken() {
        return status == Status.BROKEN;
    }

    /** E.g. {@code "2 NUMA locality: held (...)"}. */
    @Override
    public String toString() {
        return priority.rank() + " " + priority.title() + ": " + status.id() + " (" + detail + ")";
    }
}
