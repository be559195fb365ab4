// SPDX-License-Identifier: Apache-2.0
package io.numaspread.irq;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.numaspread.NumaspreadException;
import io.numaspread.kernel.Errno;
import io.numaspread.kernel.InterfaceName;
import io.numaspread.kernel.KernelFiles;
import io.numaspread.nativeaccess.NativeCallException;
import io.numaspread.nic.IrqSuspension;
import io.numaspread.nic.NapiSettings;
import io.numaspread.nic.NapiSettingsChange;
import io.numaspread.testing.StandInNicTest;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The {@code napi_settings} entries of a state file: written before a process's first {@code napi-set}, they put
 * every NAPI's settings back exactly after the process is gone (a crash), all or nothing, naming the NAPI that
 * fails. The netlink side is a map standing in for the kernel's per-NAPI settings.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class NapiSettingsRestoreTest extends StandInNicTest {
    private static final InterfaceName ETH0 = new InterfaceName("eth0");
    private static final NapiSettings RECIPE = IrqSuspension.recipe().napi();

    /** The kernel's per-NAPI settings, by NAPI ID. */
    private final Map<Integer, NapiSettings> kernel = new TreeMap<>();

    private final List<String> calls = new ArrayList<>();
    /** The napi-set call (counted from 1) that fails, with this errno. */
    private int failAtSet = -1;

    private Errno failure = Errno.EINVAL;

    private final NapiSettingsChange.Access netlink = new NapiSettingsChange.Access() {
        @Override
        public NapiSettings read(int napiId) {
            NapiSettings settings = kernel.get(napiId);
            if (settings == null) {
                throw new NativeCallException("netlink netdev napi-get " + napiId, Errno.ENOENT.number(), "ENOENT", "");
            }
            return settings;
        }

        @Override
        public void write(int napiId, NapiSettings settings) {
            calls.add(napiId + "=" + settings.deferHardIrqs());
            if (calls.size() == failAtSet) {
                throw new NativeCallException(
                        "netlink netdev napi-set " + napiId, failure.number(), failure.name(), "");
            }
            if (!kernel.containsKey(napiId)) {
                throw new NativeCallException("netlink netdev napi-set " + napiId, Errno.ENOENT.number(), "ENOENT", "");
            }
            kernel.put(napiId, settings);
        }
    };

    @BeforeEach
    void napis() {
        kernel.put(8193, new NapiSettings(0, 0, 0));
        kernel.put(8194, new NapiSettings(2, 200_000, 0));
        kernel.put(8195, new NapiSettings(0, 0, 0));
    }

    private AffinityTransaction restorer() {
        return new AffinityTransaction(paths, KernelFiles.DIRECT, 8, NapiThreads.NONE, netlink);
    }

    /** What a process does before its first napi-set: the NAPIs' own settings go to the state file. */
    private Map<Integer, NapiSettings> recordThenSet(List<Integer> napiIds) {
        Map<Integer, NapiSettings> before = new TreeMap<>();
        napiIds.forEach(id -> before.put(id, netlink.read(id)));
        StateFile.write(state, new StateFile.State(ETH0, List.of()).recording(NapiSettingsRecord.of(before)));
        napiIds.forEach(id -> netlink.write(id, RECIPE));
        return before;
    }

    @Test
    void theEntriesReadBackAsWritten() {
        StateFile.State written = new StateFile.State(ETH0, List.of())
                .recording(NapiSettingsRecord.of(
                        Map.of(8193, new NapiSettings(0, 0, 0), 8194, new NapiSettings(2, 200_000, 7))));
        String text = StateFileFormat.encode(written);
        assertTrue(
                text.contains("{\"napi\": 8194, \"defer_hard_irqs\": 2, \"gro_flush_timeout\": 200000,"
                        + " \"irq_suspend_timeout\": 7}"),
                text);
        assertEquals(written, StateFileFormat.decode(text));
    }

    @Test
    void theFirstValueRecordedWinsAndPutBackOnesLeave() {
        StateFile.State first = new StateFile.State(ETH0, List.of())
                .recording(NapiSettingsRecord.of(Map.of(8193, new NapiSettings(0, 0, 0))));
        StateFile.State again = first.recording(NapiSettingsRecord.of(Map.of(8193, RECIPE, 8194, RECIPE)));
        assertEquals(
                Map.of(8193, new NapiSettings(0, 0, 0), 8194, RECIPE),
                again.record(NapiSettingsRecord.class).before());
        assertEquals(
                Map.of(8194, RECIPE),
                again.record(NapiSettingsRecord.class).without(List.of(8193)).before());
    }

    @Test
    void malformedEntriesAreRefusedNamingTheEntry() {
        String text = "{\"version\": 1, \"interface\": \"eth0\", \"napi_settings\": [{\"napi\": 8193,"
                + " \"defer_hard_irqs\": -1, \"gro_flush_timeout\": 0, \"irq_suspend_timeout\": 0}], \"saved\": []}";
        IllegalArgumentException refused =
                assertThrows(IllegalArgumentException.class, () -> StateFileFormat.decode(text));
        assertTrue(refused.getMessage().startsWith("entry 1 of \"napi_settings\" (NAPI 8193): "), refused.getMessage());
    }

    @Test
    void afterACrashRestorePutsEveryNapiBackExactly() {
        Map<Integer, NapiSettings> before = recordThenSet(List.of(8193, 8194));
        // The process is gone; only the state file knows what the NAPIs held.
        assertEquals(RECIPE, kernel.get(8194));
        restorer().restore(state, Optional.of(ETH0));
        assertEquals(before.get(8193), kernel.get(8193));
        assertEquals(before.get(8194), kernel.get(8194));
        assertEquals(new NapiSettings(0, 0, 0), kernel.get(8195), "an unrecorded NAPI is left alone");
        assertFalse(Files.exists(state), "every value is back, the state file is gone");
    }

    @Test
    void aRecordedChangeCrashedMidwayIsPutBackByRestore() {
        Map<Integer, NapiSettings> before = Map.of(8193, kernel.get(8193), 8194, kernel.get(8194));
        RecordedNapiSettings.apply(state, ETH0, netlink, List.of(8193, 8194), RECIPE);
        assertEquals(RECIPE, kernel.get(8193));
        assertEquals(
                before,
                StateFile.read(state)
                        .orElseThrow()
                        .record(NapiSettingsRecord.class)
                        .before(),
                "recorded before napi-set");
        // The process dies here: no restore() of its own.
        restorer().restore(state, Optional.of(ETH0));
        assertEquals(before.get(8193), kernel.get(8193));
        assertEquals(before.get(8194), kernel.get(8194));
        assertFalse(Files.exists(state));
    }

    @Test
    void aCleanRestoreTakesOnlyItsOwnEntriesOut() {
        NapiSettings applied = new NapiSettings(0, 0, 0);
        // An apply recorded 8193 first: its entry is the apply's to put back, so it stays.
        StateFile.write(
                state, new StateFile.State(ETH0, List.of()).recording(NapiSettingsRecord.of(Map.of(8193, applied))));
        kernel.put(8193, new NapiSettings(5, 5, 5));
        RecordedNapiSettings change = RecordedNapiSettings.apply(state, ETH0, netlink, List.of(8193, 8194), RECIPE);
        change.restore();
        assertEquals(new NapiSettings(5, 5, 5), kernel.get(8193));
        assertEquals(new NapiSettings(2, 200_000, 0), kernel.get(8194));
        assertEquals(
                Map.of(8193, applied),
                StateFile.read(state)
                        .orElseThrow()
                        .record(NapiSettingsRecord.class)
                        .before());
    }

    @Test
    void aCleanRestoreOfTheOnlyEntriesRemovesTheFile() {
        RecordedNapiSettings.apply(state, ETH0, netlink, List.of(8193, 8194), RECIPE)
                .restore();
        assertEquals(new NapiSettings(0, 0, 0), kernel.get(8193));
        assertFalse(Files.exists(state));
    }

    @Test
    void aFailedNapiSetPutsBackAndForgets() {
        failAtSet = 2;
        NativeCallException failed = assertThrows(
                NativeCallException.class,
                () -> RecordedNapiSettings.apply(state, ETH0, netlink, List.of(8193, 8194), RECIPE));
        assertEquals("netlink netdev napi-set 8194", failed.function());
        assertEquals(new NapiSettings(0, 0, 0), kernel.get(8193));
        assertFalse(Files.exists(state));
    }

    @Test
    void aNapiThatIsGoneHasNothingToPutBack() {
        Map<Integer, NapiSettings> before = recordThenSet(List.of(8193, 8194));
        kernel.remove(8193);
        restorer().restore(state, Optional.of(ETH0));
        assertEquals(before.get(8194), kernel.get(8194));
        assertFalse(Files.exists(state));
    }

    @Test
    void aFailedWriteNamesItsNapiAndKeepsTheStateFile() {
        recordThenSet(List.of(8193, 8194));
        failAtSet = calls.size() + 3; // the probe's write, 8193's put back, then 8194's fails
        NumaspreadException incomplete =
                assertThrows(NumaspreadException.class, () -> restorer().restore(state, Optional.of(ETH0)));
        assertEquals(NumaspreadException.Kind.INCOMPLETE, incomplete.kind());
        assertTrue(
                incomplete.getMessage().contains("NAPI 8194: putting its settings back failed"),
                incomplete.getMessage());
        assertTrue(Files.exists(state), "kept for another restore");
        assertEquals(new NapiSettings(0, 0, 0), kernel.get(8193));
    }

    @Test
    void withoutPrivilegeNothingIsChanged() {
        recordThenSet(List.of(8193, 8194));
        failAtSet = calls.size() + 1;
        failure = Errno.EPERM;
        NumaspreadException refused =
                assertThrows(NumaspreadException.class, () -> restorer().restore(state, Optional.of(ETH0)));
        assertEquals(NumaspreadException.Kind.REFUSED, refused.kind());
        assertTrue(refused.getMessage().startsWith("cannot put back NAPI 8193's settings: "), refused.getMessage());
        assertEquals(RECIPE, kernel.get(8193));
        assertEquals(RECIPE, kernel.get(8194));
        assertTrue(Files.exists(state));
    }
}
