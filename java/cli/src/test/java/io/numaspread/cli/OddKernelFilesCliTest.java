// SPDX-License-Identifier: Apache-2.0
package io.numaspread.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.numaspread.testing.MachineShape;
import io.numaspread.testing.NicFixture;
import io.numaspread.testing.SysfsFixture;
import io.numaspread.testing.SysfsFixture.OddKernel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The CLI on trees as real kernels wrote them: NUL padding, a non-UTF-8 byte and control characters in IRQ names. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class OddKernelFilesCliTest {
    @TempDir
    Path sys;

    @TempDir
    Path clean;

    @TempDir
    Path proc;

    @TempDir
    Path run;

    private static boolean hasControlCharacters(String text) {
        return text.chars().anyMatch(c -> (c < 0x20 && c != '\n') || (c >= 0x7f && c <= 0x9f));
    }

    @ParameterizedTest
    @EnumSource(OddKernel.class)
    void topologyOfAPaddedTreeIsTheCleanTreesTopology(OddKernel quirk) {
        MachineShape shape = quirk == OddKernel.CPULIST_NUL ? MachineShape.kunpeng920() : MachineShape.mana();
        SysfsFixture.write(shape, sys, quirk);
        SysfsFixture.write(shape, clean);
        CliRun padded = CliRun.of("topology", "--json", "--sysfs-root", sys.toString());
        assertEquals(0, padded.exitCode(), padded.err());
        assertEquals(
                CliRun.of("topology", "--json", "--sysfs-root", clean.toString())
                        .out(),
                padded.out());
        CliRun plan = CliRun.of("plan", "--node", "0", "--count", "4", "--sysfs-root", sys.toString());
        assertEquals(0, plan.exitCode(), plan.err());
        assertEquals(
                CliRun.of("plan", "--node", "0", "--count", "4", "--sysfs-root", clean.toString())
                        .out(),
                plan.out());
    }

    @Test
    void aNulInsideAFileIsOneEscapedLineAndExitTwo() {
        SysfsFixture.write(MachineShape.mana(), sys);
        SysfsFixture.write(sys, "devices/system/node/online", "0\0-1");
        CliRun topology = CliRun.of("topology", "--sysfs-root", sys.toString());
        assertEquals(Failures.BAD_INPUT, topology.exitCode());
        assertEquals(1, topology.err().lines().count(), topology.err());
        assertTrue(topology.err().contains("node/online") && topology.err().contains("0\\0-1"), topology.err());
        assertFalse(hasControlCharacters(topology.err()), topology.err());
    }

    @Test
    void irqsApplyAndRestoreReadPaddedFilesAndStrangeNamesOfOtherIrqs() throws Exception {
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
                .otherIrq(60, "vf\u00ff-TxRx-0")
                .otherIrq(61, "evil\u001b]0;pwned\u0007")
                .write();
        SysfsFixture.write(
                MachineShape.mana(), sys, OddKernel.NODE_STATE_NUL, OddKernel.NOHZ_FULL_NUL, OddKernel.CPULIST_NUL);
        Map<Path, String> before = NicFixture.snapshot(proc, sys);
        Path state = run.resolve("eth0.json");
        List<String> roots = List.of("--sysfs-root", sys.toString(), "--proc-root", proc.toString());

        CliRun irqs = CliRun.of(concat(List.of("irqs", "--nic", "eth0"), roots));
        assertEquals(0, irqs.exitCode(), irqs.err());
        assertTrue(irqs.out().contains("i40e-eth0-TxRx-3"), irqs.out());

        CliRun apply = CliRun.of(
                concat(List.of("apply", "--nic", "eth0", "--siblings", "--xps", "--state", state.toString()), roots));
        assertEquals(0, apply.exitCode(), apply.err());
        assertFalse(hasControlCharacters(apply.out()), apply.out());
        assertEquals("2-3\n", Files.readString(proc.resolve("irq/51/smp_affinity_list")));

        CliRun restore = CliRun.of(concat(List.of("restore", "--state", state.toString()), roots));
        assertEquals(0, restore.exitCode(), restore.err());
        // Restore writes the recorded meaning; the padding was the kernel's, a fixture file has none of its own.
        assertEquals(meanings(before), meanings(NicFixture.snapshot(proc, sys)));
    }

    @Test
    void aControlCharacterInTheNicsOwnIrqNameIsPrintedEscaped() throws Exception {
        NicFixture.at(sys, proc, MachineShape.mana())
                .iface("eth0")
                .pci("0000:3b:00.0")
                .driver("acme")
                .numaNode(0)
                .vector(50, "acme\u001b[2J-rx-0")
                .vector(51, "acme\u00ff-rx-1")
                .write();
        CliRun irqs =
                CliRun.of("irqs", "--nic", "eth0", "--sysfs-root", sys.toString(), "--proc-root", proc.toString());
        assertEquals(0, irqs.exitCode(), irqs.err());
        assertTrue(irqs.out().contains("acme\\x1b[2J-rx-0"), irqs.out());
        assertFalse(hasControlCharacters(irqs.out()), irqs.out());
    }

    private static Map<Path, String> meanings(Map<Path, String> files) {
        Map<Path, String> meanings = new java.util.TreeMap<>();
        files.forEach((file, text) -> meanings.put(file, text.replaceAll("[\\s\\x00]+$", "")));
        return meanings;
    }

    private static String[] concat(List<String> first, List<String> second) {
        List<String> all = new java.util.ArrayList<>(first);
        all.addAll(second);
        return all.toArray(String[]::new);
    }
}
