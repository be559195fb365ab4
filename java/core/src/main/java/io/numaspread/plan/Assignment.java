// SPDX-License-Identifier: Apache-2.0
package io.numaspread.plan;

import io.numaspread.CpuSet;
import java.util.OptionalInt;

/**
 * Where queue {@code index} of one origin goes.
 *
 * @param index the queue's number within its origin
 * @param cpus its affinity: the sibling group's candidate CPUs, or the slot CPU alone
 * @param cpu its slot CPU
 * @param node the slot CPU's node, -1 when no node claims it
 * @param distance from the origin to {@code node}; empty with no origin or an unknown distance
 * @param level the hop level seen from the origin, 0 for the nearest
 * @param pass 0 while every CPU has at most one queue, 1 when CPUs take a second, and so on
 * @param origin the origin node the queue belongs to; empty when it has none
 */
public record Assignment(
        int index, CpuSet cpus, int cpu, int node, OptionalInt distance, int level, int pass, OptionalInt origin) {

    /** An assignment of a plan with at most one origin, which the queue's distance does not name. */
    public Assignment(int index, CpuSet cpus, int cpu, int node, OptionalInt distance, int level, int pass) {
        this(index, cpus, cpu, node, distance, level, pass, OptionalInt.empty());
    }
}
