// SPDX-License-Identifier: Apache-2.0
package io.numaspread.topology;

import io.numaspread.CpuSet;
import java.util.List;

/**
 * A NUMA node: its online CPUs, and its distances to every node of the topology, in the topology's node
 * order. A distance of 0 means the kernel does not know it.
 */
public record NumaNode(int id, CpuSet cpus, List<Integer> distances) {
    public NumaNode {
        distances = List.copyOf(distances);
    }
}
