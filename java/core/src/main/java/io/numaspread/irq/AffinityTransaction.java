// SPDX-License-Identifier: Apache-2.0
package io.numaspread.irq;

import io.numaspread.CpuSet;
import io.numaspread.NumaspreadException;
import io.numaspread.kernel.InterfaceName;
import io.numaspread.kernel.KernelFiles;
import io.numaspread.kernel.KernelPaths;
import io.numaspread.nic.NapiSettingsChange;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * Applies and restores a NIC's settings all or nothing. An apply is a list of {@link Change}s, one a kind, made in
 * order under the state file's lock: each is read, recorded in the write-ahead state file before its first write,
 * written and verified by reading it back; when one fails, every change made is put back, newest first. A restore
 * is the same run from the state file: each kind's record puts back what it holds. What is changed, and how each
 * kind words its failures, is the changes'; this class keeps the lock, the state file, the order and the roll back.
 */
public final class AffinityTransaction {
    /** What happened to one setting. */
    public enum Status {
        /** Written and verified. */
        CHANGED,
        /** Already held the planned CPUs. */
        UNCHANGED,
        /** Dry run: would be written. */
        WOULD_CHANGE,
        /** The kernel manages this IRQ's affinity and refused the write. */
        MANAGED,
        /** The kernel offers no such file on this device (XPS on a single-queue device). */
        UNAVAILABLE,
        /** Restore: put back as recorded. */
        RESTORED,
        /** Restore: the IRQ or transmit queue no longer exists (freed, renumbered, removed by ethtool -L). */
        GONE;

        /** How reports name it: "would change", "unchanged". */
        public String label() {
            return name().toLowerCase(Locale.ROOT).replace('_', ' ');
        }
    }

    /**
     * @param before the file's text before this run
     * @param detail why, for MANAGED and UNAVAILABLE
     */
    public record Result(Target target, CpuSet planned, String before, Status status, String detail) {}

    private final ChangeContext kernel;

    /**
     * @param maskBits the number of CPUs the machine can have (cpu/possible), which sizes hex masks
     */
    public AffinityTransaction(KernelPaths paths, KernelFiles files, int maskBits) {
        this(paths, files, maskBits, NapiThreads.NONE);
    }

    /**
     * @param threads how NAPI threads are found and pinned, for settings and state entries of NAPI threads
     */
    public AffinityTransaction(KernelPaths paths, KernelFiles files, int maskBits, NapiThreads threads) {
        this(paths, files, maskBits, threads, NapiSettingsChange.Access.NONE);
    }

    /**
     * @param napiSettings each NAPI's busy-poll settings (netdev netlink, Linux 6.13), for the restore that puts
     *     back the ones a state file's {@code napi_settings} recorded
     */
    public AffinityTransaction(
            KernelPaths paths,
            KernelFiles files,
            int maskBits,
            NapiThreads threads,
            NapiSettingsChange.Access napiSettings) {
        this.kernel = new ChangeContext(paths, files, maskBits, threads, napiSettings);
    }

    /**
     * @throws NumaspreadException REFUSED (no privilege; nothing changed), BAD_INPUT (unreadable file, stale state;
     *     nothing changed; a {@link RestoreNeeded} for a stale state file) or ROLLED_BACK (a write failed; every
     *     change was put back, or a {@link RestoreNeeded} says which could not be)
     */
    public List<Result> apply(InterfaceName iface, List<Setting> settings, Path stateFile, boolean dryRun) {
        return apply(iface, settings, Optional.empty(), List.of(), stateFile, dryRun);
    }

    /**
     * As {@link #apply(InterfaceName, List, Path, boolean)}, with NAPI threads (the changes {@code threading} makes
     * around the settings' affinity, {@link ThreadedNapiOn#changes}) and the kinds of change {@code asked} after
     * them, all or nothing together. A dry run reads and reports the affinity alone.
     */
    List<Result> apply(
            InterfaceName iface,
            List<Setting> settings,
            Optional<ThreadedNapiOn> threading,
            List<Change.Asked> asked,
            Path stateFile,
            boolean dryRun) {
        StateFile.checkPath(stateFile);
        List<Change> changes = new ArrayList<>(threading
                .map(way -> way.changes(kernel, iface, settings, dryRun))
                .orElseGet(() -> List.of(new AffinityChange(kernel, settings))));
        if (!dryRun) {
            asked.forEach(kind -> changes.add(kind.of(kernel, iface)));
        }
        return apply(changes, iface, stateFile, dryRun);
    }

    /**
     * Makes {@code changes} all or nothing. One change alone is read first: a dry run, or one with nothing to
     * change, ends there, without the lock or the state file. Each change is probed for privilege before anything
     * is written.
     *
     * @param changes in the order they are made; a dry run's is one change
     */
    @SuppressWarnings("try") // the lock is held, not used
    private List<Result> apply(List<Change> changes, InterfaceName iface, Path stateFile, boolean dryRun) {
        if (changes.size() == 1) {
            Change only = changes.get(0);
            only.read();
            if (dryRun || !only.changesAnything()) {
                return only.results(true);
            }
        } else if (dryRun) {
            throw new IllegalArgumentException("a dry run reads one change, not " + changes.size());
        }
        changes.forEach(Change::probe);
        try (StateFile.Lock lock = StateFile.lock(stateFile)) {
            return run(iface, changes, stateFile);
        }
    }

    /**
     * Makes each change in order, holding the state file's lock: each is read again (until the lock was held,
     * another numaspread could have changed what it reads), recorded, written and verified. The state file is
     * checked before the first record.
     */
    private List<Result> run(InterfaceName iface, List<Change> changes, Path stateFile) {
        Optional<StateFile.State> existing = StateFile.read(stateFile);
        boolean recorded = false;
        List<Change> done = new ArrayList<>();
        for (Change change : changes) {
            try {
                change.read();
                if (change.changesAnything()) {
                    StateFile.State state = recorded
                            ? StateFile.read(stateFile).orElseThrow()
                            : checked(iface, existing, stateFile, changes);
                    StateFile.write(stateFile, change.record(state));
                    recorded = true;
                    change.apply();
                }
            } catch (NumaspreadException e) {
                throw rollBack(change, done, e, recorded && existing.isEmpty(), recorded, stateFile);
            }
            done.add(change);
        }
        return changes.stream()
                .flatMap(change -> change.results(false).stream())
                .toList();
    }

    /**
     * The state file to add to, or a new one: refuses one that another interface owns, or that a change finds
     * it would be wrong to add to.
     */
    private static StateFile.State checked(
            InterfaceName iface, Optional<StateFile.State> existing, Path stateFile, List<Change> changes) {
        if (existing.isEmpty()) {
            return new StateFile.State(iface, List.of());
        }
        if (!existing.get().iface().equals(iface)) {
            throw new StateFileUnusable(
                    NumaspreadException.Kind.BAD_INPUT,
                    "state file " + stateFile + " is for " + existing.get().iface() + ", not " + iface
                            + "; nothing was changed",
                    stateFile,
                    null);
        }
        changes.forEach(change -> change.check(existing.get(), stateFile));
        return existing.get();
    }

    /**
     * Puts back what {@code failing} and each change {@code done} before it wrote, newest first. When everything is
     * back, the state file goes if this run created it, and otherwise loses what the run recorded that is no longer
     * true; when something is not, it stays for {@code restore}, and the failure names what is not back.
     *
     * @param recorded whether this run wrote the state file
     */
    private NumaspreadException rollBack(
            Change failing,
            List<Change> done,
            NumaspreadException cause,
            boolean created,
            boolean recorded,
            Path stateFile) {
        List<Change> undoing = new ArrayList<>(List.of(failing));
        for (int i = done.size() - 1; i >= 0; i--) {
            undoing.add(done.get(i));
        }
        List<String> stuck = new ArrayList<>();
        undoing.forEach(change -> stuck.addAll(change.undo()));
        if (!stuck.isEmpty()) {
            RestoreNeeded failed = new RestoreNeeded(
                    cause.kind(),
                    cause.getMessage() + "; ROLLBACK FAILED for " + String.join(", ", stuck),
                    stateFile,
                    kernel.paths(),
                    "");
            failed.initCause(cause);
            return failed;
        }
        if (created) {
            StateFile.delete(stateFile);
        } else if (recorded) {
            StateFile.read(stateFile).ifPresent(state -> {
                StateFile.State left = state;
                for (Change change : undoing) {
                    left = change.forget(left);
                }
                if (!left.equals(state)) {
                    StateFile.write(stateFile, left);
                }
            });
        }
        if (cause instanceof Change.Failed failed) {
            return failing.rolledBack(
                    failed, undoing.stream().mapToInt(Change::undone).sum());
        }
        List<String> undone = undoing.stream()
                .map(Change::undoneWords)
                .flatMap(Optional::stream)
                .toList();
        if (undone.isEmpty()) {
            return cause;
        }
        String back = "; " + String.join("; ", undone) + "; nothing else was changed";
        if (cause instanceof RestoreNeeded stale) {
            return stale.followedBy(back);
        }
        return cause instanceof NapiFeatureFailure failed
                ? failed.followedBy(back)
                : new NumaspreadException(cause.kind(), cause.getMessage() + back, cause);
    }

    /**
     * Puts back what {@code stateFile} recorded, and removes the file when every value is back. The whole file is
     * checked before the first write; an IRQ or transmit queue that no longer exists is reported as {@link
     * Status#GONE} and is no failure, since there is nothing left to put back.
     *
     * @throws NumaspreadException BAD_INPUT (no, wrong or malformed state file, or a value this machine cannot
     *     hold; nothing was written), REFUSED (no privilege; nothing was written) or INCOMPLETE (some values could
     *     not be put back; the state file is kept), naming each
     */
    @SuppressWarnings("try") // the lock is held, not used
    public List<Result> restore(Path stateFile, Optional<InterfaceName> expected) {
        // As apply does: without privilege, refuse before the lock file or any IRQ is touched.
        putBacks(stateOf(stateFile, expected), "state file " + stateFile).forEach(Change.PutBack::probe);
        try (StateFile.Lock lock = StateFile.lock(stateFile)) {
            List<Result> results = new ArrayList<>();
            List<String> failures = putBack(stateOf(stateFile, expected), "state file " + stateFile, results);
            if (!failures.isEmpty()) {
                throw new NumaspreadException(
                        NumaspreadException.Kind.INCOMPLETE,
                        "could not restore everything: " + String.join("; ", failures) + "; the state file " + stateFile
                                + " is kept");
            }
            StateFile.delete(stateFile);
            return results;
        }
    }

    private static StateFile.State stateOf(Path stateFile, Optional<InterfaceName> expected) {
        StateFile.State state = StateFile.read(stateFile)
                .orElseThrow(() -> NumaspreadException.badInput("no state file " + stateFile
                        + ": nothing to restore (apply writes it before changing anything)"));
        if (expected.isPresent() && !expected.get().equals(state.iface())) {
            throw NumaspreadException.badInput(
                    "state file " + stateFile + " is for " + state.iface() + ", not " + expected.get());
        }
        List<String> foreign = StateFile.foreignRecords(stateFile);
        if (!foreign.isEmpty()) {
            throw NumaspreadException.badInput("state file " + stateFile + " holds records this numaspread does not"
                    + " know (" + foreign.stream().map(key -> "\"" + key + "\"").collect(Collectors.joining(", "))
                    + "), written by a newer one: restore with that one, which puts them back too; nothing was"
                    + " written");
        }
        return state;
    }

    /**
     * Puts back what {@code changed} records, as restore does, with no state file read or removed: the undo of one
     * NIC's apply, which succeeded, when a later NIC of the same joint apply failed. The caller holds the NIC's
     * state file lock.
     *
     * @param changed what the apply changed, each value as it was before the apply
     * @return what could not be put back, each named; empty when everything is back
     */
    public List<String> putBack(StateFile.State changed) {
        return putBack(changed, "the values " + changed.iface() + " had", new ArrayList<>());
    }

    /**
     * Puts back each kind's record in turn: those of the NAPI threads first (their affinity and class), since
     * turning threaded NAPI off stops the threads; then the others in the file's order, the device's switch before
     * the NAPIs' own values, which are then put back exactly over it.
     *
     * @param source what {@code state} comes from, for the refusal of values this machine cannot hold
     * @return the failures, each naming what failed
     */
    private List<String> putBack(StateFile.State state, String source, List<Result> results) {
        List<String> failures = new ArrayList<>();
        putBacks(state, source).forEach(putBack -> failures.addAll(putBack.putBack(results)));
        return failures;
    }

    private List<Change.PutBack> putBacks(StateFile.State state, String source) {
        List<Change.PutBack> all = new ArrayList<>();
        all.add(AffinityChange.restoring(state.saved(), kernel, state.iface(), source));
        state.records().forEach(record -> all.add(record.kind().restoring(record, kernel, state.iface())));
        return all.stream()
                .sorted(Comparator.comparing(putBack -> !putBack.needsNapiThreads()))
                .toList();
    }
}
