// SPDX-License-Identifier: Apache-2.0
package io.numaspread.nic;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.numaspread.CpuSet;
import io.numaspread.NumaspreadException;
import io.numaspread.kernel.InterfaceName;
import io.numaspread.kernel.KernelPaths;
import io.numaspread.testing.MachineShape;
import io.numaspread.testing.NicFixture;
import io.numaspread.testing.SysfsFixture;
import io.numaspread.topology.Topology;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

class NicDiscoveryTest {
    @TempDir
    Path sys;

    @TempDir
    Path proc;

    private KernelPaths paths() {
        return new KernelPaths(proc, sys);
    }

    @ParameterizedTest
    @EnumSource(NicFixture.ChipStyle.class)
    void virtioWalksUpFromTheVirtioDeviceToThePciFunction(NicFixture.ChipStyle style) {
        NicFixture.virtio(sys, proc, MachineShape.singleNodeVm())
                .chipStyle(style)
                .write();
        Nic nic = NicDiscovery.discover(new InterfaceName("eth0"), paths());
        assertEquals("0000:00:03.0", nic.pciAddress());
        assertEquals("virtio_net", nic.driver());
        assertEquals("virtio", nic.grouping().scheme());
        assertEquals(
                List.of(37, 38, 39), nic.vectors().stream().map(NicVector::irq).toList());
        assertEquals(
                List.of("virtio2-config", "virtio2-input.0", "virtio2-output.0"),
                nic.vectors().stream().map(NicVector::name).toList());
        assertEquals(List.of(0), nic.queues());
        assertEquals(
                List.of(38, 39), nic.queueVectors().stream().map(NicVector::irq).toList());
        assertEquals(List.of(0), nic.txQueues());
    }

    @Test
    void originIsNumaNodeWhenTheFirmwareSaysIt() {
        Topology mana = SysfsFixture.topology(MachineShape.mana(), sys);
        mlx5(1, "4-7");
        Nic nic = NicDiscovery.discover(new InterfaceName("enp8s0"), paths());
        assertEquals(Optional.of(1), nic.origin(mana));
        assertEquals("numa_node 1", nic.originReason(mana));
        assertEquals(List.of(0, 1, 2, 3), nic.queues());
    }

    @Test
    void originFallsBackToTheNodeOfLocalCpulist() {
        Topology mana = SysfsFixture.topology(MachineShape.mana(), sys);
        mlx5(-1, "4-7");
        Nic nic = NicDiscovery.discover(new InterfaceName("enp8s0"), paths());
        assertEquals(Optional.of(1), nic.origin(mana));
        assertEquals(CpuSet.range(4, 7), nic.localCpus());
    }

    @Test
    void noOriginWhenLocalCpulistSpansNodesOrIsMissing() {
        Topology mana = SysfsFixture.topology(MachineShape.mana(), sys);
        mlx5(-1, "0-7");
        assertEquals(
                Optional.empty(),
                NicDiscovery.discover(new InterfaceName("enp8s0"), paths()).origin(mana));
    }

    private void mlx5(int numaNode, String localCpus) {
        NicFixture.at(sys, proc, MachineShape.mana())
                .iface("enp8s0")
                .pci("0000:08:00.0")
                .driver("mlx5_core")
                .numaNode(numaNode)
                .localCpus(localCpus)
                .vector(60, "mlx5_async0@pci:0000:08:00.0")
                .vector(61, "mlx5_comp0@pci:0000:08:00.0")
                .vector(62, "mlx5_comp1@pci:0000:08:00.0")
                .vector(63, "mlx5_comp2@pci:0000:08:00.0")
                .vector(64, "mlx5_comp3@pci:0000:08:00.0")
                .write();
    }

    @ParameterizedTest
    @ValueSource(strings = {"", ".", "..", "a/b", "../../etc", "eth0 x", "eth0:1", "abcdefghijklmnop"})
    void invalidNamesAreRefusedBeforeAnyPathIsBuilt(String name) {
        NumaspreadException e = assertThrows(NumaspreadException.class, () -> new InterfaceName(name));
        assertEquals(NumaspreadException.Kind.BAD_INPUT, e.kind());
        assertTrue(e.getMessage().contains("\"" + name + "\""), e.getMessage());
    }

    @Test
    void aMissingInterfaceIsNamedWithTheOnesThatExist() {
        NicFixture.virtio(sys, proc, MachineShape.singleNodeVm()).write();
        NumaspreadException e = assertThrows(
                NumaspreadException.class, () -> NicDiscovery.discover(new InterfaceName("eth9"), paths()));
        assertTrue(
                e.getMessage().contains("no such interface eth9")
                        && e.getMessage().contains("eth0"),
                e.getMessage());
    }

    @Test
    void aVirtualInterfaceHasNoQueueIrqs() throws Exception {
        NicFixture.virtio(sys, proc, MachineShape.singleNodeVm()).write();
        Files.createDirectories(sys.resolve("class/net/lo"));
        NumaspreadException e =
                assertThrows(NumaspreadException.class, () -> NicDiscovery.discover(new InterfaceName("lo"), paths()));
        assertTrue(e.getMessage().contains("lo is a virtual interface"), e.getMessage());
    }

    @Test
    void aDeviceWithoutMsiVectorsIsNamed() throws Exception {
        NicFixture.virtio(sys, proc, MachineShape.singleNodeVm()).write();
        try (var entries = Files.list(sys.resolve("devices/pci0000:00/0000:00:03.0/msi_irqs"))) {
            for (Path entry : entries.toList()) {
                Files.delete(entry);
            }
        }
        Files.delete(sys.resolve("devices/pci0000:00/0000:00:03.0/msi_irqs"));
        NumaspreadException e = assertThrows(
                NumaspreadException.class, () -> NicDiscovery.discover(new InterfaceName("eth0"), paths()));
        assertTrue(e.getMessage().contains("no msi_irqs"), e.getMessage());
    }

    @Test
    void theDefaultRouteNamesItsInterface() {
        NicFixture.defaultRoute(proc, "ens5");
        assertEquals(Optional.of(new InterfaceName("ens5")), NicDiscovery.defaultRouteInterface(paths()));
        NicFixture.file(proc.resolve("net/route"), "Iface\tDestination\tGateway\tFlags\tRefCnt\tUse\tMetric\tMask\n");
        assertEquals(Optional.empty(), NicDiscovery.defaultRouteInterface(paths()));
    }
}
