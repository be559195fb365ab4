// SPDX-License-Identifier: Apache-2.0
package io.numaspread.irq;

import io.numaspread.NumaspreadException;
import io.numaspread.kernel.InterfaceName;
import io.numaspread.nic.NapiSettings;
import io.numaspread.nic.NapiSettingsChange;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A {@link NapiSettingsChange} recorded write-ahead in the NIC's state file: each NAPI's own settings go into its
 * {@code napi_settings} entries before the first {@code napi-set}, so that {@code numaspread restore --nic IFACE}
 * puts them back exactly if the process dies holding them; a clean {@link #restore} puts them back and takes its
 * entries out again, removing the file when nothing else is recorded. The entries share the file with an {@code
 * apply}'s for the same NIC (the first value recorded for a NAPI wins), so one restore undoes both.
 */
public final class RecordedNapiSettings {
    private final Path stateFile;
    private final NapiSettingsChange change;
    /** The NAPIs whose entries this change added: one recorded earlier (by an apply) is left to its owner. */
    private final List<Integer> added;

    private RecordedNapiSettings(Path stateFile, NapiSettingsChange change, List<Integer> added) {
        this.stateFile = stateFile;
        this.change = change;
        this.added = List.copyOf(added);
    }

    /**
     * Reads each NAPI's settings, records them in {@code stateFile} (under its lock), then writes {@code wanted} to
     * all or none. When the writes fail and every NAPI already written was put back, the entries are taken out
     * again; when one could not be put back (a failure suppressed in the one thrown), they stay for {@code
     * numaspread restore}.
     *
     * @throws io.numaspread.NumaspreadException as {@link NapiSettingsChange#apply} does, or REFUSED when the
     *     state file cannot be locked or written (nothing was changed)
     */
    @SuppressWarnings("try") // the lock is held, not used
    public static RecordedNapiSettings apply(
            Path stateFile,
            InterfaceName iface,
            NapiSettingsChange.Access access,
            List<Integer> napiIds,
            NapiSettings wanted) {
        Map<Integer, NapiSettings> before = new LinkedHashMap<>();
        napiIds.forEach(napiId -> before.put(napiId, access.read(napiId)));
        List<Integer> added;
        try (StateFile.Lock lock = StateFile.lock(stateFile)) {
            StateFile.State state = StateFile.read(stateFile).orElseGet(() -> new StateFile.State(iface, List.of()));
            if (!state.iface().equals(iface)) {
                throw new StateFileUnusable(
                        NumaspreadException.Kind.BAD_INPUT,
                        "state file " + stateFile + " is for " + state.iface() + ", not " + iface
                                + "; nothing was changed",
                        stateFile,
                        null);
            }
            added = NapiEntries.notIn(
                    napiIds, state.record(NapiSettingsRecord.class).before());
            StateFile.write(stateFile, state.recording(NapiSettingsRecord.of(before)));
        }
        try {
            return new RecordedNapiSettings(stateFile, NapiSettingsChange.apply(access, napiIds, wanted), added);
        } catch (RuntimeException e) {
            // A NAPI that could not be put back (a suppressed failure) keeps its entries: they are restore's way back.
            if (e.getSuppressed().length == 0) {
                try {
                    forget(stateFile, added);
                } catch (RuntimeException notForgotten) {
                    e.addSuppressed(notForgotten);
                }
            }
            throw e;
        }
    }

    /** Each NAPI's settings before {@link #apply}, in order. */
    public Map<Integer, NapiSettings> before() {
        return change.before();
    }

    /**
     * Puts every NAPI back as it was, then takes this change's entries out of the state file; when a NAPI cannot be
     * put back, the entries stay for {@code numaspread restore}.
     */
    public void restore() {
        change.restore();
        forget(stateFile, added);
    }

    @SuppressWarnings("try") // the lock is held, not used
    private static void forget(Path stateFile, List<Integer> napiIds) {
        try (StateFile.Lock lock = StateFile.lock(stateFile)) {
            StateFile.read(stateFile).ifPresent(state -> {
                StateFile.State left =
                        state.with(state.record(NapiSettingsRecord.class).without(napiIds));
                if (left.isEmpty()) {
                    StateFile.delete(stateFile);
                } else {
                    StateFile.write(stateFile, left);
                }
            });
        }
    }
}
