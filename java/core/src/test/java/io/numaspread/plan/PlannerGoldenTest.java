// SPDX-License-Identifier: Apache-2.0
package io.numaspread.plan;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.numaspread.CpuSet;
import io.numaspread.testing.MachineShape;
import io.numaspread.testing.SysfsFixture;
import io.numaspread.topology.Topology;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The examples the kernel patches themselves give. */
class PlannerGoldenTest {
    @TempDir
    Path root;

    @Test
    void manaPatchExample() {
        Topology topology = SysfsFixture.topology(MachineShape.mana(), root);
        SpreadPlan plan = Planner.plan(topology, PlanRequest.irqs(0, 8));
        assertEquals(
                List.of("0-1", "2-3", "0-1", "2-3", "4-5", "6-7", "4-5", "6-7"),
                plan.assignments().stream().map(a -> a.cpus().toString()).toList());
        SpreadPlan perCpu = Planner.plan(topology, PlanRequest.irqs(0, 8).withMode(Mode.CPU));
        assertEquals(
                List.of(0, 2, 1, 3, 4, 6, 5, 7),
                perCpu.assignments().stream().map(Assignment::cpu).toList());
        assertEquals(
                List.of("0", "2", "1", "3", "4", "6", "5", "7"),
                perCpu.assignments().stream().map(a -> a.cpus().toString()).toList());
    }

    @Test
    void kunpengPatchExampleGoesToTheNearestNodeNeverNodeZero() {
        Topology topology = SysfsFixture.topology(MachineShape.kunpeng920(), root);
        SpreadPlan plan = Planner.plan(topology, PlanRequest.irqs(2, 48).withMode(Mode.CPU));
        assertEquals(
                IntStream.rangeClosed(48, 95).boxed().toList(),
                plan.assignments().stream().map(Assignment::cpu).toList());
        assertEquals(
                CpuSet.parse("72-95"),
                CpuSet.of(plan.assignments().subList(24, 48).stream()
                        .mapToInt(Assignment::cpu)
                        .toArray()));
    }
}
