// SPDX-License-Identifier: Apache-2.0
package io.numaspread.irq;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.numaspread.CpuSet;
import io.numaspread.NumaspreadException;
import io.numaspread.kernel.Errno;
import io.numaspread.kernel.ErrnoException;
import io.numaspread.kernel.InterfaceName;
import io.numaspread.kernel.KernelFiles;
import io.numaspread.testing.ForwardingFiles;
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
import java.util.function.BiFunction;
import org.junit.jupiter.api.Test;

/** The apply engine on fake kernel trees, with the kernel's failures injected where a fake file cannot make them. */
class AffinityTransactionTest extends StandInNicTest {
    private static final InterfaceName ETH0 = new InterfaceName("eth0");

    /** The mana plan's sibling groups for four queues. */
    private List<Setting> settings(boolean xps) {
        List<CpuSet> groups =
                List.of(CpuSet.parse("0-1"), CpuSet.parse("2-3"), CpuSet.parse("0-1"), CpuSet.parse("2-3"));
        List<Setting> settings = new ArrayList<>();
        for (int q = 0; q < 4; q++) {
            settings.add(new Setting(Target.irq(50 + q, "i40e-eth0-TxRx-" + q), groups.get(q)));
        }
        if (xps) {
            for (int q = 0; q < 4; q++) {
                settings.add(new Setting(Target.xps(ETH0, q), groups.get(q)));
            }
        }
        return settings;
    }

    private AffinityTransaction applier(KernelFiles files) {
        return new AffinityTransaction(paths, files, 8);
    }

    @Test
    void appliesVerifiesAndRecordsTheOriginalValuesFirst() throws IOException {
        List<AffinityTransaction.Result> results =
                applier(KernelFiles.DIRECT).apply(ETH0, settings(false), state, false);
        assertEquals(
                List.of("0-1", "2-3", "0-1", "2-3"), List.of(affinity(50), affinity(51), affinity(52), affinity(53)));
        assertTrue(
                results.stream().allMatch(r -> r.status() == AffinityTransaction.Status.CHANGED), results.toString());
        assertEquals("0-7", affinity(49), "the misc vector is left alone");
        assertEquals("0-7", affinity(1), "an unrelated IRQ is left alone");
        StateFile.State saved = StateFile.read(state).orElseThrow();
        assertEquals(ETH0, saved.iface());
        assertEquals(
                List.of(50, 51, 52, 53),
                saved.saved().stream().map(s -> s.target().number()).toList());
        assertTrue(saved.saved().stream().allMatch(s -> s.value().equals("0-7")));
    }

    @Test
    void dryRunChangesNothing() {
        List<AffinityTransaction.Result> results = applier(KernelFiles.DIRECT).apply(ETH0, settings(true), state, true);
        assertEquals(8, results.size());
        assertTrue(results.stream().allMatch(r -> r.status() == AffinityTransaction.Status.WOULD_CHANGE));
        assertEquals(before, NicFixture.snapshot(proc, sys));
        assertFalse(Files.exists(state));
    }

    @Test
    void aSecondApplyKeepsTheOriginalStateAndRestoreReturnsToIt() throws IOException {
        AffinityTransaction applier = applier(KernelFiles.DIRECT);
        applier.apply(ETH0, settings(true), state, false);
        List<Setting> second = List.of(
                new Setting(Target.irq(50, "i40e-eth0-TxRx-0"), CpuSet.of(5)),
                new Setting(Target.irq(53, "i40e-eth0-TxRx-3"), CpuSet.of(6)));
        applier.apply(ETH0, second, state, false);
        assertEquals("5", affinity(50));
        assertTrue(
                StateFile.read(state).orElseThrow().saved().stream()
                        .filter(s -> s.target().kind() == Target.Kind.IRQ)
                        .allMatch(s -> s.value().equals("0-7")),
                "the original, not the intermediate, values are kept");
        assertEquals("03", Files.readString(paths.xpsCpus(ETH0, 0)).strip());

        List<AffinityTransaction.Result> restored = applier.restore(state, Optional.of(ETH0));
        assertEquals(8, restored.size());
        assertEquals(before, NicFixture.snapshot(proc, sys), "every file is back, byte for byte");
        assertFalse(Files.exists(state), "the state file is removed once everything is back");
    }

    @Test
    void aWriteThatFailsMidwayPutsEveryChangeBack() {
        KernelFiles failing =
                inject((file, writes) -> writes == 3 ? new ErrnoException("write", file, Errno.EINVAL.number()) : null);
        NumaspreadException e = assertThrows(
                NumaspreadException.class, () -> applier(failing).apply(ETH0, settings(false), state, false));
        assertEquals(NumaspreadException.Kind.ROLLED_BACK, e.kind());
        assertTrue(e.getMessage().startsWith("IRQ 52 (i40e-eth0-TxRx-2): writing \"0-1\" to "), e.getMessage());
        assertTrue(e.getMessage().contains("EINVAL (Invalid argument)"), e.getMessage());
        assertTrue(e.getMessage().contains("rolled back: 2 changes put back"), e.getMessage());
        assertEquals(before, NicFixture.snapshot(proc, sys));
        assertFalse(Files.exists(state), "nothing is left to restore");
    }

    @Test
    void anXpsWriteFailureRollsBackTheIrqsToo() {
        KernelFiles failing = inject((file, writes) -> file.endsWith("xps_cpus") && writes == 6
                ? new ErrnoException("write", file, Errno.ENODEV.number())
                : null);
        NumaspreadException e = assertThrows(
                NumaspreadException.class, () -> applier(failing).apply(ETH0, settings(true), state, false));
        assertTrue(e.getMessage().startsWith("eth0 tx-1 xps_cpus: writing \"0c\""), e.getMessage());
        assertTrue(e.getMessage().contains("ENODEV"), e.getMessage());
        assertEquals(before, NicFixture.snapshot(proc, sys));
    }

    @Test
    void aValueThatReadsBackDifferentlyRollsBack() {
        KernelFiles clamping = new ForwardingFiles() {
            private boolean clamped;

            @Override
            public void write(Path file, String value) throws IOException {
                boolean clamp = !clamped && file.equals(paths.smpAffinityList(51));
                clamped |= clamp;
                super.write(file, clamp ? "0" : value);
            }
        };
        NumaspreadException e = assertThrows(
                NumaspreadException.class, () -> applier(clamping).apply(ETH0, settings(false), state, false));
        assertEquals(NumaspreadException.Kind.ROLLED_BACK, e.kind());
        assertTrue(e.getMessage().contains("IRQ 51") && e.getMessage().contains("reads back as \"0\""), e.getMessage());
        assertEquals(before, NicFixture.snapshot(proc, sys));
    }

    @Test
    void aKernelManagedIrqIsReportedAndTheOthersStillApply() throws IOException {
        KernelFiles managed51 = inject((file, writes) ->
                file.equals(paths.smpAffinityList(51)) ? new ErrnoException("write", file, Errno.EIO.number()) : null);
        List<AffinityTransaction.Result> results = applier(managed51).apply(ETH0, settings(false), state, false);
        AffinityTransaction.Result irq51 = results.stream()
                .filter(r -> r.target().number() == 51)
                .findFirst()
                .orElseThrow();
        assertEquals(AffinityTransaction.Status.MANAGED, irq51.status());
        assertTrue(
                irq51.detail().contains("managed by the kernel")
                        && irq51.detail().contains("EIO"),
                irq51.detail());
        assertEquals("0-7", affinity(51));
        assertEquals(List.of("0-1", "0-1", "2-3"), List.of(affinity(50), affinity(52), affinity(53)));
    }

    @Test
    void eachEpermWhileOthersSucceedIsAManagedIrq() {
        KernelFiles managed = inject((file, writes) -> file.equals(paths.smpAffinityList(53))
                ? new ErrnoException("write", file, Errno.EPERM.number())
                : null);
        List<AffinityTransaction.Result> results = applier(managed).apply(ETH0, settings(false), state, false);
        assertEquals(AffinityTransaction.Status.MANAGED, results.get(3).status());
        assertEquals(AffinityTransaction.Status.CHANGED, results.get(0).status());
    }

    @Test
    void epermOnEveryIrqIsNoPrivilegeAndChangesNothing() {
        KernelFiles unprivileged = inject((file, writes) -> new ErrnoException("write", file, Errno.EPERM.number()));
        NumaspreadException e = assertThrows(
                NumaspreadException.class, () -> applier(unprivileged).apply(ETH0, settings(true), state, false));
        assertEquals(NumaspreadException.Kind.REFUSED, e.kind());
        assertTrue(e.getMessage().contains("needs root"), e.getMessage());
        assertEquals(before, NicFixture.snapshot(proc, sys));
        assertFalse(Files.exists(state));
    }

    @Test
    void noWriteAccessIsRefusedBeforeAnythingChanges() {
        List<Path> written = new ArrayList<>();
        KernelFiles denied = new ForwardingFiles() {
            @Override
            public void write(Path file, String value) throws IOException {
                written.add(file);
                super.write(file, value);
            }

            @Override
            public void probeWritable(Path file) throws IOException {
                throw new AccessDeniedException(file.toString());
            }
        };
        NumaspreadException e = assertThrows(
                NumaspreadException.class, () -> applier(denied).apply(ETH0, settings(false), state, false));
        assertEquals(NumaspreadException.Kind.REFUSED, e.kind());
        assertTrue(e.getMessage().contains("EACCES") && e.getMessage().contains("needs root"), e.getMessage());
        assertEquals(List.of(), written);
        assertFalse(Files.exists(state), "refused before even the state file");
    }

    @Test
    void aReadOnlyProcIsRefusedLikeAnUnprivilegedContainer() {
        KernelFiles readOnly = new ForwardingFiles() {
            @Override
            public void probeWritable(Path file) throws IOException {
                throw new ErrnoException("open", file, Errno.EROFS.number());
            }
        };
        NumaspreadException e = assertThrows(
                NumaspreadException.class, () -> applier(readOnly).apply(ETH0, settings(false), state, false));
        assertEquals(NumaspreadException.Kind.REFUSED, e.kind());
        assertTrue(e.getMessage().contains("EROFS") && e.getMessage().contains("privileged container"), e.getMessage());
        assertEquals(before, NicFixture.snapshot(proc, sys));
    }

    @Test
    void xpsIsUnavailableOnASingleQueueDevice() {
        KernelFiles singleQueue = new ForwardingFiles() {
            @Override
            public String read(Path file) throws IOException {
                if (file.endsWith("xps_cpus")) {
                    throw new ErrnoException("read", file, Errno.ENOENT.number());
                }
                return super.read(file);
            }
        };
        List<AffinityTransaction.Result> results = applier(singleQueue).apply(ETH0, settings(true), state, false);
        assertEquals(
                4,
                results.stream()
                        .filter(r -> r.status() == AffinityTransaction.Status.UNAVAILABLE)
                        .count());
        assertEquals(
                4,
                results.stream()
                        .filter(r -> r.status() == AffinityTransaction.Status.CHANGED)
                        .count());
    }

    @Test
    void restoreLeavesAnIrqThatIsNowSomethingElseAsGoneAndPutsTheRestBack() throws IOException {
        applier(KernelFiles.DIRECT).apply(ETH0, settings(false), state, false);
        String interrupts = Files.readString(paths.interrupts()).replace("i40e-eth0-TxRx-3", "nvme0q1");
        Files.writeString(paths.interrupts(), interrupts);
        List<AffinityTransaction.Result> restored = applier(KernelFiles.DIRECT).restore(state, Optional.of(ETH0));
        AffinityTransaction.Result irq53 = restored.get(3);
        assertEquals(AffinityTransaction.Status.GONE, irq53.status());
        assertTrue(irq53.detail().contains("IRQ 53 is now \"nvme0q1\", another IRQ, left alone"), irq53.detail());
        assertEquals("2-3", affinity(53), "left alone");
        assertEquals(
                List.of("0-7", "0-7", "0-7"), List.of(affinity(50), affinity(51), affinity(52)), "the others are back");
        assertFalse(Files.exists(state), "nothing is left to put back");
    }

    @Test
    void aStaleStateFileIsRefusedBeforeAnyChange() throws IOException {
        StateFile.write(
                state, new StateFile.State(ETH0, List.of(new StateFile.Saved(Target.irq(50, "virtio7-input.0"), "3"))));
        Map<Path, String> withState = NicFixture.snapshot(proc, sys);
        NumaspreadException e = assertThrows(
                NumaspreadException.class,
                () -> applier(KernelFiles.DIRECT).apply(ETH0, settings(false), state, false));
        assertEquals(NumaspreadException.Kind.BAD_INPUT, e.kind());
        assertTrue(e.getMessage().contains("stale"), e.getMessage());
        assertEquals(withState, NicFixture.snapshot(proc, sys));
    }

    @Test
    void anotherInterfacesStateFileIsRefused() {
        StateFile.write(state, new StateFile.State(new InterfaceName("eth1"), List.of()));
        StateFileUnusable e = assertThrows(
                StateFileUnusable.class, () -> applier(KernelFiles.DIRECT).apply(ETH0, settings(false), state, false));
        assertEquals(NumaspreadException.Kind.BAD_INPUT, e.kind());
        assertEquals(state, e.stateFile());
        assertTrue(e.getMessage().contains("is for eth1, not eth0"), e.getMessage());
        NumaspreadException restore = assertThrows(
                NumaspreadException.class, () -> applier(KernelFiles.DIRECT).restore(state, Optional.of(ETH0)));
        assertEquals(NumaspreadException.Kind.BAD_INPUT, restore.kind());
    }

    @Test
    @SuppressWarnings("try") // the lock is held, not used
    void aConcurrentApplyOfTheSameStateFileIsRefused() {
        try (StateFile.Lock held = StateFile.lock(state)) {
            NumaspreadException e = assertThrows(
                    NumaspreadException.class,
                    () -> applier(KernelFiles.DIRECT).apply(ETH0, settings(false), state, false));
            assertEquals(NumaspreadException.Kind.REFUSED, e.kind());
            assertTrue(
                    e.getMessage().contains("held by this process")
                            || e.getMessage().contains("is running"),
                    e.getMessage());
        }
        assertEquals(before, NicFixture.snapshot(proc, sys));
        applier(KernelFiles.DIRECT).apply(ETH0, settings(false), state, false);
        applier(KernelFiles.DIRECT).restore(state, Optional.of(ETH0));
        assertEquals(before, NicFixture.snapshot(proc, sys), "the lock is released after each");
    }

    @Test
    void restoreWithoutAStateFileSaysSo() {
        NumaspreadException e = assertThrows(
                NumaspreadException.class, () -> applier(KernelFiles.DIRECT).restore(state, Optional.empty()));
        assertTrue(e.getMessage().contains("no state file " + state), e.getMessage());
    }

    @Test
    void nothingToChangeWritesNoState() {
        applier(KernelFiles.DIRECT).apply(ETH0, settings(false), state, false);
        StateFile.delete(state);
        Map<Path, String> applied = NicFixture.snapshot(proc, sys);
        List<AffinityTransaction.Result> again = applier(KernelFiles.DIRECT).apply(ETH0, settings(false), state, false);
        assertTrue(again.stream().allMatch(r -> r.status() == AffinityTransaction.Status.UNCHANGED));
        assertFalse(Files.exists(state));
        assertEquals(applied, NicFixture.snapshot(proc, sys));
        assertNotEquals(before, applied);
    }

    /** The real files, except that write number N (counting from 1) fails as {@code fault} says. */
    private static KernelFiles inject(BiFunction<Path, Integer, IOException> fault) {
        return new ForwardingFiles() {
            private int writes;

            @Override
            public void write(Path file, String value) throws IOException {
                IOException failure = fault.apply(file, ++writes);
                if (failure != null) {
                    throw failure;
                }
                super.write(file, value);
            }
        };
    }
}
