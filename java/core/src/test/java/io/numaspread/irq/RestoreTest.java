// SPDX-License-Identifier: Apache-2.0
package io.numaspread.irq;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.numaspread.CpuSet;
import io.numaspread.NumaspreadException;
import io.numaspread.kernel.Errno;
import io.numaspread.kernel.ErrnoException;
import io.numaspread.kernel.InterfaceName;
import io.numaspread.kernel.KernelFiles;
import io.numaspread.testing.NicFixture;
import io.numaspread.testing.StandInNicTest;
import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Restore is all or nothing too: the whole state file is checked before the first write, IRQs and queues that are
 * gone are reported and are no failure, a renumbering is recognised by the recorded names, and values are written
 * in the kernel's own form. A four-queue i40e NIC on the mana machine (8 CPUs); every vector starts on 0-7.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RestoreTest extends StandInNicTest {
    private static final InterfaceName ETH0 = new InterfaceName("eth0");

    private AffinityTransaction transaction(KernelFiles files) {
        return new AffinityTransaction(paths, files, 8);
    }

    private void applyQueues(boolean xps) {
        List<Setting> settings = new ArrayList<>();
        for (int q = 0; q < 4; q++) {
            settings.add(new Setting(Target.irq(50 + q, "i40e-eth0-TxRx-" + q), CpuSet.of(q)));
            if (xps) {
                settings.add(new Setting(Target.xps(ETH0, q), CpuSet.of(q)));
            }
        }
        transaction(KernelFiles.DIRECT).apply(ETH0, settings, state, false);
    }

    private void writeState(String savedEntries) throws IOException {
        writeStateFile("{\"version\": 1, \"interface\": \"eth0\", \"saved\": [" + savedEntries + "]}");
    }

    /** Files the restore wrote, so that "nothing was written" is checked by counting, not only by content. */
    private static class CountingFiles implements KernelFiles {
        final List<Path> written = new ArrayList<>();

        @Override
        public String read(Path file) throws IOException {
            return KernelFiles.DIRECT.read(file);
        }

        @Override
        public void write(Path file, String value) throws IOException {
            written.add(file);
            KernelFiles.DIRECT.write(file, value);
        }

        @Override
        public void probeWritable(Path file) throws IOException {
            KernelFiles.DIRECT.probeWritable(file);
        }
    }

    @Test
    void aBadSecondEntryIsRefusedBeforeTheFirstIsWritten() throws IOException {
        applyQueues(false);
        Map<Path, String> applied = NicFixture.snapshot(proc, sys);
        for (String bad :
                List.of("\"0-99\"", "null", "\"\"", "\"  \"", "\" 0 , 1 \"", "\"+3\"", "3", "\"0-2147483647\"")) {
            writeState("{\"kind\": \"irq\", \"number\": 50, \"name\": \"i40e-eth0-TxRx-0\", \"value\": \"0-7\"},"
                    + " {\"kind\": \"irq\", \"number\": 51, \"name\": \"i40e-eth0-TxRx-1\", \"value\": " + bad + "}");
            CountingFiles files = new CountingFiles();
            NumaspreadException e = assertThrows(
                    NumaspreadException.class, () -> transaction(files).restore(state, Optional.of(ETH0)), bad);
            assertEquals(NumaspreadException.Kind.BAD_INPUT, e.kind(), bad + ": " + e.getMessage());
            assertTrue(e.getMessage().contains("IRQ 51 (i40e-eth0-TxRx-1)"), bad + ": " + e.getMessage());
            assertFalse(e.getMessage().contains("Exception") || e.getMessage().contains("java."), e.getMessage());
            assertEquals(List.of(), files.written, bad);
            assertEquals(applied, NicFixture.snapshot(proc, sys), bad);
        }
    }

    @Test
    void anXpsValueIsParsedStrictlyAndWrittenInTheKernelsForm() throws IOException {
        for (String bad : List.of("\"+3\"", "\"0x3\"", "\"3 \"", "\",3\"", "\"\"")) {
            writeState("{\"kind\": \"xps\", \"number\": 0, \"name\": \"eth0\", \"value\": " + bad + "}");
            NumaspreadException e = assertThrows(
                    NumaspreadException.class,
                    () -> transaction(KernelFiles.DIRECT).restore(state, Optional.of(ETH0)),
                    bad);
            assertEquals(NumaspreadException.Kind.BAD_INPUT, e.kind(), bad);
            assertEquals(before, NicFixture.snapshot(proc, sys), bad);
        }
        writeState("{\"kind\": \"xps\", \"number\": 0, \"name\": \"eth0\", \"value\": \"00000000,0000000F\"},"
                + " {\"kind\": \"irq\", \"number\": 50, \"name\": \"i40e-eth0-TxRx-0\", \"value\": \"0,1,2,3\"}");
        transaction(KernelFiles.DIRECT).restore(state, Optional.of(ETH0));
        assertEquals("0f", Files.readString(paths.xpsCpus(ETH0, 0)).strip(), "as a kernel of 8 CPUs prints it");
        assertEquals("0-3", affinity(50), "the canonical cpulist");
    }

    @Test
    void anXpsEntryForAGoneQueueAndAFreedIrqAreReportedAndTheRestIsBack() throws IOException {
        applyQueues(true);
        try (Stream<Path> tx3 = Files.walk(paths.xpsCpus(ETH0, 3).getParent())) {
            tx3.sorted((a, b) -> b.compareTo(a)).forEach(p -> p.toFile().delete());
        }
        // Freed for good (a reset, an unbind): the vector leaves msi_irqs with its handler.
        String interrupts = Files.readString(paths.interrupts());
        Files.writeString(
                paths.interrupts(),
                interrupts.lines().filter(line -> !line.startsWith("  52:")).reduce("", (a, b) -> a + b + "\n"));
        Files.delete(msiIrq(52));

        List<AffinityTransaction.Result> results =
                transaction(KernelFiles.DIRECT).restore(state, Optional.of(ETH0));
        List<String> gone = results.stream()
                .filter(r -> r.status() == AffinityTransaction.Status.GONE)
                .map(r -> r.target().label() + ": " + r.detail())
                .toList();
        assertEquals(2, gone.size(), gone.toString());
        assertTrue(gone.get(0).startsWith("IRQ 52 (i40e-eth0-TxRx-2): IRQ 52 no longer exists"), gone.toString());
        assertTrue(
                gone.get(1).startsWith("eth0 tx-3 xps_cpus: ") && gone.get(1).contains("no longer exists"),
                gone.toString());
        assertEquals(
                List.of("0-7", "0-7", "2", "0-7"),
                List.of(affinity(50), affinity(51), affinity(52), affinity(53)),
                "IRQ 52's number is free: its file is left as it is");
        assertEquals("ff", Files.readString(paths.xpsCpus(ETH0, 2)).strip());
        assertFalse(Files.exists(state), "a preStop restore succeeds: nothing is left to put back");
    }

    /**
     * A closed NIC (down, or released by a bond) keeps its vectors in {@code msi_irqs} but not in
     * {@code /proc/interrupts}: they are not gone, and a kernel that takes their values has them back. A name that
     * moved to another number while it was closed is a renumbering, as when it is open.
     */
    @Test
    void aClosedNicsVectorsTakeTheirValuesBackAndARenamedOneIsGone() throws IOException {
        applyQueues(true);
        String open = Files.readString(paths.interrupts());
        Files.writeString(
                paths.interrupts(),
                open.lines().filter(line -> !line.contains("i40e-eth0-TxRx-")).reduce("", (a, b) -> a + b + "\n"));
        List<AffinityTransaction.Result> results =
                transaction(KernelFiles.DIRECT).restore(state, Optional.of(ETH0));
        assertEquals(
                List.of(),
                results.stream()
                        .filter(r -> r.status() != AffinityTransaction.Status.RESTORED)
                        .toList());
        assertEquals(8, results.size(), results.toString());
        assertEquals(
                List.of("0-7", "0-7", "0-7", "0-7"), List.of(affinity(50), affinity(51), affinity(52), affinity(53)));
        assertFalse(Files.exists(state));

        // Open again, with queue 0's vector renumbered to 54 (a reload); 50 is still allocated, idle.
        applyQueues(false);
        NicFixture.file(paths.smpAffinityList(54), "0-7");
        NicFixture.file(msiIrq(50).resolveSibling("54"), "msix");
        Files.writeString(paths.interrupts(), open.replace("  50:", "  54:"));
        results = transaction(KernelFiles.DIRECT).restore(state, Optional.of(ETH0));
        assertEquals(AffinityTransaction.Status.GONE, results.get(0).status(), results.toString());
        assertTrue(
                results.get(0).detail().contains("\"i40e-eth0-TxRx-0\" is now IRQ 54"),
                results.get(0).detail());
        assertEquals(
                List.of(
                        AffinityTransaction.Status.RESTORED,
                        AffinityTransaction.Status.RESTORED,
                        AffinityTransaction.Status.RESTORED),
                results.subList(1, 4).stream()
                        .map(AffinityTransaction.Result::status)
                        .toList());
        assertEquals("0", affinity(50), "IRQ 50 is no longer the vector of that name: left as it is");
        assertEquals("0-7", affinity(54));
    }

    /**
     * Linux 7.3 on x86 without interrupt remapping takes a write to a closed NIC's vector and keeps the old value:
     * restore says so, names the NIC to open, and keeps the state file, with the values it could put back.
     */
    @Test
    void aClosedNicWhoseVectorsKeepTheirValuesKeepsItsStateFile() throws IOException {
        applyQueues(true);
        Files.writeString(
                paths.interrupts(),
                Files.readString(paths.interrupts())
                        .lines()
                        .filter(line -> !line.contains("i40e-eth0-TxRx-"))
                        .reduce("", (a, b) -> a + b + "\n"));
        KernelFiles closed = new CountingFiles() {
            @Override
            public void write(Path file, String value) throws IOException {
                if (!file.startsWith(proc)) {
                    super.write(file, value);
                }
            }
        };
        NumaspreadException e = assertThrows(
                NumaspreadException.class, () -> transaction(closed).restore(state, Optional.of(ETH0)));
        assertEquals(NumaspreadException.Kind.INCOMPLETE, e.kind());
        assertTrue(
                e.getMessage()
                        .contains(
                                "IRQ 50 (i40e-eth0-TxRx-0): wrote \"0-7\" but it reads back \"0\" (eth0 is"
                                        + " closed, and its vectors without a handler did not take it: put it back once eth0 is up)"),
                e.getMessage());
        assertTrue(Files.exists(state), "kept for the restore once eth0 is up");
        assertEquals("ff", Files.readString(paths.xpsCpus(ETH0, 0)).strip(), "the transmit queues' values are back");
    }

    @Test
    void renumberedIrqsAreRecognisedByTheirRecordedNames() throws IOException {
        applyQueues(false);
        // A driver reload: the same vectors come back as IRQs 60-63, on the default affinity.
        String reloaded = Files.readString(paths.interrupts());
        for (int q = 0; q < 4; q++) {
            reloaded = reloaded.replace("  " + (50 + q) + ":", "  " + (60 + q) + ":");
            NicFixture.file(paths.smpAffinityList(60 + q), "0-7");
        }
        Files.writeString(paths.interrupts(), reloaded);
        Map<Path, String> afterReload = NicFixture.snapshot(proc, sys);

        List<Setting> renumbered = List.of(new Setting(Target.irq(60, "i40e-eth0-TxRx-0"), CpuSet.of(4)));
        RestoreNeeded refused = assertThrows(
                RestoreNeeded.class, () -> transaction(KernelFiles.DIRECT).apply(ETH0, renumbered, state, false));
        assertEquals(NumaspreadException.Kind.BAD_INPUT, refused.kind());
        assertTrue(
                refused.getMessage().contains("records \"i40e-eth0-TxRx-0\" as IRQ 50 but it is now IRQ 60"),
                refused.getMessage());
        assertEquals(state, refused.stateFile(), "the remedy: restore this file first");
        assertEquals(paths, refused.paths());
        assertTrue(refused.getMessage().contains("restore " + state + " first"), refused.getMessage());
        assertEquals(afterReload, NicFixture.snapshot(proc, sys), "nothing merged, nothing written");

        List<AffinityTransaction.Result> results =
                transaction(KernelFiles.DIRECT).restore(state, Optional.of(ETH0));
        assertTrue(results.stream().allMatch(r -> r.status() == AffinityTransaction.Status.GONE), results.toString());
        assertTrue(
                results.get(0)
                        .detail()
                        .contains("\"i40e-eth0-TxRx-0\" is now IRQ 60: the driver was reloaded and"
                                + " renumbered its IRQs"),
                results.get(0).detail());
        assertEquals("0-7", affinity(60), "the new IRQ keeps the driver's default");
        assertFalse(Files.exists(state));
    }

    @Test
    void aStateFileThatNamesEachVectorTwiceRestoresTheLiveOnes() throws IOException {
        // What an older apply wrote after a renumbering: merged by number, the names appear twice.
        NicFixture.file(paths.smpAffinityList(60), "5");
        Files.writeString(
                paths.interrupts(), Files.readString(paths.interrupts()).replace("  50:", "  60:"));
        writeState("{\"kind\": \"irq\", \"number\": 50, \"name\": \"i40e-eth0-TxRx-0\", \"value\": \"1\"},"
                + " {\"kind\": \"irq\", \"number\": 60, \"name\": \"i40e-eth0-TxRx-0\", \"value\": \"0-7\"}");
        List<AffinityTransaction.Result> results =
                transaction(KernelFiles.DIRECT).restore(state, Optional.of(ETH0));
        assertEquals(AffinityTransaction.Status.GONE, results.get(0).status());
        assertTrue(
                results.get(0).detail().contains("is now IRQ 60"),
                results.get(0).detail());
        assertEquals(AffinityTransaction.Status.RESTORED, results.get(1).status());
        assertEquals("0-7", affinity(60));
        assertFalse(Files.exists(state));
    }

    @Test
    void restoreWithoutWriteAccessIsRefusedBeforeAnyWrite() throws IOException {
        applyQueues(false);
        Map<Path, String> applied = NicFixture.snapshot(proc, sys);
        CountingFiles denied = new CountingFiles() {
            @Override
            public void probeWritable(Path file) throws IOException {
                throw new AccessDeniedException(file.toString());
            }
        };
        NumaspreadException e = assertThrows(
                NumaspreadException.class, () -> transaction(denied).restore(state, Optional.of(ETH0)));
        assertEquals(NumaspreadException.Kind.REFUSED, e.kind());
        assertTrue(e.getMessage().contains("EACCES") && e.getMessage().contains("needs root"), e.getMessage());
        assertEquals(List.of(), denied.written);
        assertEquals(applied, NicFixture.snapshot(proc, sys));
    }

    @Test
    void aWriteThatFailsIsIncompleteAndKeepsTheStateFile() throws IOException {
        applyQueues(false);
        CountingFiles failing = new CountingFiles() {
            @Override
            public void write(Path file, String value) throws IOException {
                if (file.equals(paths.smpAffinityList(52))) {
                    throw new ErrnoException("write", file, Errno.EINVAL.number());
                }
                super.write(file, value);
            }
        };
        NumaspreadException e = assertThrows(
                NumaspreadException.class, () -> transaction(failing).restore(state, Optional.of(ETH0)));
        assertEquals(NumaspreadException.Kind.INCOMPLETE, e.kind());
        assertTrue(
                e.getMessage().contains("IRQ 52 (i40e-eth0-TxRx-2): writing \"0-7\"")
                        && e.getMessage().contains("EINVAL"),
                e.getMessage());
        assertEquals(
                List.of("0-7", "0-7", "2", "0-7"), List.of(affinity(50), affinity(51), affinity(52), affinity(53)));
        assertTrue(Files.exists(state), "kept for another try");
        transaction(KernelFiles.DIRECT).restore(state, Optional.of(ETH0));
        assertEquals(before, NicFixture.snapshot(proc, sys));
    }

    @Test
    void aMalformedInterruptsFileIsBadInputBeforeAnyWrite() throws IOException {
        applyQueues(false);
        Files.writeString(paths.interrupts(), "           CPUx\n  50: 1 i40e-eth0-TxRx-0\n");
        NumaspreadException e = assertThrows(
                NumaspreadException.class, () -> transaction(KernelFiles.DIRECT).restore(state, Optional.of(ETH0)));
        assertEquals(NumaspreadException.Kind.BAD_INPUT, e.kind());
        assertTrue(e.getMessage().startsWith(paths.interrupts() + ": "), e.getMessage());
        assertFalse(e.getMessage().contains("For input string"), e.getMessage());
        assertEquals("0", affinity(50));
    }

    private Path msiIrq(int irq) throws IOException {
        return paths.netDevice(ETH0).resolve("device").toRealPath().resolve("msi_irqs/" + irq);
    }
}
