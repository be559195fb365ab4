// SPDX-License-Identifier: Apache-2.0
package io.numaspread.plan;

import io.numaspread.CpuSet;
import java.util.OptionalInt;

/**
 * The core of one polled queue's busy-poll thread.
 *
 * @param queue the polled queue's number, 0 for the first
 * @param cpu the CPU the thread spins on
 * @param node that CPU's node, -1 when no node claims it
 * @param distance from the origin to {@code node}; empty with no origin or an unknown distance
 * @param level the hop level seen from the origin, 0 for the nearest
 * @param siblings the CPU's SMT siblings (online or not, itself excluded): kept free or shared, as the request says
 */
public record PollCore(int queue, int cpu, int node, OptionalInt distance, int level, CpuSet siblings) {}
