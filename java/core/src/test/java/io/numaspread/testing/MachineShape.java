// SPDX-License-Identifier: Apache-2.0
package io.numaspread.testing;

import io.numaspread.CpuSet;
import java.util.ArrayList;
import java.util.List;

/**
 * The shape of a real machine, as the kernel describes it in sysfs: what {@link SysfsFixture} writes.
 *
 * @param nodeIds the online node ids, ascending; empty for a kernel built without NUMA
 * @param nodeCpus each node's CPUs (online and offline), in {@code nodeIds} order
 * @param distances the distance matrix, in {@code nodeIds} order
 * @param cores each core's hardware threads (its sibling group when all are online)
 * @param packages each core's package, in {@code cores} order
 */
public record MachineShape(
        String name,
        CpuSet possible,
        CpuSet online,
        List<Integer> nodeIds,
        List<CpuSet> nodeCpus,
        int[][] distances,
        List<CpuSet> cores,
        List<Integer> packages,
        CpuSet isolated,
        CpuSet nohzFull) {

    /** The 2-node, 4-core, 8-CPU machine of the mana irq_setup() patch: node 0 = CPUs 0-3, siblings 0-1, 2-3, ... */
    public static MachineShape mana() {
        return smt("mana", 2, 2, 2, false, new int[][] {{10, 21}, {21, 10}});
    }

    /** The Huawei Kunpeng 920 of the cpumask_local_spread() patch: 4 nodes of 24 CPUs, no SMT. */
    public static MachineShape kunpeng920() {
        return smt("kunpeng920", 4, 24, 1, false, new int[][] {
            {10, 16, 32, 33}, {16, 10, 25, 32}, {32, 25, 10, 16}, {33, 32, 16, 10}
        });
    }

    /**
     * The Kunpeng 920 as its arm64 kernel shows it: 2 sockets of 2 nodes (dies) with the seed's distances, 24
     * cores per node numbered across the nodes (node 1 is CPUs 24-47), no SMT, and physical_package_id the
     * socket, so a package holds several nodes. Its clusters of 4 cores come from {@link #clusters}.
     */
    public static MachineShape kunpeng920Sockets() {
        MachineShape dies = kunpeng920();
        return oneThreadPerCore("kunpeng920-sockets", dies.nodeCpus, dies.distances, node -> node / 2);
    }

    /**
     * An arm64 server whose firmware describes no package, so every physical_package_id reads -1: 64 cores,
     * one node, no SMT (the shape of a Graviton2-class instance).
     */
    public static MachineShape armWithoutPackage() {
        return oneThreadPerCore("arm-without-package", List.of(CpuSet.range(0, 63)), new int[][] {{10}}, node -> -1);
    }

    /**
     * CPUs numbered across nodes: 2 sockets of one node and 32 cores each, no SMT, whose firmware lists the
     * cores of the two sockets alternately (the ACPI MADT order sets the numbering), so CPU n is on node n mod 2.
     */
    public static MachineShape armInterleaved() {
        CpuSet.Builder even = CpuSet.builder();
        CpuSet.Builder odd = CpuSet.builder();
        for (int cpu = 0; cpu < 64; cpu++) {
            (cpu % 2 == 0 ? even : odd).add(cpu);
        }
        return oneThreadPerCore(
                "arm-interleaved", List.of(even.build(), odd.build()), new int[][] {{10, 20}, {20, 10}}, node -> node);
    }

    /** Nodes of single-thread cores (ARM servers have no SMT), each node's package given by {@code packageOfNode}. */
    private static MachineShape oneThreadPerCore(
            String name, List<CpuSet> nodeCpus, int[][] distances, java.util.function.IntUnaryOperator packageOfNode) {
        CpuSet.Builder all = CpuSet.builder();
        nodeCpus.forEach(all::addAll);
        CpuSet cpus = all.build();
        List<CpuSet> cores = new ArrayList<>();
        List<Integer> packages = new ArrayList<>();
        List<Integer> nodeIds = new ArrayList<>();
        for (int node = 0; node < nodeCpus.size(); node++) {
            nodeIds.add(node);
        }
        for (int cpu : cpus.toArray()) {
            cores.add(CpuSet.of(cpu));
            for (int node = 0; node < nodeCpus.size(); node++) {
                if (nodeCpus.get(node).contains(cpu)) {
                    packages.add(packageOfNode.applyAsInt(node));
                }
            }
        }
        return new MachineShape(
                name, cpus, cpus, nodeIds, nodeCpus, distances, cores, packages, CpuSet.EMPTY, CpuSet.EMPTY);
    }

    /**
     * The clusters an arm64 kernel shows in cluster_cpus_list for this machine: each node's CPUs in ascending
     * order, {@code cpusPerCluster} at a time (cores sharing an L2 or L3 tag, e.g. 4 on the Kunpeng 920).
     */
    public List<CpuSet> clusters(int cpusPerCluster) {
        List<CpuSet> clusters = new ArrayList<>();
        for (CpuSet node : nodeCpus) {
            int[] cpus = node.toArray();
            for (int start = 0; start < cpus.length; start += cpusPerCluster) {
                CpuSet.Builder cluster = CpuSet.builder();
                for (int k = start; k < Math.min(cpus.length, start + cpusPerCluster); k++) {
                    cluster.add(cpus[k]);
                }
                clusters.add(cluster.build());
            }
        }
        return clusters;
    }

    /** A cloud VM with NUMA compiled in and one node: 4 CPUs, 2 cores with 2 threads each. */
    public static MachineShape singleNodeVm() {
        return smt("single-node-vm", 1, 2, 2, false, new int[][] {{10}});
    }

    /** A kernel built without CONFIG_NUMA: no devices/system/node at all. */
    public static MachineShape noNumaKernel() {
        MachineShape vm = smt("no-numa-kernel", 1, 2, 1, false, new int[][] {{10}});
        return new MachineShape(
                vm.name,
                vm.possible,
                vm.online,
                List.of(),
                List.of(),
                new int[0][0],
                vm.cores,
                vm.packages,
                vm.isolated,
                vm.nohzFull);
    }

    /** Intel-style numbering: 2 sockets of 4 cores with 2 threads; CPU n's sibling is n + 8. */
    public static MachineShape intelNumbering() {
        return smt("intel-numbering", 2, 4, 2, true, new int[][] {{10, 21}, {21, 10}});
    }

    /** 16 nodes, 2048 cores, 4096 CPUs with Intel numbering: far beyond a 1024-bit cpu_set_t. */
    public static MachineShape huge4096() {
        int nodes = 16;
        int[][] distances = new int[nodes][nodes];
        for (int a = 0; a < nodes; a++) {
            for (int b = 0; b < nodes; b++) {
                distances[a][b] = a == b ? 10 : (a / 4 == b / 4 ? 12 : 32);
            }
        }
        return smt("huge-4096", nodes, 128, 2, true, distances);
    }

    /**
     * A uniform machine: {@code nodes} nodes (one per package), {@code coresPerNode} cores each, with
     * {@code threads} hardware threads per core, numbered core-major ({@code 0,1 | 2,3}) or, with
     * {@code intelNumbering}, thread-major (CPU n's siblings are n + k * total cores).
     */
    public static MachineShape smt(
            String name, int nodes, int coresPerNode, int threads, boolean intelNumbering, int[][] distances) {
        int totalCores = nodes * coresPerNode;
        List<CpuSet> cores = new ArrayList<>();
        List<Integer> packages = new ArrayList<>();
        List<CpuSet.Builder> nodeCpus = new ArrayList<>();
        List<Integer> nodeIds = new ArrayList<>();
        for (int node = 0; node < nodes; node++) {
            nodeCpus.add(CpuSet.builder());
            nodeIds.add(node);
        }
        for (int core = 0; core < totalCores; core++) {
            CpuSet.Builder threadsOfCore = CpuSet.builder();
            for (int t = 0; t < threads; t++) {
                threadsOfCore.add(intelNumbering ? core + t * totalCores : core * threads + t);
            }
            CpuSet coreCpus = threadsOfCore.build();
            cores.add(coreCpus);
            packages.add(core / coresPerNode);
            nodeCpus.get(core / coresPerNode).addAll(coreCpus);
        }
        CpuSet all = CpuSet.range(0, totalCores * threads - 1);
        return new MachineShape(
                name,
                all,
                all,
                nodeIds,
                nodeCpus.stream().map(CpuSet.Builder::build).toList(),
                distances,
                cores,
                packages,
                CpuSet.EMPTY,
                CpuSet.EMPTY);
    }

    public MachineShape named(String newName) {
        return new MachineShape(
                newName, possible, online, nodeIds, nodeCpus, distances, cores, packages, isolated, nohzFull);
    }

    /** The same machine with {@code cpus} taken offline. */
    public MachineShape withOffline(CpuSet cpus) {
        return new MachineShape(
                name + "-offline-" + cpus,
                possible,
                online.minus(cpus),
                nodeIds,
                nodeCpus,
                distances,
                cores,
                packages,
                isolated,
                nohzFull);
    }

    /** The same machine booted with {@code isolcpus=} and {@code nohz_full=}. */
    public MachineShape withIsolation(CpuSet isolatedCpus, CpuSet nohzFullCpus) {
        return new MachineShape(
                name, possible, online, nodeIds, nodeCpus, distances, cores, packages, isolatedCpus, nohzFullCpus);
    }

    /** The same machine plus a memory-only node (no CPUs) with the given distance row. */
    public MachineShape withCpulessNode(int id, int[] distanceRow) {
        List<Integer> ids = new ArrayList<>(nodeIds);
        ids.add(id);
        List<CpuSet> cpus = new ArrayList<>(nodeCpus);
        cpus.add(CpuSet.EMPTY);
        int[][] matrix = new int[ids.size()][];
        for (int i = 0; i < nodeIds.size(); i++) {
            matrix[i] = java.util.Arrays.copyOf(distances[i], ids.size());
            matrix[i][ids.size() - 1] = distanceRow[i];
        }
        matrix[ids.size() - 1] = distanceRow.clone();
        return new MachineShape(
                name + "-cpuless-node", possible, online, ids, cpus, matrix, cores, packages, isolated, nohzFull);
    }

    /** The node of {@code cpu}, or -1. */
    public int nodeOf(int cpu) {
        for (int i = 0; i < nodeIds.size(); i++) {
            if (nodeCpus.get(i).contains(cpu)) {
                return nodeIds.get(i);
            }
        }
        return -1;
    }

    /** The core (all threads, online or not) that {@code cpu} belongs to. */
    public int coreOf(int cpu) {
        for (int i = 0; i < cores.size(); i++) {
            if (cores.get(i).contains(cpu)) {
                return i;
            }
        }
        throw new IllegalArgumentException("CPU " + cpu + " is in no core of " + name);
    }

    @Override
    public String toString() {
        return name;
    }
}
