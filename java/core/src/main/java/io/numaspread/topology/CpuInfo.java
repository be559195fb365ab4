// SPDX-License-Identifier: Apache-2.0
package io.numaspread.topology;

import io.numaspread.CpuSet;

/**
 * An online CPU: its node (-1 when no node claims it), its package (-1 when unknown), and its SMT sibling
 * group from {@code thread_siblings_list}, restricted to online CPUs.
 */
public record CpuInfo(int id, int node, int packageId, CpuSet siblings) {}
