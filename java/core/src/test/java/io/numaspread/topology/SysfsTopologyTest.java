// SPDX-License-Identifier: Apache-2.0
package io.numaspread.topology;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.numaspread.CpuSet;
import io.numaspread.nativeaccess.BackendKind;
import io.numaspread.testing.MachineShape;
import io.numaspread.testing.SysfsFixture;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SysfsTopologyTest {
    @TempDir
    Path root;

    @Test
    void manaMachine() {
        Topology topology = SysfsFixture.topology(MachineShape.mana(), root);
        assertEquals(BackendKind.SYSFS, topology.backend());
        assertEquals(List.of(0, 1), topology.nodes().stream().map(NumaNode::id).toList());
        assertEquals(CpuSet.parse("0-3"), topology.node(0).orElseThrow().cpus());
        assertEquals(CpuSet.parse("4-7"), topology.node(1).orElseThrow().cpus());
        assertEquals(OptionalInt.of(21), topology.distance(0, 1));
        assertEquals(CpuSet.parse("2-3"), topology.siblings(3));
        assertEquals(1, topology.cpu(5).orElseThrow().packageId());
        assertEquals(topology.online(), topology.allowed());
    }

    @Test
    void kunpengDistances() {
        Topology topology = SysfsFixture.topology(MachineShape.kunpeng920(), root);
        assertEquals(List.of(32, 25, 10, 16), topology.node(2).orElseThrow().distances());
        assertEquals(CpuSet.parse("72-95"), topology.node(3).orElseThrow().cpus());
        assertEquals(CpuSet.of(50), topology.siblings(50));
    }

    @Test
    void kernelWithoutNumaIsOneNode() {
        Topology topology = SysfsFixture.topology(MachineShape.noNumaKernel(), root);
        assertEquals(1, topology.nodes().size());
        assertEquals(topology.online(), topology.node(0).orElseThrow().cpus());
        assertEquals(OptionalInt.of(10), topology.distance(0, 0));
    }

    @Test
    void offlineCpusAppearInNoNodeAndInNoSiblingGroup() {
        MachineShape shape = MachineShape.mana().withOffline(CpuSet.of(3, 6));
        Topology topology = SysfsFixture.topology(shape, root);
        assertEquals(CpuSet.parse("0-2"), topology.node(0).orElseThrow().cpus());
        assertEquals(CpuSet.of(2), topology.siblings(2));
        assertTrue(topology.cpu(6).isEmpty());
        assertEquals(CpuSet.parse("0-2,4-5,7"), topology.online());
    }

    @Test
    void machineWith4096Cpus() {
        Topology topology = SysfsFixture.topology(MachineShape.huge4096(), root);
        assertEquals(4096, topology.online().size());
        assertEquals(16, topology.nodes().size());
        assertEquals(CpuSet.of(4095 - 2048, 4095), topology.siblings(4095));
        assertEquals(15, topology.cpu(4095).orElseThrow().node());
    }

    @Test
    void intelStyleSiblingNumbering() {
        Topology topology = SysfsFixture.topology(MachineShape.intelNumbering(), root);
        assertEquals(CpuSet.of(3, 11), topology.siblings(3));
        assertEquals(CpuSet.parse("0-3,8-11"), topology.node(0).orElseThrow().cpus());
        assertEquals(1, topology.cpu(12).orElseThrow().packageId());
    }

    @Test
    void cpulessNodeHasDistancesButNoCpus() {
        MachineShape shape = MachineShape.mana().withCpulessNode(2, new int[] {17, 28, 10});
        Topology topology = SysfsFixture.topology(shape, root);
        assertEquals(3, topology.nodes().size());
        assertTrue(topology.node(2).orElseThrow().cpus().isEmpty());
        assertEquals(OptionalInt.of(28), topology.distance(1, 2));
        assertEquals(List.of(21, 10, 28), topology.node(1).orElseThrow().distances());
    }

    @Test
    void isolatedAndNohzFullCpus() {
        MachineShape shape = MachineShape.mana().withIsolation(CpuSet.parse("6-7"), CpuSet.parse("5-7"));
        Topology topology = SysfsFixture.topology(shape, root);
        assertEquals(CpuSet.parse("6-7"), topology.isolated());
        assertEquals(CpuSet.parse("5-7"), topology.nohzFull());
    }

    @Test
    void optionalFilesMayBeAbsent() throws IOException {
        SysfsFixture.write(MachineShape.mana(), root);
        Files.delete(root.resolve("devices/system/cpu/isolated"));
        Files.delete(root.resolve("devices/system/cpu/cpu1/topology/core_cpus_list"));
        Files.delete(root.resolve("devices/system/cpu/cpu1/online"));
        Topology topology = SysfsFixture.read(root);
        assertEquals(CpuSet.EMPTY, topology.isolated());
        assertEquals(CpuSet.EMPTY, topology.nohzFull());
        assertEquals(8, topology.cpus().size());
    }

    @Test
    void nohzFullPrintedAsNullMeansNone() {
        SysfsFixture.write(MachineShape.mana(), root);
        SysfsFixture.write(root, "devices/system/cpu/nohz_full", "(null)");
        assertEquals(CpuSet.EMPTY, SysfsFixture.read(root).nohzFull());
    }
}
