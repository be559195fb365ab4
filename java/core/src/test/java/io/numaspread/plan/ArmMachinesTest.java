// SPDX-License-Identifier: Apache-2.0
package io.numaspread.plan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.numaspread.CpuSet;
import io.numaspread.plan.PriorityCheck.Status;
import io.numaspread.testing.MachineShape;
import io.numaspread.testing.SysfsFixture;
import io.numaspread.testing.Topologies;
import io.numaspread.topology.CpuInfo;
import io.numaspread.topology.Topology;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * ARM server shapes as their arm64 kernels show them in sysfs: no SMT, clusters, several nodes per package, a
 * package id of -1, CPUs numbered across nodes. Discovery reads them, and the planner, whose sibling groups are
 * all single CPUs there, keeps its priorities.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ArmMachinesTest {
    private static final MachineShape KUNPENG = MachineShape.kunpeng920Sockets();

    /** Each shape with the clusters its kernel shows: 4 cores on the Kunpeng 920, 2 elsewhere. */
    private static Topology discover(MachineShape shape, Path root) {
        SysfsFixture.write(shape, root);
        SysfsFixture.writeClusters(root, shape.clusters(shape == KUNPENG ? 4 : 2));
        return SysfsFixture.read(root);
    }

    @Test
    void discoveryReadsEachArmShapeAsBuiltInMemoryAndNoClusterBecomesASiblingGroup(@TempDir Path root) {
        for (MachineShape shape : List.of(KUNPENG, MachineShape.armWithoutPackage(), MachineShape.armInterleaved())) {
            Topology topology = discover(shape, root.resolve(shape.name()));
            assertTrue(topology.sameMachineAs(Topologies.of(shape)), shape.name());
            for (CpuInfo cpu : topology.cpus()) {
                assertEquals(CpuSet.of(cpu.id()), cpu.siblings(), shape.name() + " CPU " + cpu.id());
            }
        }
    }

    @Test
    void aPackageHoldsTwoNodesOnTheKunpengAndIsMinusOneWhereFirmwareNamesNone(@TempDir Path root) {
        Topology kunpeng = discover(KUNPENG, root.resolve("kunpeng"));
        assertEquals(
                List.of(0, 0, 1, 1),
                Stream.of(0, 24, 48, 72)
                        .map(cpu -> kunpeng.cpu(cpu).orElseThrow().packageId())
                        .toList());
        assertEquals(
                List.of(0, 1, 2, 3),
                Stream.of(23, 47, 71, 95)
                        .map(cpu -> kunpeng.cpu(cpu).orElseThrow().node())
                        .toList());
        Topology noPackage = discover(MachineShape.armWithoutPackage(), root.resolve("no-package"));
        assertTrue(noPackage.cpus().stream().allMatch(cpu -> cpu.packageId() == -1));
    }

    /** The seed's order from node 2: its 24 CPUs, then node 3 (16), node 1 (25), node 0 (32), one queue each. */
    @Test
    void kunpengQueuesFromNode2GoToEveryCpuOnceInTheSeedsNodeOrder() {
        Topology topology = Topologies.of(KUNPENG);
        SpreadPlan plan = Planner.plan(topology, PlanRequest.irqs(2, 96));
        List<Integer> expected = Stream.of(
                        IntStream.range(48, 72),
                        IntStream.range(72, 96),
                        IntStream.range(24, 48),
                        IntStream.range(0, 24))
                .flatMapToInt(s -> s)
                .boxed()
                .toList();
        assertEquals(expected, plan.assignments().stream().map(Assignment::cpu).toList());
        assertEquals(
                List.of(2, 3, 1, 0),
                plan.assignments().stream().map(Assignment::node).distinct().toList());
        for (PriorityCheck check : Priorities.check(topology, plan)) {
            assertEquals(Status.HELD, check.status(), check.toString());
        }
    }

    /** A sibling group of one CPU is that CPU: the sibling mode's affinity is the slot CPU alone. */
    @Test
    void withoutSmtTheSiblingModeAndTheCpuModeGiveTheSameAffinities() {
        Topology topology = Topologies.of(KUNPENG);
        for (int count : new int[] {1, 24, 30, 96}) {
            SpreadPlan siblings =
                    Planner.plan(topology, PlanRequest.irqs(2, count).withMode(Mode.SIBLINGS));
            SpreadPlan cpus = Planner.plan(topology, PlanRequest.irqs(2, count).withMode(Mode.CPU));
            assertEquals(
                    cpus.assignments().stream().map(Assignment::cpus).toList(),
                    siblings.assignments().stream().map(Assignment::cpus).toList(),
                    count + " queues");
            assertTrue(siblings.assignments().stream().allMatch(a -> a.cpus().equals(CpuSet.of(a.cpu()))));
        }
    }

    /** Past one queue per CPU a second pass starts over at the origin's node, and the report says why. */
    @Test
    void moreQueuesThanCpusStartASecondPassAtTheNicsNode() {
        Topology topology = Topologies.of(KUNPENG);
        SpreadPlan plan = Planner.plan(topology, PlanRequest.irqs(2, 100));
        assertEquals(
                List.of(48, 49, 50, 51),
                plan.assignments().subList(96, 100).stream()
                        .map(Assignment::cpu)
                        .toList());
        assertEquals(1, plan.get(96).pass());
        assertEquals(
                Status.NOT_POSSIBLE, Priorities.check(topology, plan).get(0).status());
    }

    @Test
    void cpusNumberedAcrossNodesStayOnTheirNode() {
        Topology topology = Topologies.of(MachineShape.armInterleaved());
        SpreadPlan plan = Planner.plan(topology, PlanRequest.irqs(1, 34));
        List<Integer> expected = Stream.concat(
                        IntStream.range(0, 32).map(k -> 2 * k + 1).boxed(), Stream.of(0, 2))
                .toList();
        assertEquals(expected, plan.assignments().stream().map(Assignment::cpu).toList());
    }

    @Test
    void onePackagelessNodeTakesItsCpusInOrder() {
        Topology topology = Topologies.of(MachineShape.armWithoutPackage());
        SpreadPlan plan = Planner.plan(topology, PlanRequest.irqs(0, 8));
        assertEquals(
                List.of(0, 1, 2, 3, 4, 5, 6, 7),
                plan.assignments().stream().map(Assignment::cpu).toList());
    }
}
