// SPDX-License-Identifier: Apache-2.0
/**
 * The machine as the planner sees it: NUMA nodes, their distances, CPUs with their package and SMT siblings,
 * and which CPUs are online, allowed to this process, isolated or nohz_full.
 *
 * <pre>{@code
 * Topology topology = TopologyDiscovery.discover(Backends.live().backend(), SysfsTree.live());
 * topology.nodes();                 // each node's CPUs
 * topology.siblings(3);             // CPU 3's SMT sibling group
 * topology.distance(0, 1);          // numa_distance, empty when the kernel does not know it
 * }</pre>
 */
package io.numaspread.topology;
