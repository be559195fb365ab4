// SPDX-License-Identifier: Apache-2.0
package io.numaspread.irq;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.numaspread.CpuSet;
import io.numaspread.NumaspreadException;
import io.numaspread.testing.NicFixture;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(value = 30, unit = TimeUnit.SECONDS)
class IrqbalanceTest {
    private static final Map<Integer, CpuSet> IRQS_38_39_ON_2_3 = Map.of(38, CpuSet.of(2), 39, CpuSet.of(3));

    @TempDir
    Path proc;

    @Test
    void aRunningIrqbalanceIsRefusedWithTheConflictAsValues() {
        NicFixture.process(proc, 1, "systemd", "/sbin/init");
        NicFixture.process(proc, 612, "irqbalance", "/usr/sbin/irqbalance", "--foreground", "--banirq=38");
        IrqbalanceConflict e =
                assertThrows(IrqbalanceConflict.class, () -> Irqbalance.refuseIfRunning(proc, IRQS_38_39_ON_2_3));
        assertEquals(NumaspreadException.Kind.REFUSED, e.kind());
        assertEquals(612, e.pid());
        assertEquals(List.of(39), e.irqs());
        assertEquals(CpuSet.EMPTY, e.plannedOnBannedCpus());
        // The way out (a service, irqbalance's options, a flag) is the caller's to word, in its own terms.
        assertEquals("irqbalance is running (pid 612) and would move IRQs [39] again", e.getMessage());
    }

    @Test
    void irqbalanceThatBansEveryIrqIsNoDanger() {
        NicFixture.process(proc, 612, "irqbalance", "irqbalance", "--banirq", "38", "-i", "39");
        assertDoesNotThrow(() -> Irqbalance.refuseIfRunning(proc, IRQS_38_39_ON_2_3));
    }

    @Test
    void everySpellingOfBanirqThatGetoptAccepts() {
        assertEquals(
                List.of(38, 39, 40, 41, 42, 43),
                Irqbalance.bannedIrqs(String.join(
                        "\0",
                        "irqbalance",
                        "-i38",
                        "-i",
                        "39",
                        "--banirq=40",
                        "--banirq",
                        "41",
                        "-fi42",
                        "--bani=43",
                        "-p",
                        "44",
                        "-e5",
                        "-i")));
        assertEquals(List.of(), Irqbalance.bannedIrqs(String.join("\0", "irqbalance", "--", "-i38")));
        assertEquals(List.of(), Irqbalance.bannedIrqs(String.join("\0", "irqbalance", "-s", "-i38", "--ban=39")));
    }

    @Test
    void theSecondOfTwoIrqbalancesIsLookedAtToo() {
        NicFixture.process(proc, 612, "irqbalance", "irqbalance", "--banirq=38", "--banirq=39");
        NicFixture.process(proc, 700, "irqbalance", "irqbalance", "--banirq=38");
        NumaspreadException e =
                assertThrows(NumaspreadException.class, () -> Irqbalance.refuseIfRunning(proc, IRQS_38_39_ON_2_3));
        assertTrue(e.getMessage().contains("pid 700") && e.getMessage().contains("[39]"), e.getMessage());
        assertEquals(
                List.of(612, 700),
                Irqbalance.find(proc).stream().map(Irqbalance.Process::pid).toList());
    }

    /**
     * irqbalance leaves banned CPUs out of its tree and moves every IRQ it balances onto the others, so banned CPUs
     * protect no IRQ planned on them; the refusal says so, and only --banirq makes an IRQ safe.
     */
    @Test
    void bannedCpusInIrqbalancesEnvironmentAreReadAndProtectNothing() throws Exception {
        NicFixture.process(proc, 612, "irqbalance", "/usr/sbin/irqbalance", "--foreground");
        Files.writeString(proc.resolve("612/environ"), "LANG=C\0IRQBALANCE_BANNED_CPULIST=2-3\0");
        assertEquals(CpuSet.parse("2-3"), Irqbalance.find(proc).get(0).bannedCpus());
        IrqbalanceConflict e =
                assertThrows(IrqbalanceConflict.class, () -> Irqbalance.refuseIfRunning(proc, IRQS_38_39_ON_2_3));
        assertEquals(CpuSet.parse("2-3"), e.plannedOnBannedCpus());
        assertTrue(
                e.getMessage().contains("[38, 39]")
                        && e.getMessage().contains("bans CPUs 2-3 of the plan")
                        && e.getMessage().contains("move these IRQs away"),
                e.getMessage());

        Files.writeString(proc.resolve("612/cmdline"), "irqbalance\0--banirq=38\0-i39\0");
        assertDoesNotThrow(() -> Irqbalance.refuseIfRunning(proc, IRQS_38_39_ON_2_3));
    }

    /** As irqbalance's setup_banned_cpus: a non-empty IRQBALANCE_BANNED_CPUS wins over the list. */
    @Test
    void theHexMaskWinsOverTheListAsInIrqbalance() {
        assertEquals(
                CpuSet.parse("0-1"), Irqbalance.bannedCpus("IRQBALANCE_BANNED_CPULIST=4\0IRQBALANCE_BANNED_CPUS=3\0"));
        assertEquals(CpuSet.of(4), Irqbalance.bannedCpus("IRQBALANCE_BANNED_CPUS=\0IRQBALANCE_BANNED_CPULIST=4\0"));
        assertEquals(CpuSet.EMPTY, Irqbalance.bannedCpus("IRQBALANCE_BANNED_CPULIST=nonsense\0"));
        assertEquals(CpuSet.EMPTY, Irqbalance.bannedCpus(""));
    }

    @Test
    void noIrqbalanceNoRefusal() {
        NicFixture.process(proc, 1, "systemd", "/sbin/init");
        NicFixture.file(proc.resolve("interrupts"), "CPU0\n");
        assertDoesNotThrow(() -> Irqbalance.refuseIfRunning(proc, Map.of(38, CpuSet.of(0))));
        assertTrue(Irqbalance.find(proc).isEmpty());
    }

    @Test
    void aPidNamespaceOfItsOwnIsABlindSpot() throws Exception {
        Files.createDirectories(proc.resolve("self/ns"));
        Files.createSymbolicLink(proc.resolve("self/ns/pid"), Path.of("pid:[4026532201]"));
        String note = Irqbalance.blindSpot(proc).orElseThrow();
        assertTrue(note.contains("pid:[4026532201]") && note.contains("--pid=host"), note);

        Files.delete(proc.resolve("self/ns/pid"));
        Files.createSymbolicLink(proc.resolve("self/ns/pid"), Path.of("pid:[4026531836]"));
        assertTrue(Irqbalance.blindSpot(proc).isEmpty());
    }

    /** This test runs in the host's PID namespace (scripts/test runs on the host or in a VM), so no note. */
    @Test
    void theLiveProcIsTheHostsPidNamespaceHere() throws Exception {
        Path live = Path.of("/proc/self/ns/pid");
        boolean host = Files.readSymbolicLink(live).toString().equals("pid:[4026531836]");
        assertEquals(host, Irqbalance.blindSpot(Path.of("/proc")).isEmpty());
    }
}
