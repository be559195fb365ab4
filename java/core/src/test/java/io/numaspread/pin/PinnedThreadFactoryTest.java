// SPDX-License-Identifier: Apache-2.0
package io.numaspread.pin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.numaspread.CpuSet;
import io.numaspread.kernel.SysfsTree;
import io.numaspread.nativeaccess.Backends;
import io.numaspread.plan.Assignment;
import io.numaspread.plan.PlanRequest;
import io.numaspread.plan.Planner;
import io.numaspread.plan.SpreadPlan;
import io.numaspread.testing.MachineShape;
import io.numaspread.testing.ProcStatus;
import io.numaspread.testing.SysfsFixture;
import io.numaspread.topology.Topology;
import io.numaspread.topology.TopologyDiscovery;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PinnedThreadFactoryTest {
    @Test
    void theKthThreadPinsItselfToAssignmentKModN() throws Exception {
        ThreadPinner pinner = ThreadPinner.live();
        Topology live = TopologyDiscovery.discover(pinner.backend(), SysfsTree.live());
        SpreadPlan plan = Planner.plan(live, PlanRequest.threads(0, 2).withMode(io.numaspread.plan.Mode.CPU));
        PinnedThreadFactory factory =
                PinnedThreadFactory.builder(plan, pinner).names("worker-%02d").build();

        ConcurrentMap<String, CpuSet> seenFromInside = new ConcurrentHashMap<>();
        List<Thread> threads = new ArrayList<>();
        for (int k = 0; k < 5; k++) {
            threads.add(factory.newThread(() ->
                    seenFromInside.put(Thread.currentThread().getName(), ProcStatus.cpusAllowed(pinner.currentTid()))));
        }
        for (Thread thread : threads) {
            thread.start();
            thread.join();
        }

        for (int k = 0; k < 5; k++) {
            String name = String.format("worker-%02d", k);
            assertEquals(name, threads.get(k).getName());
            assertEquals(plan.get(k % 2).cpus(), seenFromInside.get(name), name);
        }
        List<PinnedThreadFactory.ThreadPin> pins = factory.pins();
        assertEquals(
                List.of(0, 1, 2, 3, 4),
                pins.stream().map(PinnedThreadFactory.ThreadPin::threadIndex).toList());
        assertTrue(pins.stream().allMatch(PinnedThreadFactory.ThreadPin::pinned));
        assertEquals(
                List.of(0, 1, 0, 1, 0),
                pins.stream().map(p -> p.assignment().index()).toList());
    }

    @Test
    void aPlanOutsideTheAllowedSetFailsWhenTheFactoryIsBuilt(@TempDir Path root) throws Exception {
        Topology mana = SysfsFixture.topology(MachineShape.mana(), root);
        SpreadPlan everywhere = Planner.plan(mana, PlanRequest.irqs(0, 4));
        ThreadPinner inContainer = new ThreadPinner(Backends.live().backend(), CpuSet.range(2, 5));
        CpusNotAllowedException refused = assertThrows(
                CpusNotAllowedException.class,
                () -> PinnedThreadFactory.builder(everywhere, inContainer).build());
        assertTrue(
                refused.getMessage().startsWith("CPUs 0-1 are outside the CPUs this process may use (2-5"),
                refused.getMessage());
    }

    @Test
    void aBadNamePatternIsRefusedNamingIt(@TempDir Path root) throws Exception {
        SpreadPlan plan = Planner.plan(SysfsFixture.topology(MachineShape.mana(), root), PlanRequest.threads(0, 1));
        IllegalArgumentException refused = assertThrows(
                IllegalArgumentException.class,
                () -> PinnedThreadFactory.builder(plan, ThreadPinner.live()).names("io-%s-%d"));
        assertTrue(
                refused.getMessage().startsWith("thread name pattern \"io-%s-%d\" is not a format for one int"),
                refused.getMessage());
    }

    @Test
    void theThreadsPlanStaysInsideAContainersCpuset(@TempDir Path root) {
        Topology container = SysfsFixture.topology(MachineShape.mana(), root).withAllowed(CpuSet.range(2, 5));
        for (int count = 1; count <= 12; count++) {
            SpreadPlan plan = Planner.plan(container, PlanRequest.threads(0, count));
            for (Assignment assignment : plan.assignments()) {
                assertTrue(CpuSet.range(2, 5).containsAll(assignment.cpus()), count + " threads: " + assignment);
            }
        }
    }

    /** A JVM started under {@code taskset -c 1}: its allowed set, its plan and its pinned threads stay on CPU 1. */
    @Test
    void aJvmRestrictedByTasksetPlansAndPinsOnlyInsideIt() throws Exception {
        Process child = new ProcessBuilder(
                        "taskset",
                        "-c",
                        "1",
                        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                        "--enable-native-access=ALL-UNNAMED",
                        "-cp",
                        System.getProperty("java.class.path"),
                        RestrictedJvm.class.getName())
                .redirectErrorStream(true)
                .start();
        String output = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, child.waitFor(), output);
        assertEquals("allowed 1\nplan 1,1,1\npinned 1,1,1\n", lastLines(output, 3), output);
    }

    private static String lastLines(String output, int count) throws IOException {
        List<String> lines = output.lines().toList();
        return String.join("\n", lines.subList(Math.max(0, lines.size() - count), lines.size())) + "\n";
    }
}
