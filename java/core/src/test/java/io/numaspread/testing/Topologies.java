// SPDX-License-Identifier: Apache-2.0
package io.numaspread.testing;

import io.numaspread.CpuSet;
import io.numaspread.nativeaccess.BackendKind;
import io.numaspread.topology.CpuInfo;
import io.numaspread.topology.NumaNode;
import io.numaspread.topology.Topology;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

/**
 * Builds in memory the topology that discovery reads from a {@link MachineShape}'s sysfs tree (a test pins the
 * two together), and generates corpora of shapes for property tests, the quality report and benchmarks.
 */
public final class Topologies {
    private Topologies() {}

    public static Topology of(MachineShape shape) {
        List<NumaNode> nodes = new ArrayList<>();
        for (int i = 0; i < shape.nodeIds().size(); i++) {
            nodes.add(new NumaNode(
                    shape.nodeIds().get(i),
                    shape.nodeCpus().get(i).intersect(shape.online()),
                    Arrays.stream(shape.distances()[i]).boxed().toList()));
        }
        List<CpuInfo> cpus = new ArrayList<>();
        for (int cpu : shape.online().toArray()) {
            int core = shape.coreOf(cpu);
            cpus.add(new CpuInfo(
                    cpu,
                    shape.nodeOf(cpu),
                    shape.packages().get(core),
                    shape.cores().get(core).intersect(shape.online())));
        }
        return new Topology(
                BackendKind.SYSFS,
                shape.possible(),
                shape.online(),
                shape.online(),
                shape.isolated(),
                shape.nohzFull(),
                nodes,
                cpus);
    }

    /** {@code nodes} nodes with distance 10 to themselves and {@code remote} to every other node. */
    public static int[][] uniformDistances(int nodes, int remote) {
        int[][] distances = new int[nodes][nodes];
        for (int a = 0; a < nodes; a++) {
            for (int b = 0; b < nodes; b++) {
                distances[a][b] = a == b ? 10 : remote;
            }
        }
        return distances;
    }

    /** Nodes in sockets of {@code perSocket}: 10 local, 12 within a socket, 32 across. */
    public static int[][] socketDistances(int nodes, int perSocket) {
        int[][] distances = new int[nodes][nodes];
        for (int a = 0; a < nodes; a++) {
            for (int b = 0; b < nodes; b++) {
                distances[a][b] = a == b ? 10 : (a / perSocket == b / perSocket ? 12 : 32);
            }
        }
        return distances;
    }

    /** Random distances: 10 on the diagonal, 11-40 elsewhere, symmetric unless {@code asymmetric}. */
    public static int[][] randomDistances(Random random, int nodes, boolean asymmetric) {
        int[][] distances = new int[nodes][nodes];
        int[] choices = {12, 16, 20, 21, 25, 32, 33, 40};
        for (int a = 0; a < nodes; a++) {
            distances[a][a] = 10;
            for (int b = a + 1; b < nodes; b++) {
                distances[a][b] = choices[random.nextInt(choices.length)];
                distances[b][a] =
                        asymmetric && random.nextBoolean() ? choices[random.nextInt(choices.length)] : distances[a][b];
            }
        }
        return distances;
    }

    /**
     * An irregular machine: every node has its own number of cores, and every core 1 to {@code maxThreads}
     * threads, numbered core-major.
     */
    public static MachineShape irregular(
            Random random, String name, int nodes, int maxCores, int maxThreads, int[][] distances) {
        List<CpuSet> cores = new ArrayList<>();
        List<Integer> packages = new ArrayList<>();
        List<Integer> nodeIds = new ArrayList<>();
        List<CpuSet> nodeCpus = new ArrayList<>();
        int next = 0;
        for (int node = 0; node < nodes; node++) {
            CpuSet.Builder cpus = CpuSet.builder();
            int coreCount = 1 + random.nextInt(maxCores);
            for (int c = 0; c < coreCount; c++) {
                int threads = 1 + random.nextInt(maxThreads);
                CpuSet core = CpuSet.range(next, next + threads - 1);
                next += threads;
                cores.add(core);
                packages.add(node);
                cpus.addAll(core);
            }
            nodeIds.add(node);
            nodeCpus.add(cpus.build());
        }
        CpuSet all = CpuSet.range(0, next - 1);
        return new MachineShape(
                name, all, all, nodeIds, nodeCpus, distances, cores, packages, CpuSet.EMPTY, CpuSet.EMPTY);
    }

    /** A random subset of {@code cpus} with each CPU kept at probability {@code keep}, never empty. */
    public static CpuSet randomSubset(Random random, CpuSet cpus, double keep) {
        CpuSet.Builder kept = CpuSet.builder();
        cpus.forEachCpu(cpu -> {
            if (random.nextDouble() < keep) {
                kept.add(cpu);
            }
        });
        CpuSet subset = kept.build();
        return subset.isEmpty() ? CpuSet.of(cpus.nth(random.nextInt(cpus.size()))) : subset;
    }
}
