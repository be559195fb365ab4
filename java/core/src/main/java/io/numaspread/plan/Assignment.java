package io.numaspread.plan;

import io.numaspread.CpuSet;
import java.util.OptionalInt;

/**
 * Where queue {@code index} goes.
 *
 * @param cpus its affinity: the sibling group's candidate CPUs, or the slot CPU alone
 * @param cpu its slot CPU
 * @param node the slot CPU's node
 * @param distance from the origin to {@code node}; empty with no origin or an unknown distance
 * @param level the hop level, 0 for the origin's own level
 * @param pass 0 while every CPU has at most one queue, 1 when CPUs take a second, and so on
 */
public record Assignment(int index, CpuSet cpus, int cpu, int node, OptionalInt distance, int level, int pass) {
}
