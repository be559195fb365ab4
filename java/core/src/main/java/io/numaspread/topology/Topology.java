// SPDX-License-Identifier: Apache-2.0
package io.numaspread.topology;

import io.numaspread.CpuSet;
import io.numaspread.nativeaccess.BackendKind;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * What the kernel says about this machine: NUMA nodes and distances, online CPUs with their sibling groups
 * and packages, the CPUs this process may use, and the CPUs kept from general work (isolated, nohz_full).
 * Immutable.
 */
public final class Topology {
    private final BackendKind backend;
    private final CpuSet possible;
    private final CpuSet online;
    private final CpuSet allowed;
    private final CpuSet isolated;
    private final CpuSet nohzFull;
    private final List<NumaNode> nodes;
    private final List<CpuInfo> cpus;
    private final Map<Integer, Integer> nodeIndex = new HashMap<>();
    private final Map<Integer, CpuInfo> cpuById = new HashMap<>();

    /**
     * @param backend which backend supplied the NUMA facts
     * @param nodes ordered by id; each node's distances follow this order
     * @param cpus the online CPUs, ordered by id
     */
    public Topology(
            BackendKind backend,
            CpuSet possible,
            CpuSet online,
            CpuSet allowed,
            CpuSet isolated,
            CpuSet nohzFull,
            List<NumaNode> nodes,
            List<CpuInfo> cpus) {
        this.backend = Objects.requireNonNull(backend);
        this.possible = possible;
        this.online = online;
        this.allowed = allowed;
        this.isolated = isolated;
        this.nohzFull = nohzFull;
        this.nodes = List.copyOf(nodes);
        this.cpus = List.copyOf(cpus);
        for (int i = 0; i < this.nodes.size(); i++) {
            NumaNode node = this.nodes.get(i);
            if (node.distances().size() != this.nodes.size()) {
                throw new IllegalArgumentException("node " + node.id() + " has "
                        + node.distances().size() + " distances for " + this.nodes.size() + " nodes");
            }
            nodeIndex.put(node.id(), i);
        }
        for (CpuInfo cpu : this.cpus) {
            cpuById.put(cpu.id(), cpu);
        }
    }

    public BackendKind backend() {
        return backend;
    }

    public CpuSet possible() {
        return possible;
    }

    public CpuSet online() {
        return online;
    }

    /** The CPUs this process may run on ({@code sched_getaffinity}; a container's cpuset shows here). */
    public CpuSet allowed() {
        return allowed;
    }

    /** {@code cpu/isolated}: CPUs removed from the scheduler's domains ({@code isolcpus=}). */
    public CpuSet isolated() {
        return isolated;
    }

    /** {@code cpu/nohz_full}: CPUs running tickless. */
    public CpuSet nohzFull() {
        return nohzFull;
    }

    public List<NumaNode> nodes() {
        return nodes;
    }

    public List<CpuInfo> cpus() {
        return cpus;
    }

    public Optional<NumaNode> node(int id) {
        Integer index = nodeIndex.get(id);
        return index == null ? Optional.empty() : Optional.of(nodes.get(index));
    }

    public Optional<CpuInfo> cpu(int id) {
        return Optional.ofNullable(cpuById.get(id));
    }

    /** The SMT sibling group of an online CPU, or the CPU alone if it is not online. */
    public CpuSet siblings(int cpu) {
        CpuInfo info = cpuById.get(cpu);
        return info == null ? CpuSet.of(cpu) : info.siblings();
    }

    /** The distance between two nodes, or empty when either node is unknown or the kernel reports 0. */
    public OptionalInt distance(int from, int to) {
        Integer fromIndex = nodeIndex.get(from);
        Integer toIndex = nodeIndex.get(to);
        if (fromIndex == null || toIndex == null) {
            return OptionalInt.empty();
        }
        int distance = nodes.get(fromIndex).distances().get(toIndex);
        return distance == 0 ? OptionalInt.empty() : OptionalInt.of(distance);
    }

    /** The same machine as seen by a process whose allowed CPUs are {@code allowed}. */
    public Topology withAllowed(CpuSet allowed) {
        return new Topology(backend, possible, online, allowed, isolated, nohzFull, nodes, cpus);
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof Topology that
                && backend == that.backend
                && possible.equals(that.possible)
                && online.equals(that.online)
                && allowed.equals(that.allowed)
                && isolated.equals(that.isolated)
                && nohzFull.equals(that.nohzFull)
                && nodes.equals(that.nodes)
                && cpus.equals(that.cpus);
    }

    /** Equal but for the backend that produced it: what the differential tests compare. */
    public boolean sameMachineAs(Topology other) {
        return withBackendOf(other).equals(other);
    }

    private Topology withBackendOf(Topology other) {
        return new Topology(other.backend, possible, online, allowed, isolated, nohzFull, nodes, cpus);
    }

    @Override
    public int hashCode() {
        return Objects.hash(backend, possible, online, allowed, isolated, nohzFull, nodes, cpus);
    }

    @Override
    public String toString() {
        return "Topology[backend=" + backend.id() + ", nodes=" + nodes + ", online=" + online + ", allowed=" + allowed
                + ", isolated=" + isolated + ", nohzFull=" + nohzFull + "]";
    }
}
