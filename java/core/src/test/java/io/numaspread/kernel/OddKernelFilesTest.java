// SPDX-License-Identifier: Apache-2.0
package io.numaspread.kernel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.numaspread.CpuSet;
import io.numaspread.NumaspreadException;
import io.numaspread.irq.AffinityTransaction;
import io.numaspread.irq.IrqPlan;
import io.numaspread.irq.IrqState;
import io.numaspread.irq.Irqbalance;
import io.numaspread.irq.Setting;
import io.numaspread.nativeaccess.SysfsBackend;
import io.numaspread.nic.InterruptTable;
import io.numaspread.nic.Nic;
import io.numaspread.nic.NicDiscovery;
import io.numaspread.plan.Planner;
import io.numaspread.plan.Purpose;
import io.numaspread.plan.SpreadPlan;
import io.numaspread.testing.MachineShape;
import io.numaspread.testing.NicFixture;
import io.numaspread.testing.SysfsFixture;
import io.numaspread.testing.SysfsFixture.OddKernel;
import io.numaspread.topology.Topology;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Files as real kernels wrote them, NUL padding and stray bytes included, read by every reader: sysfs
 * (topology), procfs (interrupts, irq/N, net/route, PID/status, PID/comm) and the /proc/irq writer's read-back.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class OddKernelFilesTest {
    @TempDir
    Path sys;

    @TempDir
    Path clean;

    @TempDir
    Path proc;

    @TempDir
    Path cleanProc;

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.ISO_8859_1);
    }

    @Test
    void trailingNulsAndWhitespaceAreNotData() {
        assertEquals("0-7", KernelText.meaning(bytes("0-7\n\0")));
        assertEquals("", KernelText.meaning(bytes("\0\n")));
        assertEquals("0-3", KernelText.meaning(bytes(" 0-3\n\0\0\n")));
        assertEquals("0\u00001", KernelText.meaning(bytes("0\u00001\n")), "a NUL inside is data, and wrong");
        assertEquals(
                "eth\u00ff",
                KernelText.meaning(new byte[] {'e', 't', 'h', (byte) 0xff, '\n'}),
                "one character per byte, never a decoding failure");
    }

    @Test
    void escapingKeepsMessagesOnOneLineAndIsIdempotent() {
        assertEquals("0\\0-7\\n\\x1b[2J\\x9b\\x7f", KernelText.escape("0\0-7\n\u001b[2J\u009b\u007f"));
        assertEquals("plain \\ and é", KernelText.escape("plain \\ and é"));
        String once = KernelText.escape("a\tb\0");
        assertEquals(once, KernelText.escape(once));
    }

    @ParameterizedTest
    @EnumSource(OddKernel.class)
    void eachPaddedSysfsTreeReadsAsTheCleanOne(OddKernel quirk) {
        MachineShape shape = quirk == OddKernel.CPULIST_NUL ? MachineShape.kunpeng920() : MachineShape.mana();
        Topology padded = SysfsFixture.read(SysfsFixture.write(shape, sys, quirk));
        assertEquals(SysfsFixture.topology(shape, clean), padded);
    }

    @Test
    void theFilesReallyArePadded() throws Exception {
        SysfsFixture.write(MachineShape.kunpeng920(), sys, OddKernel.values());
        assertEquals("0-3\n\0", Files.readString(sys.resolve("devices/system/node/online")));
        assertEquals("\0\n", Files.readString(sys.resolve("devices/system/cpu/nohz_full")));
        assertTrue(Files.readString(sys.resolve("devices/system/node/node3/cpulist"))
                .endsWith("\n\0"));
        assertTrue(Files.readString(sys.resolve("devices/system/cpu/cpu50/topology/thread_siblings_list"))
                .endsWith("\n\0"));
        assertEquals(SysfsFixture.topology(MachineShape.kunpeng920(), clean), SysfsFixture.read(sys));
    }

    @ParameterizedTest
    @ValueSource(strings = {"0\u00004", "0-3\u001b[2J", "0-3\n4-5"})
    void aBadByteInsideIsRefusedOnOneLineWithTheByteEscaped(String cpulist) {
        SysfsFixture.write(MachineShape.mana(), sys);
        SysfsFixture.write(sys, "devices/system/node/node0/cpulist", cpulist);
        NumaspreadException e = assertThrows(NumaspreadException.class, () -> SysfsFixture.read(sys));
        assertEquals(NumaspreadException.Kind.BAD_INPUT, e.kind());
        assertTrue(e.getMessage().contains("node0/cpulist"), e.getMessage());
        assertFalse(e.getMessage().chars().anyMatch(c -> c < 0x20 || c == 0x7f), e.getMessage());
        assertTrue(e.getMessage().contains("\\"), e.getMessage());
    }

    @Test
    void aNicWhoseFilesArePaddedIsFoundAndPlannedAsACleanOne() {
        NicFixture.i40eOnMana(clean, cleanProc);
        Nic expected = NicDiscovery.discover(new InterfaceName("eth0"), new KernelPaths(cleanProc, clean));
        NicFixture.at(sys, proc, MachineShape.mana())
                .iface("eth0")
                .pci("0000:3b:00.0")
                .driver("i40e")
                .numaNode(0)
                .localCpus("0-3")
                .affinity("0-7")
                .txQueues(4, "ff")
                .padding("\0")
                .vector(49, "i40e-0000:3b:00.0:misc")
                .vector(50, "i40e-eth0-TxRx-0")
                .vector(51, "i40e-eth0-TxRx-1")
                .vector(52, "i40e-eth0-TxRx-2")
                .vector(53, "i40e-eth0-TxRx-3")
                .write();
        KernelPaths paths = new KernelPaths(proc, sys);
        Nic padded = NicDiscovery.discover(new InterfaceName("eth0"), paths);
        assertEquals(expected.grouping(), padded.grouping());
        assertEquals(expected.txQueues(), padded.txQueues());
        assertEquals(0, padded.numaNode());
        assertEquals(CpuSet.parse("0-3"), padded.localCpus());
        IrqState state = IrqState.read(paths, InterruptTable.read(paths), 50);
        assertEquals(CpuSet.parse("0-7"), state.affinity());
        assertEquals(CpuSet.of(0), state.effective().orElseThrow());
    }

    @Test
    void aWriteReadsBackThroughPaddingAndTheTransactionAccepts() throws Exception {
        Topology mana = SysfsFixture.topology(MachineShape.mana(), sys);
        NicFixture.at(sys, proc, MachineShape.mana())
                .iface("eth0")
                .pci("0000:3b:00.0")
                .driver("i40e")
                .numaNode(0)
                .localCpus("0-3")
                .affinity("0-7")
                .txQueues(4, "ff")
                .padding("\0")
                .vector(50, "i40e-eth0-TxRx-0")
                .vector(51, "i40e-eth0-TxRx-1")
                .write();
        KernelPaths paths = new KernelPaths(proc, sys);
        Nic nic = NicDiscovery.discover(new InterfaceName("eth0"), paths);
        SpreadPlan plan = Planner.plan(mana, nic.planRequest(mana, Purpose.IRQS));
        List<Setting> settings = IrqPlan.settings(nic, plan, true);
        // A kernel that pads its read-back: every write leaves "VALUE\n\0".
        KernelFiles padding = new KernelFiles() {
            @Override
            public String read(Path file) throws java.io.IOException {
                return KernelFiles.DIRECT.read(file);
            }

            @Override
            public void write(Path file, String value) throws java.io.IOException {
                Files.write(file, bytes(value + "\n\0"));
            }

            @Override
            public void probeWritable(Path file) throws java.io.IOException {
                KernelFiles.DIRECT.probeWritable(file);
            }
        };
        List<AffinityTransaction.Result> results = new AffinityTransaction(paths, padding, 8)
                .apply(nic.name(), settings, proc.resolve("eth0.json"), false);
        assertTrue(
                results.stream().allMatch(r -> r.status() == AffinityTransaction.Status.CHANGED), results.toString());
        assertEquals("0", KernelFiles.DIRECT.read(paths.smpAffinityList(50)), "queue 0 on its own CPU, the default");
    }

    @Test
    void aNonUtf8ByteOrControlCharacterInAnotherIrqsNameHarmsNothing() throws Exception {
        NicFixture.at(sys, proc, MachineShape.mana())
                .iface("eth0")
                .pci("0000:3b:00.0")
                .driver("i40e")
                .numaNode(0)
                .localCpus("0-3")
                .affinity("0-7")
                .txQueues(1, "ff")
                .vector(50, "i40e-eth0-TxRx-0")
                .otherIrq(60, "vf\u00ff-TxRx-0")
                .otherIrq(61, "evil\u001b[2J")
                .write();
        byte[] raw = Files.readAllBytes(proc.resolve("interrupts"));
        assertTrue(new String(raw, StandardCharsets.ISO_8859_1).contains("vf\u00ff-TxRx-0"));
        KernelPaths paths = new KernelPaths(proc, sys);
        InterruptTable table = InterruptTable.read(paths);
        assertEquals("vf\u00ff-TxRx-0", table.name(60));
        assertEquals("evil\\x1b[2J", table.name(61), "printable");
        assertEquals(
                List.of(50),
                NicDiscovery.discover(new InterfaceName("eth0"), paths).queueVectors().stream()
                        .map(v -> v.irq())
                        .toList());
    }

    @Test
    void procReadersTakeThePaddedMeaningToo() throws Exception {
        Files.createDirectories(proc.resolve("net"));
        Files.write(
                proc.resolve("net/route"),
                bytes("Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask"
                        + "\t\tMTU\tWindow\tIRTT\neth1\t00000000\t010200C0\t0003\t0\t0\t0\t00000000\t0\t0\t0\n\0"));
        assertEquals(
                "eth1",
                NicDiscovery.defaultRouteInterface(new KernelPaths(proc, sys))
                        .orElseThrow()
                        .value());

        SysfsTree tree = SysfsTree.at(SysfsFixture.write(MachineShape.mana(), sys));
        Files.createDirectories(proc.resolve("77"));
        Files.write(proc.resolve("77/status"), bytes("Name:\tjava\nCpus_allowed:\tff\nCpus_allowed_list:\t0-3\n\0"));
        assertEquals(CpuSet.parse("0-3"), new SysfsBackend(tree, proc).affinity(77));
        Files.write(proc.resolve("77/status"), bytes("Cpus_allowed_list:\t0-\u001b\n"));
        NumaspreadException e =
                assertThrows(NumaspreadException.class, () -> new SysfsBackend(tree, proc).affinity(77));
        assertTrue(e.getMessage().startsWith(proc.resolve("77/status") + ": "), e.getMessage());
        assertTrue(e.getMessage().contains("\\x1b"), e.getMessage());

        NicFixture.process(proc, 612, "irqbalance", "irqbalance");
        Files.write(proc.resolve("612/comm"), bytes("irqbalance\n\0"));
        assertEquals(
                List.of(612),
                Irqbalance.find(proc).stream().map(Irqbalance.Process::pid).toList());
    }
}
