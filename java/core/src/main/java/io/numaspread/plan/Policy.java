// SPDX-License-Identifier: Apache-2.0
package io.numaspread.plan;

/**
 * How the three priorities are ranked. Every policy keeps priority 1 (at most one queue per CPU while free
 * candidate CPUs remain) except {@link #LOCAL}, which trades it for staying near the origin.
 */
public enum Policy {
    /**
     * The default, the kernel's {@code irq_setup()} order: one queue per CPU, then NUMA locality (nearest hop
     * level first), then SMT sibling dislocality within a level.
     */
    KERNEL("kernel"),
    /**
     * One queue per physical core before any core takes a second: one queue per CPU, then sibling dislocality
     * across all levels, then NUMA locality. For latency-sensitive queues that must not share a core while an
     * idle core exists, even a farther one.
     */
    CORES("cores"),
    /**
     * Only the origin's nearest level (its own node, or the nearest nodes with candidate CPUs): queues double up
     * there rather than cross the interconnect. Within that level it is {@link #KERNEL}.
     */
    LOCAL("local");

    private final String id;

    Policy(String id) {
        this.id = id;
    }

    /** The name used on the command line and in JSON. */
    public String id() {
        return id;
    }

    /** @throws IllegalArgumentException naming the unknown policy and the known ones */
    public static Policy of(String id) {
        for (Policy policy : values()) {
            if (policy.id.equals(id)) {
                return policy;
            }
        }
        throw new IllegalArgumentException("unknown policy \"" + id + "\"; the policies are kernel, cores, local");
    }
}
