// SPDX-License-Identifier: Apache-2.0
package io.numaspread.agent;

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
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * The agent's library plans node=N,count=K itself before main; core's {@link Planner} stays the reference. Run
 * with the agent loaded (its library, for this machine's architecture, answers {@link NativeAgent#planThreads})
 * and with core and core's test classes on the class path: over every fixture topology of core's tests (the
 * named machines, the 4096-CPU one, offline CPUs, a CPU-less node, isolated CPUs, the NUL-padded files of odd
 * kernels, irregular random machines), written under {@code args[0]}, and this machine's own /sys, each with and
 * without a restricted cpuset (the CPUs the process may use), for every node (and one that does not exist),
 * several counts and both modes, the library's masks must be exactly the Java plan's CPU sets, and it must
 * decline exactly where the Java planner refuses (the agent then lets Java name the culprit). Prints each
 * difference and a last line "plan-differential ARCH: Q queries, P planned in Java, D differ"; exits 1 when any
 * differ or when Java planned no more than half (a differential over refusals alone would say little).
 * PlanDifferentialTest runs it on the build machine; scripts/vm-checks-agent-plan in the arm64 guest, with
 * {@code --max-cpus 1024}: the 4096-CPU shape (its tree written, read and planned 120 times) is 70% of the run's time
 * on the build machine and more under emulation, and its word arithmetic is the same on every 64-bit Linux, so the
 * build machine's run keeps it. The summary line then says how many shapes were left out.
 */
public final class PlanDifferential {
    private record Case(Path root, Topology topology, String allowed) {}

    private PlanDifferential() {}

    public static void main(String[] args) throws Exception {
        Path dir = Path.of(args[0]);
        int maxCpus = args.length == 3 && args[1].equals("--max-cpus") ? Integer.parseInt(args[2]) : Integer.MAX_VALUE;
        // One seeded stream for the random shapes and then the restricted cpusets: the same cases on every run.
        Random random = new Random(17);
        List<MachineShape> shapes = shapes(random);
        List<MachineShape> kept = shapes.stream()
                .filter(shape -> shape.possible().size() <= maxCpus)
                .toList();
        int queries = 0;
        int planned = 0;
        int differ = 0;
        for (Case c : cases(dir, kept, random)) {
            // The first two nodes, the last, and one past it (no such node); enough for 16 nodes too.
            List<Integer> nodes =
                    c.topology().nodes().stream().map(NumaNode::id).toList();
            List<Integer> origins = new ArrayList<>(nodes.subList(0, Math.min(2, nodes.size())));
            if (nodes.size() > 2) {
                origins.add(nodes.get(nodes.size() - 1));
            }
            origins.add(nodes.get(nodes.size() - 1) + 1);
            int candidates =
                    c.topology().online().intersect(c.topology().allowed()).size();
            for (int origin : origins) {
                for (int count : new int[] {1, 2, 3, candidates + 1, 2 * candidates + 3}) {
                    for (Mode mode : Mode.values()) {
                        String expected = javaPlan(c.topology(), origin, count, mode);
                        String actual = cpulists(
                                NativeAgent.planThreads(
                                        c.root().toString(), c.allowed(), origin, count, mode == Mode.CPU),
                                count);
                        queries++;
                        planned += expected.equals("none") ? 0 : 1;
                        if (!expected.equals(actual)) {
                            differ++;
                            System.out.printf(
                                    "differs: %s allowed %s node %d count %d mode %s: Java %s, library %s%n",
                                    c.root(),
                                    c.allowed() == null ? "-" : c.allowed(),
                                    origin,
                                    count,
                                    mode,
                                    expected,
                                    actual);
                        }
                    }
                }
            }
        }
        System.out.printf(
                "plan-differential %s: %d queries, %d planned in Java, %d differ%s%n",
                System.getProperty("os.arch"),
                queries,
                planned,
                differ,
                kept.size() == shapes.size()
                        ? ""
                        : " (shapes past " + maxCpus + " CPUs left out: " + (shapes.size() - kept.size()) + ")");
        System.exit(differ == 0 && planned > queries / 2 ? 0 : 1);
    }

    private static List<MachineShape> shapes(Random random) {
        List<MachineShape> shapes = new ArrayList<>(List.of(
                MachineShape.mana(),
                MachineShape.kunpeng920(),
                MachineShape.kunpeng920Sockets(),
                MachineShape.armWithoutPackage(),
                MachineShape.armInterleaved(),
                MachineShape.singleNodeVm(),
                MachineShape.noNumaKernel(),
                MachineShape.intelNumbering(),
                MachineShape.huge4096(),
                MachineShape.mana().withOffline(CpuSet.of(1, 6)),
                MachineShape.kunpeng920().withOffline(CpuSet.range(0, 3)),
                MachineShape.mana().withCpulessNode(2, new int[] {20, 30, 10}),
                MachineShape.mana().withIsolation(CpuSet.of(2, 3), CpuSet.of(3)),
                MachineShape.smt("smt4-intel", 4, 3, 4, true, Topologies.socketDistances(4, 2))));
        for (int i = 0; i < 24; i++) {
            int nodes = 1 + random.nextInt(5);
            MachineShape shape = Topologies.irregular(
                    random, "irregular-" + i, nodes, 6, 4, Topologies.randomDistances(random, nodes, i % 2 == 1));
            shapes.add(
                    i % 3 == 0
                            ? shape.withOffline(Topologies.randomSubset(random, shape.online(), 0.3)
                                    .minus(CpuSet.of(0)))
                            : shape);
        }
        return shapes;
    }

    private static List<Case> cases(Path dir, List<MachineShape> shapes, Random random) throws Exception {
        List<Case> cases = new ArrayList<>();
        for (int i = 0; i < shapes.size(); i++) {
            MachineShape shape = shapes.get(i);
            Path root = SysfsFixture.write(shape, dir.resolve("shape-" + i), OddKernel.values()[i % 3]);
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
        cases.add(
                new Case(live.root(), TopologyDiscovery.discover(Backends.live().backend(), live), null));
        return cases;
    }

    private static Topology restrictedTo(Topology topology, CpuSet allowed) {
        return new Topology(
                topology.backend(),
                topology.possible(),
                topology.online(),
                allowed,
                topology.isolated(),
                topology.nohzFull(),
                topology.nodes(),
                topology.cpus());
    }

    /** The Java plan's CPU sets, space-separated, or "none" where the planner refuses. */
    private static String javaPlan(Topology topology, int origin, int count, Mode mode) {
        List<Assignment> assignments;
        try {
            assignments = Planner.plan(
                            topology, PlanRequest.threads(origin, count).withMode(mode))
                    .assignments();
        } catch (IllegalArgumentException e) {
            return "none";
        }
        StringBuilder line = new StringBuilder();
        for (Assignment assignment : assignments) {
            line.append(line.length() == 0 ? "" : " ").append(assignment.cpus());
        }
        return line.toString();
    }

    /** The library's masks ({@code count} masks of equal length) as cpulists, space-separated, or "none". */
    private static String cpulists(long[] masks, int count) {
        if (masks == null) {
            return "none";
        }
        int words = masks.length / count;
        StringBuilder line = new StringBuilder();
        for (int index = 0; index < count; index++) {
            long[] mask = new long[words];
            System.arraycopy(masks, index * words, mask, 0, words);
            line.append(index == 0 ? "" : " ").append(CpuSet.fromMask(mask));
        }
        return line.toString();
    }
}
