// SPDX-License-Identifier: Apache-2.0
package io.numaspread.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.numaspread.CpuSet;
import io.numaspread.kernel.SysfsTree;
import io.numaspread.nativeaccess.Backends;
import io.numaspread.plan.Assignment;
import io.numaspread.plan.Mode;
import io.numaspread.plan.PlanRequest;
import io.numaspread.plan.Planner;
import io.numaspread.testing.MachineShape;
import io.numaspread.testing.SysfsFixture;
import io.numaspread.testing.SysfsFixture.OddKernel;
import io.numaspread.testing.Topologies;
import io.numaspread.topology.NumaNode;
import io.numaspread.topology.Topology;
import io.numaspread.topology.TopologyDiscovery;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The agent's library plans node=N,count=K itself before main; core's {@link Planner} stays the reference. Over
 * every fixture topology of core's tests (the named machines, the 4096-CPU one, offline CPUs, a CPU-less node,
 * isolated CPUs, the NUL-padded files of odd kernels, irregular random machines) and this host's own /sys, each
 * with and without a restricted cpuset (the CPUs the process may use), for every node (and one that does not
 * exist), several counts and both modes, the library's masks must be exactly the Java plan's CPU sets, and it
 * must decline exactly where the Java planner refuses (the agent then lets Java name the culprit).
 */
@Timeout(value = 600, unit = TimeUnit.SECONDS)
class PlanDifferentialTest {
    private record Case(Path root, Topology topology, String allowed) {
    }

    @Test
    void theLibrarysPlanIsTheJavaPlannersOnEveryFixtureTopology(@TempDir Path temp) throws Exception {
        List<MachineShape> shapes = new ArrayList<>(List.of(MachineShape.mana(), MachineShape.kunpeng920(),
                MachineShape.kunpeng920Sockets(), MachineShape.armWithoutPackage(), MachineShape.armInterleaved(),
                MachineShape.singleNodeVm(), MachineShape.noNumaKernel(), MachineShape.intelNumbering(),
                MachineShape.huge4096(), MachineShape.mana().withOffline(CpuSet.of(1, 6)),
                MachineShape.kunpeng920().withOffline(CpuSet.range(0, 3)),
                MachineShape.mana().withCpulessNode(2, new int[] {20, 30, 10}),
                MachineShape.mana().withIsolation(CpuSet.of(2, 3), CpuSet.of(3)),
                MachineShape.smt("smt4-intel", 4, 3, 4, true, Topologies.socketDistances(4, 2))));
        Random random = new Random(17);
        for (int i = 0; i < 24; i++) {
            int nodes = 1 + random.nextInt(5);
            MachineShape shape = Topologies.irregular(random, "irregular-" + i, nodes, 6, 4,
                    Topologies.randomDistances(random, nodes, i % 2 == 1));
            shapes.add(i % 3 == 0 ? shape.withOffline(Topologies.randomSubset(random, shape.online(), 0.3)
                    .minus(CpuSet.of(0))) : shape);
        }
        List<Case> cases = new ArrayList<>();
        for (int i = 0; i < shapes.size(); i++) {
            MachineShape shape = shapes.get(i);
            Path root = SysfsFixture.write(shape, temp.resolve("shape-" + i), OddKernel.values()[i % 3]);
            Topology topology = SysfsFixture.read(root);
            cases.add(new Case(root, topology, null));
            CpuSet restricted = Topologies.randomSubset(random, shape.online(), 0.4);
            cases.add(new Case(root, restrictedTo(topology, restricted), restricted.toString()));
            CpuSet lastNode = topology.nodes().get(topology.nodes().size() - 1).cpus();
            if (!lastNode.isEmpty()) {
                cases.add(new Case(root, restrictedTo(topology, lastNode), lastNode.toString()));
            }
        }
        SysfsTree live = SysfsTree.live();
        cases.add(new Case(live.root(), TopologyDiscovery.discover(Backends.live().backend(), live), null));

        List<String> queries = new ArrayList<>();
        List<String> expected = new ArrayList<>();
        int planned = 0;
        for (Case c : cases) {
            // The first two nodes, the last, and one past it (no such node); enough for 16 nodes too.
            List<Integer> nodes = c.topology().nodes().stream().map(NumaNode::id).toList();
            List<Integer> origins = new ArrayList<>(nodes.subList(0, Math.min(2, nodes.size())));
            if (nodes.size() > 2) {
                origins.add(nodes.get(nodes.size() - 1));
            }
            origins.add(nodes.get(nodes.size() - 1) + 1);
            int candidates = c.topology().online().intersect(c.topology().allowed()).size();
            for (int origin : origins) {
                for (int count : new int[] {1, 2, 3, candidates + 1, 2 * candidates + 3}) {
                    for (Mode mode : Mode.values()) {
                        queries.add(c.root() + "\t" + (c.allowed() == null ? "-" : c.allowed()) + "\t" + origin + "\t"
                                + count + "\t" + (mode == Mode.CPU ? "cpu" : "siblings"));
                        String plan = javaPlan(c.topology(), origin, count, mode);
                        planned += plan.equals("none") ? 0 : 1;
                        expected.add(plan);
                    }
                }
            }
        }
        Path queryFile = temp.resolve("queries.tsv");
        Files.write(queryFile, queries);
        ForkedJvm.Result result = ForkedJvm.run(ForkedJvm.command(ForkedJvm.JDK_25, "threads=none-*,node=0,count=1",
                List.of(), PlanProbe.class, queryFile.toString()));
        assertEquals(0, result.exitCode(), result.describe());
        assertEquals(queries.size(), result.stdout().size(), result.describe());
        for (int q = 0; q < queries.size(); q++) {
            assertEquals(expected.get(q), cpulists(result.stdout().get(q)), "query " + queries.get(q));
        }
        assertTrue(planned > queries.size() / 2, planned + " of " + queries.size() + " queries planned in Java");
    }

    private static Topology restrictedTo(Topology topology, CpuSet allowed) {
        return new Topology(topology.backend(), topology.possible(), topology.online(), allowed, topology.isolated(),
                topology.nohzFull(), topology.nodes(), topology.cpus());
    }

    /** The Java plan's CPU sets, space-separated, or "none" where the planner refuses. */
    private static String javaPlan(Topology topology, int origin, int count, Mode mode) {
        List<Assignment> assignments;
        try {
            assignments = Planner.plan(topology, PlanRequest.threads(origin, count).withMode(mode)).assignments();
        } catch (IllegalArgumentException e) {
            return "none";
        }
        StringBuilder line = new StringBuilder();
        for (Assignment assignment : assignments) {
            line.append(line.length() == 0 ? "" : " ").append(assignment.cpus());
        }
        return line.toString();
    }

    /** The probe's hex masks as cpulists, space-separated, or "none". */
    private static String cpulists(String probeLine) {
        if (probeLine.equals("none")) {
            return probeLine;
        }
        StringBuilder line = new StringBuilder();
        for (String mask : probeLine.split(" ")) {
            String[] hex = mask.split(",");
            long[] words = new long[hex.length];
            for (int w = 0; w < hex.length; w++) {
                words[w] = Long.parseUnsignedLong(hex[w], 16);
            }
            line.append(line.length() == 0 ? "" : " ").append(CpuSet.fromMask(words));
        }
        return line.toString();
    }
}
