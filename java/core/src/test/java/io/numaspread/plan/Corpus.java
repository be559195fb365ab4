// SPDX-License-Identifier: Apache-2.0
package io.numaspread.plan;

import io.numaspread.CpuSet;
import io.numaspread.testing.MachineShape;
import io.numaspread.testing.Topologies;
import io.numaspread.topology.Topology;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * Generated machines for the property tests and the quality report: each case is a topology, an origin (-1
 * for none) and the candidate CPUs the placements may use. Seeded, so every run sees the same corpus.
 */
record Corpus(String family, String name, Topology topology, int origin, CpuSet candidates) {

    static final String UNIFORM = "uniform SMT";
    static final String ASYMMETRIC = "asymmetric distances";
    static final String OFFLINE = "offline CPUs";
    static final String RESTRICTED = "restricted allowed set";
    static final String RANDOM = "random";

    static List<String> families() {
        return List.of(UNIFORM, ASYMMETRIC, OFFLINE, RESTRICTED, RANDOM);
    }

    /** Whether every sibling group has the same size and every online CPU is a candidate. */
    boolean uniformSmt() {
        return family.equals(UNIFORM);
    }

    static List<Corpus> generate() {
        Random random = new Random(20231211);
        List<Corpus> corpus = new ArrayList<>();
        for (int threads : new int[] {1, 2, 4}) {
            for (int nodes = 1; nodes <= 4; nodes++) {
                for (int cores : new int[] {1, 3, 4}) {
                    for (boolean intel : new boolean[] {false, true}) {
                        MachineShape shape = MachineShape.smt(
                                "smt" + threads + "-n" + nodes + "-c" + cores + (intel ? "-intel" : ""),
                                nodes,
                                cores,
                                threads,
                                intel,
                                nodes == 4 ? Topologies.socketDistances(4, 2) : Topologies.uniformDistances(nodes, 21));
                        addAllOrigins(corpus, UNIFORM, shape, Topologies.of(shape), null);
                    }
                }
            }
        }
        for (int i = 0; i < 40; i++) {
            int nodes = 2 + random.nextInt(4);
            int threads = new int[] {1, 2, 4}[random.nextInt(3)];
            MachineShape shape = MachineShape.smt(
                    "asym" + i,
                    nodes,
                    1 + random.nextInt(4),
                    threads,
                    random.nextBoolean(),
                    Topologies.randomDistances(random, nodes, i % 2 == 1));
            addAllOrigins(corpus, ASYMMETRIC, shape, Topologies.of(shape), null);
        }
        for (int i = 0; i < 40; i++) {
            int nodes = 1 + random.nextInt(4);
            MachineShape full = MachineShape.smt(
                    "off" + i,
                    nodes,
                    2 + random.nextInt(3),
                    1 + random.nextInt(4),
                    random.nextBoolean(),
                    Topologies.randomDistances(random, nodes, false));
            CpuSet online = Topologies.randomSubset(random, full.online(), 0.75);
            MachineShape shape = full.withOffline(full.online().minus(online));
            addAllOrigins(corpus, OFFLINE, shape, Topologies.of(shape), null);
        }
        for (int i = 0; i < 40; i++) {
            int nodes = 1 + random.nextInt(4);
            MachineShape shape = MachineShape.smt(
                    "allowed" + i,
                    nodes,
                    2 + random.nextInt(3),
                    1 + random.nextInt(2) * (1 + random.nextInt(2)),
                    random.nextBoolean(),
                    Topologies.randomDistances(random, nodes, false));
            addAllOrigins(
                    corpus,
                    RESTRICTED,
                    shape,
                    Topologies.of(shape),
                    Topologies.randomSubset(random, shape.online(), 0.6));
        }
        for (int i = 0; i < 60; i++) {
            int nodes = 1 + random.nextInt(5);
            MachineShape full = Topologies.irregular(
                    random, "random" + i, nodes, 4, 4, Topologies.randomDistances(random, nodes, i % 3 == 0));
            MachineShape shape = i % 2 == 0
                    ? full
                    : full.withOffline(full.online().minus(Topologies.randomSubset(random, full.online(), 0.8)));
            addAllOrigins(
                    corpus,
                    RANDOM,
                    shape,
                    Topologies.of(shape),
                    i % 4 == 1 ? Topologies.randomSubset(random, shape.online(), 0.7) : null);
        }
        return corpus;
    }

    private static void addAllOrigins(
            List<Corpus> corpus, String family, MachineShape shape, Topology topology, CpuSet allowed) {
        CpuSet candidates = allowed == null ? topology.online() : allowed;
        corpus.add(new Corpus(family, shape.name() + "/none", topology, -1, candidates));
        for (int node : shape.nodeIds()) {
            corpus.add(new Corpus(family, shape.name() + "/" + node, topology, node, candidates));
        }
    }

    PlanRequest request(int count) {
        List<Integer> origins = origin < 0 ? List.of() : List.of(origin);
        return PlanRequest.irqs(origins, count).withCpus(candidates);
    }

    @Override
    public String toString() {
        return name;
    }
}
