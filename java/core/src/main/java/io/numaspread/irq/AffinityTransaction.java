// SPDX-License-Identifier: Apache-2.0
package io.numaspread.irq;

import io.numaspread.CpuSet;
import io.numaspread.NumaspreadException;
import io.numaspread.kernel.Errno;
import io.numaspread.kernel.InterfaceName;
import io.numaspread.kernel.KernelFiles;
import io.numaspread.kernel.KernelPaths;
import io.numaspread.kernel.KernelText;
import io.numaspread.kernel.ThreadScheduling;
import io.numaspread.nic.InterruptTable;
import io.numaspread.nic.NapiSettings;
import io.numaspread.nic.NapiSettingsChange;
import io.numaspread.nic.PerNapiThreaded;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Supplier;
import java.util.stream.Collectors;

/**
 * Applies and restores a NIC's settings all or nothing. Before the first change it records, in a write-ahead
 * state file, what every file it will touch held; it verifies each write by reading it back; when a write or a
 * verification fails it puts back every change it made. IRQs the kernel manages (EIO, or EPERM while others
 * succeed) are reported and left alone. What it changes is read and written by kind: IRQ affinity ({@link
 * IrqAffinity}), XPS masks ({@link XpsMasks}), NAPI threads' affinity ({@link NapiThreadAffinity}) and the threaded
 * NAPI switch ({@link ThreadedNapi}); this class keeps the state file, the order and the roll back.
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

    private record Applied(Setting setting, String before) {}

    /**
     * Turning threaded NAPI on as part of an apply: the NAPI threads exist only once it is on, so their settings
     * are planned then. Where the kernel reports each NAPI's own {@code threaded} (netdev netlink, Linux 6.17),
     * only the planned NAPIs are turned on, one by one with {@code napi-set}; otherwise the device's sysfs switch
     * turns on every NAPI of the device.
     *
     * @param threadedFile {@code /sys/class/net/IFACE/threaded}
     * @param perNapi the planned NAPIs' own {@code threaded} as {@code napi-get} reports them, by NAPI ID, or
     *     empty when the kernel reports none: then {@code threadedFile} is used
     * @param threadSettings the NAPI thread settings, planned from the threads that exist when it is called
     * @param busyPoll the NAPIs of {@code perNapi} whose threads are to busy-poll ({@code threaded} 2, Linux 6.19);
     *     the others are to be threaded (1, or 2 as they are)
     * @param busyPollScheduling the scheduling class the busy-poll threads get ({@code --poll-sched}), or empty to
     *     leave theirs as it is
     */
    public record Threading(
            Path threadedFile,
            Optional<Map<Integer, Integer>> perNapi,
            Supplier<List<Setting>> threadSettings,
            Set<Integer> busyPoll,
            Optional<ThreadScheduling> busyPollScheduling) {
        public Threading {
            perNapi = perNapi.map(TreeMap::new).map(Collections::unmodifiableMap);
            Set<Integer> polled = Set.copyOf(busyPoll);
            busyPoll = polled;
            if (!polled.isEmpty()
                    && !perNapi.map(napis -> napis.keySet().containsAll(polled)).orElse(false)) {
                throw new IllegalArgumentException(
                        "busy polling is set NAPI by NAPI: NAPIs " + busyPoll + " need their own threaded");
            }
            if (busyPollScheduling.isPresent() && polled.isEmpty()) {
                throw new IllegalArgumentException("a scheduling class for busy-poll threads, and no NAPI busy-polls");
            }
        }

        /** Busy polling with the threads' scheduling class as it is. */
        public Threading(
                Path threadedFile,
                Optional<Map<Integer, Integer>> perNapi,
                Supplier<List<Setting>> threadSettings,
                Set<Integer> busyPoll) {
            this(threadedFile, perNapi, threadSettings, busyPoll, Optional.empty());
        }

        /** Threaded NAPI for {@code perNapi}'s NAPIs, none of them busy-polling. */
        public Threading(
                Path threadedFile, Optional<Map<Integer, Integer>> perNapi, Supplier<List<Setting>> threadSettings) {
            this(threadedFile, perNapi, threadSettings, Set.of(), Optional.empty());
        }

        /**
         * The planned NAPIs whose {@code threaded} must change: those off, and those to busy-poll that do not yet;
         * empty when the device's switch is used.
         */
        List<Integer> napisOff() {
            return perNapi.map(napis -> napis.entrySet().stream()
                            .filter(napi -> napi.getValue() == 0
                                    || busyPoll.contains(napi.getKey()) && napi.getValue() != PerNapiThreaded.BUSY_POLL)
                            .map(Map.Entry::getKey)
                            .toList())
                    .orElse(List.of());
        }

        /** The busy-poll threads' scheduling step, when one is asked for. */
        Optional<Scheduling> scheduling() {
            return busyPollScheduling.map(wanted -> new Scheduling(new TreeSet<>(busyPoll), wanted));
        }

        /** The {@code threaded} NAPI {@code napiId} is set to: 2 to busy-poll, else 1. */
        int wanted(int napiId) {
            return busyPoll.contains(napiId) ? PerNapiThreaded.BUSY_POLL : 1;
        }
    }

    /** Setting these NAPIs' threads to {@code wanted}, the last step of an apply. */
    private record Scheduling(SortedSet<Integer> napiIds, ThreadScheduling wanted) {}

    /** What an apply turned on: the device's {@code threaded} file, or these NAPIs one by one. */
    private sealed interface Switched {}

    private record DeviceSwitched(Path threadedFile) implements Switched {}

    /**
     * @param before each switched NAPI's {@code threaded} before this run, by NAPI ID, in the order switched
     * @param recorded the NAPIs whose previous value this run added to the state file (an earlier apply's record
     *     of a NAPI stays)
     */
    private record NapisSwitched(InterfaceName iface, Map<Integer, Integer> before, List<Integer> recorded)
            implements Switched {
        List<Integer> napiIds() {
            return List.copyOf(before.keySet());
        }
    }

    /**
     * What this run must undo besides its writes: the state file it created, and threaded NAPI when it turned it
     * on.
     */
    private record Run(boolean createdState, Optional<Switched> threadedSwitched) {}

    private final KernelPaths paths;
    private final int maskBits;
    private final IrqAffinity irqs;
    private final XpsMasks xps;
    private final NapiThreadAffinity napiThreads;
    private final ThreadedNapi threaded;
    private final PerNapiThreaded perNapi;
    private final NapiSettingsChange.Access napiSettings;
    private final NapiThreads threads;

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
        this.napiSettings = napiSettings;
        this.threads = threads;
        this.paths = paths;
        this.maskBits = maskBits;
        this.irqs = new IrqAffinity(paths, files);
        this.xps = new XpsMasks(paths, files);
        this.napiThreads = new NapiThreadAffinity(paths, threads);
        this.threaded = new ThreadedNapi(paths, files);
        this.perNapi = threads.perNapi();
    }

    /**
     * @throws NumaspreadException REFUSED (no privilege; nothing changed), BAD_INPUT (unreadable file, stale state;
     *     nothing changed; a {@link RestoreNeeded} for a stale state file) or ROLLED_BACK (a write failed; every
     *     change was put back, or a {@link RestoreNeeded} says which could not be)
     */
    public List<Result> apply(InterfaceName iface, List<Setting> settings, Path stateFile, boolean dryRun) {
        return apply(iface, settings, Optional.empty(), stateFile, dryRun);
    }

    /**
     * As {@link #apply(InterfaceName, List, Path, boolean)}, with NAPI threads: when {@code threading}'s file holds
     * 0, it is recorded and set to 1 first (under the state file's lock), the thread settings are planned from
     * the threads that then exist, and a failure anywhere puts {@code threaded} back with everything else. A dry
     * run with threaded NAPI off leaves the threads out: there are none yet.
     */
    @SuppressWarnings("try") // the lock is held, not used
    public List<Result> apply(
            InterfaceName iface,
            List<Setting> settings,
            Optional<Threading> threading,
            Path stateFile,
            boolean dryRun) {
        StateFile.checkPath(stateFile);
        if (threading.isPresent() && needsSwitching(threading.get())) {
            if (dryRun) {
                return apply(iface, settings, Optional.empty(), stateFile, true);
            }
            probeSwitch(threading.get());
            settings.forEach(setting -> probe(setting.target()));
            try (StateFile.Lock lock = StateFile.lock(stateFile)) {
                Run run = threading.get().perNapi().isPresent()
                        ? switchNapisOn(iface, threading.get(), stateFile, settings)
                        : switchThreadedOn(iface, threading.get().threadedFile(), stateFile, settings);
                List<Setting> all = settings;
                try {
                    all = new ArrayList<>(settings);
                    all.addAll(threading.get().threadSettings().get());
                    for (Setting setting : all.subList(settings.size(), all.size())) {
                        probe(setting.target());
                    }
                    return inOrderOf(
                            all,
                            applyHoldingLock(
                                    iface,
                                    all,
                                    read(all),
                                    stateFile,
                                    run,
                                    threading.get().scheduling()));
                } catch (NumaspreadException e) {
                    // A failed sched_setscheduler's roll back (refused, or rolled back) put threaded back too.
                    if (e.kind() == NumaspreadException.Kind.ROLLED_BACK
                            || e instanceof NapiFeatureFailure failure
                                    && failure.feature() == NapiFeatureFailure.Feature.POLL_SCHEDULING) {
                        throw e; // the roll back put threaded back too
                    }
                    throw switchedBack(run, stateFile, e);
                }
            }
        }
        if (threading.isPresent()) {
            List<Setting> all = new ArrayList<>(settings);
            all.addAll(threading.get().threadSettings().get());
            settings = all;
        }
        Optional<Scheduling> scheduling = threading.flatMap(Threading::scheduling);
        Reading now = read(settings);
        if (dryRun || now.pending().isEmpty() && scheduling.isEmpty()) {
            List<Result> results = new ArrayList<>(now.settled());
            now.pending()
                    .forEach(p -> results.add(
                            new Result(p.setting().target(), p.setting().cpus(), p.before(), Status.WOULD_CHANGE, "")));
            return inOrderOf(settings, results);
        }
        for (Applied change : now.pending()) {
            probe(change.setting().target());
        }
        try (StateFile.Lock lock = StateFile.lock(stateFile)) {
            // Read again: until the lock was held, another numaspread could have changed them.
            Reading locked = read(settings);
            return inOrderOf(settings, applyHoldingLock(iface, settings, locked, stateFile, null, scheduling));
        }
    }

    /** Whether threaded NAPI must be turned on: for a planned NAPI, or (without per-NAPI) for the device. */
    private boolean needsSwitching(Threading threading) {
        return threading.perNapi().isPresent()
                ? !threading.napisOff().isEmpty()
                : threaded.read(threading.threadedFile()) == 0;
    }

    /**
     * Refuses before any change when threaded NAPI cannot be turned on for want of privilege: per NAPI, by setting
     * one NAPI's {@code threaded} to the value it holds, which changes nothing.
     */
    private void probeSwitch(Threading threading) {
        if (threading.perNapi().isEmpty()) {
            threaded.probe(threading.threadedFile());
            return;
        }
        int napiId = threading.napisOff().get(0);
        try {
            perNapi.write(napiId, threading.perNapi().get().get(napiId));
        } catch (IOException e) {
            Errno errno = Errno.of(e);
            if (errno == Errno.EPERM || errno == Errno.EACCES) {
                throw napiSetRefused("cannot turn threaded NAPI on for NAPI " + napiId, Errno.describe(e));
            }
            // Anything else is the write's to report, and to roll back.
        }
    }

    /**
     * Records each planned NAPI's {@code threaded} in the state file, then sets each to 1 (2 to busy-poll) with
     * {@code napi-set} and reads them back: the kernel starts that NAPI's {@code napi/IFACE-ID} thread as it takes
     * the call, and the device's other NAPIs stay as they are.
     */
    private Run switchNapisOn(InterfaceName iface, Threading threading, Path stateFile, List<Setting> settings) {
        Optional<StateFile.State> existing = StateFile.read(stateFile);
        checkState(iface, existing, stateFile, settings);
        List<Integer> off = threading.napisOff();
        Map<Integer, Integer> before = new LinkedHashMap<>();
        off.forEach(napiId -> before.put(napiId, threading.perNapi().get().get(napiId)));
        List<Integer> recorded = off.stream()
                .filter(napiId -> existing.map(
                                state -> !state.napiThreadedBefore().containsKey(napiId))
                        .orElse(true))
                .toList();
        StateFile.write(
                stateFile,
                existing.orElseGet(() -> new StateFile.State(iface, List.of())).withNapiThreadedBefore(before));
        Map<Integer, Integer> written = new LinkedHashMap<>();
        for (int napiId : off) {
            // Undone with the others even when the call failed: setting a NAPI to the value it holds changes nothing.
            written.put(napiId, before.get(napiId));
            int wanted = threading.wanted(napiId);
            try {
                perNapi.write(napiId, wanted);
            } catch (IOException e) {
                Run run = new Run(
                        existing.isEmpty(),
                        Optional.of(new NapisSwitched(iface, new LinkedHashMap<>(written), recorded)));
                throw switchedBack(
                        run,
                        stateFile,
                        new NumaspreadException(
                                NumaspreadException.Kind.ROLLED_BACK,
                                "NAPI " + napiId + ": netdev napi-set threaded " + wanted + " failed: "
                                        + Errno.describe(e)));
            }
        }
        Run run = new Run(existing.isEmpty(), Optional.of(new NapisSwitched(iface, written, recorded)));
        Map<Integer, Integer> now = perNapi.read(iface);
        for (int napiId : off) {
            Integer back = now.get(napiId);
            int wanted = threading.wanted(napiId);
            // Threaded asked: 1 or 2 both run the thread. Busy-poll asked: only 2 spins.
            if (back == null || back == 0 || wanted == PerNapiThreaded.BUSY_POLL && back != wanted) {
                throw switchedBack(
                        run,
                        stateFile,
                        new NumaspreadException(
                                NumaspreadException.Kind.ROLLED_BACK,
                                "NAPI " + napiId + ": netdev napi-set threaded " + wanted
                                        + " was taken, but napi-get reports "
                                        + (back == null ? "no such NAPI" : "threaded " + back) + " after it"));
            }
        }
        return run;
    }

    /**
     * Records {@code threaded} = 0 in the state file, then writes 1 and reads it back: the kernel starts the
     * {@code napi/IFACE-ID} threads as it takes the write.
     */
    private Run switchThreadedOn(InterfaceName iface, Path threadedFile, Path stateFile, List<Setting> settings) {
        Optional<StateFile.State> existing = StateFile.read(stateFile);
        checkState(iface, existing, stateFile, settings);
        StateFile.write(
                stateFile,
                existing.orElseGet(() -> new StateFile.State(iface, List.of())).withThreadedBefore(0));
        Run run = new Run(existing.isEmpty(), Optional.of(new DeviceSwitched(threadedFile)));
        Optional<String> failure = threaded.switchOn(threadedFile);
        if (failure.isPresent()) {
            throw switchedBack(
                    run, stateFile, new NumaspreadException(NumaspreadException.Kind.ROLLED_BACK, failure.get()));
        }
        return run;
    }

    /**
     * Puts threaded NAPI back off after a failure that changed nothing else, and takes its record out of the state
     * file (the whole file when this run created it).
     */
    private NumaspreadException switchedBack(Run run, Path stateFile, NumaspreadException cause) {
        Switched switched = run.threadedSwitched().orElseThrow();
        List<String> stuck = switchOff(switched);
        if (stuck.isEmpty()) {
            if (run.createdState()) {
                StateFile.delete(stateFile);
            } else {
                StateFile.read(stateFile).ifPresent(state -> StateFile.write(stateFile, without(state, switched)));
            }
            String back = "; " + describeOff(switched) + "; nothing else was changed";
            if (cause instanceof RestoreNeeded stale) {
                return stale.followedBy(back);
            }
            return cause instanceof NapiFeatureFailure failed
                    ? failed.followedBy(back)
                    : new NumaspreadException(cause.kind(), cause.getMessage() + back, cause);
        }
        RestoreNeeded failed = new RestoreNeeded(
                cause.kind(),
                cause.getMessage() + "; ROLLBACK FAILED for " + String.join(", ", stuck),
                stateFile,
                paths,
                "");
        failed.initCause(cause);
        return failed;
    }

    /** Turns off what an apply turned on; what could not be, named with why. */
    private List<String> switchOff(Switched switched) {
        List<String> stuck = new ArrayList<>();
        if (switched instanceof DeviceSwitched device) {
            try {
                if (!threaded.switchOff(device.threadedFile())) {
                    stuck.add(device.threadedFile() + " (it does not read back as 0)");
                }
            } catch (IOException e) {
                stuck.add(device.threadedFile() + " (" + Errno.describe(e) + ")");
            }
            return stuck;
        }
        NapisSwitched napis = (NapisSwitched) switched;
        List<Integer> written = new ArrayList<>();
        napis.before().forEach((napiId, before) -> {
            try {
                perNapi.write(napiId, before);
                written.add(napiId);
            } catch (IOException e) {
                stuck.add("NAPI " + napiId + " (netdev napi-set threaded " + before + ": " + Errno.describe(e) + ")");
            }
        });
        Map<Integer, Integer> now = written.isEmpty() ? Map.of() : perNapi.read(napis.iface());
        for (int napiId : written) {
            Integer back = now.get(napiId);
            int before = napis.before().get(napiId);
            if (back != null && back != before) {
                stuck.add("NAPI " + napiId + " (napi-get reports threaded " + back + " after napi-set threaded "
                        + before + ")");
            }
        }
        return stuck;
    }

    /** {@code state} without what this run recorded of the threaded NAPI it turned on and then off again. */
    private static StateFile.State without(StateFile.State state, Switched switched) {
        return switched instanceof NapisSwitched napis
                ? state.withoutNapiThreaded(napis.recorded())
                : state.withoutThreaded();
    }

    private static String describeOff(Switched switched) {
        if (switched instanceof DeviceSwitched device) {
            return device.threadedFile() + " is 0 again";
        }
        NapisSwitched napis = (NapisSwitched) switched;
        String ids = napis.napiIds().stream().map(String::valueOf).collect(Collectors.joining(", "));
        return napis.before().values().stream().allMatch(before -> before == 0)
                ? "threaded NAPI is off again for NAPI " + ids
                : "NAPI " + ids + " are back to threaded "
                        + napis.before().values().stream().map(String::valueOf).collect(Collectors.joining(", "));
    }

    /** The settings' files as they are: those that already hold their CPUs (or cannot), and those to change. */
    private record Reading(List<Result> settled, List<Applied> pending) {}

    private Reading read(List<Setting> settings) {
        List<Result> settled = new ArrayList<>();
        List<Applied> pending = new ArrayList<>();
        for (Setting setting : settings) {
            Optional<String> before = readCurrent(setting.target());
            if (before.isEmpty()) {
                settled.add(new Result(
                        setting.target(),
                        setting.cpus(),
                        "",
                        Status.UNAVAILABLE,
                        where(setting.target()) + " cannot be read (ENOENT): the device has one transmit queue"));
            } else if (parse(setting.target(), before.get()).equals(setting.cpus())) {
                settled.add(new Result(setting.target(), setting.cpus(), before.get(), Status.UNCHANGED, ""));
            } else {
                pending.add(new Applied(setting, before.get()));
            }
        }
        return new Reading(settled, pending);
    }

    /**
     * @param switched what an earlier step of this run did (turned threaded on, created the state file), or null
     * @param scheduling the busy-poll threads' scheduling class to set last, after their affinity
     */
    private List<Result> applyHoldingLock(
            InterfaceName iface,
            List<Setting> settings,
            Reading now,
            Path stateFile,
            Run switched,
            Optional<Scheduling> scheduling) {
        List<Result> results = new ArrayList<>(now.settled());
        List<Applied> pending = now.pending();
        if (pending.isEmpty()) {
            if (scheduling.isPresent()) {
                Run run = switched != null
                        ? switched
                        : new Run(StateFile.read(stateFile).isEmpty(), Optional.empty());
                schedule(iface, scheduling.get(), List.of(), run, stateFile);
            }
            return results;
        }
        Optional<StateFile.State> existing = StateFile.read(stateFile);
        checkState(iface, existing, stateFile, settings);
        List<StateFile.Saved> additions = pending.stream()
                .map(p -> new StateFile.Saved(p.setting().target(), p.before()))
                .toList();
        StateFile.write(
                stateFile,
                existing.map(s -> s.mergedWith(additions)).orElseGet(() -> new StateFile.State(iface, additions)));
        Run run = switched != null ? switched : new Run(existing.isEmpty(), Optional.empty());

        List<Applied> applied = new ArrayList<>();
        Map<Applied, Errno> refused = new LinkedHashMap<>();
        for (Applied change : ofKind(pending, Target.Kind.IRQ)) {
            writeAndVerify(change, applied, run, stateFile).ifPresent(failure -> {
                Errno errno = Errno.of(failure);
                if (errno != Errno.EIO && errno != Errno.EPERM && errno != Errno.EACCES) {
                    throw rollBack(applied, change, Errno.describe(failure), run, stateFile);
                }
                refused.put(change, errno);
            });
        }
        // EIO says "managed"; EPERM/EACCES says so only when other IRQs took their writes.
        if (applied.isEmpty() && !refused.isEmpty() && !refused.containsValue(Errno.EIO)) {
            if (run.threadedSwitched().isPresent()) {
                throw switchedBack(run, stateFile, refusedEveryIrq(refused));
            }
            if (run.createdState()) {
                StateFile.delete(stateFile);
            }
            throw refusedEveryIrq(refused);
        }
        for (Target.Kind kind : List.of(Target.Kind.XPS, Target.Kind.NAPI_THREAD)) {
            for (Applied change : ofKind(pending, kind)) {
                writeAndVerify(change, applied, run, stateFile).ifPresent(failure -> {
                    throw rollBack(applied, change, Errno.describe(failure), run, stateFile);
                });
            }
        }
        if (scheduling.isPresent()) {
            schedule(iface, scheduling.get(), applied, run, stateFile);
        }
        applied.forEach(
                a -> results.add(new Result(a.setting().target(), a.setting().cpus(), a.before(), Status.CHANGED, "")));
        refused.forEach((change, errno) -> results.add(new Result(
                change.setting().target(),
                change.setting().cpus(),
                change.before(),
                Status.MANAGED,
                "managed by the kernel: " + errno.name() + " (" + errno.text() + ")")));
        return results;
    }

    /**
     * Sets each busy-poll thread's scheduling class with {@code sched_setscheduler} and reads it back. The classes
     * they had are recorded in the state file first (write-ahead, the first value recorded wins); a failure puts
     * back the threads already set and every change of this run ({@code applied}, threaded NAPI), so that the
     * apply is all or nothing.
     */
    private void schedule(InterfaceName iface, Scheduling scheduling, List<Applied> applied, Run run, Path stateFile) {
        NapiThreads.Scheduler scheduler = threads.scheduler();
        ThreadScheduling wanted = scheduling.wanted();
        Map<Integer, Integer> pids = new LinkedHashMap<>();
        Map<Integer, ThreadScheduling> before = new LinkedHashMap<>();
        for (int napiId : scheduling.napiIds()) {
            Target target = Target.napiThread(iface, napiId);
            OptionalInt pid = threads.find(target);
            if (pid.isEmpty()) {
                throw unscheduledBeforeAnySet(
                        "no kernel thread " + target.name() + " to set to " + wanted, applied, run, stateFile);
            }
            ThreadScheduling now;
            try {
                now = scheduler.get(pid.getAsInt());
            } catch (IOException e) {
                throw unscheduledBeforeAnySet(
                        "reading the scheduling class of " + target.name() + " (pid " + pid.getAsInt() + ") failed: "
                                + Errno.describe(e),
                        applied,
                        run,
                        stateFile);
            }
            if (!now.equals(wanted)) {
                pids.put(napiId, pid.getAsInt());
                before.put(napiId, now);
            }
        }
        if (before.isEmpty()) {
            return;
        }
        Optional<StateFile.State> existing = StateFile.read(stateFile);
        List<Integer> recorded = before.keySet().stream()
                .filter(napiId -> existing.map(
                                state -> !state.napiThreadSchedBefore().containsKey(napiId))
                        .orElse(true))
                .toList();
        StateFile.write(
                stateFile,
                existing.orElseGet(() -> new StateFile.State(iface, List.of())).withNapiThreadSchedBefore(before));
        List<Integer> set = new ArrayList<>();
        for (Map.Entry<Integer, ThreadScheduling> napi : before.entrySet()) {
            int napiId = napi.getKey();
            int pid = pids.get(napiId);
            // Put back with the others even when the call failed: setting a thread to its own class changes nothing.
            set.add(napiId);
            String why;
            NumaspreadException.Kind kind = NumaspreadException.Kind.ROLLED_BACK;
            try {
                scheduler.set(pid, wanted);
                ThreadScheduling back = scheduler.get(pid);
                if (back.equals(wanted)) {
                    continue;
                }
                why = "it reads back as " + back;
            } catch (IOException e) {
                why = Errno.describe(e);
                if (Errno.of(e) == Errno.EPERM) {
                    kind = NumaspreadException.Kind.REFUSED;
                    why += ": a real-time scheduling class, and another user's thread, needs CAP_SYS_NICE (root)";
                }
            }
            NumaspreadException failed = unscheduled(
                    "setting " + Target.napiThreadName(iface, napiId) + " (pid " + pid + ") to " + wanted
                            + " with sched_setscheduler failed: " + why,
                    pids,
                    before,
                    set,
                    recorded,
                    applied,
                    run,
                    stateFile);
            throw failed instanceof RestoreNeeded || kind == failed.kind()
                    ? failed
                    : new NapiFeatureFailure(
                            kind, NapiFeatureFailure.Feature.POLL_SCHEDULING, failed.getMessage(), failed);
        }
    }

    /** {@link #unscheduled} when no thread's class has been read or set yet. */
    private NumaspreadException unscheduledBeforeAnySet(
            String failure, List<Applied> applied, Run run, Path stateFile) {
        return unscheduled(failure, Map.of(), Map.of(), List.of(), List.of(), applied, run, stateFile);
    }

    /**
     * Puts back the threads {@code set} to their class {@code before}, takes the entries this run {@code
     * recorded} out of the state file, and undoes every other change of the run: the failure to throw, naming what
     * could not be put back (then the state file stays for {@code restore}).
     */
    private NumaspreadException unscheduled(
            String failure,
            Map<Integer, Integer> pids,
            Map<Integer, ThreadScheduling> before,
            List<Integer> set,
            List<Integer> recorded,
            List<Applied> applied,
            Run run,
            Path stateFile) {
        List<String> stuck = new ArrayList<>();
        for (int i = set.size() - 1; i >= 0; i--) {
            int napiId = set.get(i);
            int pid = pids.get(napiId);
            ThreadScheduling was = before.get(napiId);
            try {
                threads.scheduler().set(pid, was);
                ThreadScheduling back = threads.scheduler().get(pid);
                if (!back.equals(was)) {
                    stuck.add("pid " + pid + " (reads back as " + back + ", not " + was + ")");
                }
            } catch (IOException e) {
                stuck.add("pid " + pid + " (sched_setscheduler " + was + ": " + Errno.describe(e) + ")");
            }
        }
        if (stuck.isEmpty() && !recorded.isEmpty()) {
            StateFile.read(stateFile)
                    .ifPresent(state -> StateFile.write(stateFile, state.withoutNapiThreadSched(recorded)));
        }
        // A thread not put back keeps the state file, whoever created it.
        stuck.addAll(undo(applied, stuck.isEmpty() ? run : new Run(false, run.threadedSwitched()), stateFile));
        if (stuck.isEmpty() && run.createdState()) {
            StateFile.delete(stateFile); // the run's other changes may have been none, leaving only this record
        }
        if (!stuck.isEmpty()) {
            return new RestoreNeeded(
                    NumaspreadException.Kind.ROLLED_BACK,
                    failure + "; ROLLBACK FAILED for " + String.join(", ", stuck),
                    stateFile,
                    paths,
                    "");
        }
        int undone = applied.size()
                + set.size()
                + run.threadedSwitched().map(switched -> 1).orElse(0);
        return new NapiFeatureFailure(
                NumaspreadException.Kind.ROLLED_BACK,
                NapiFeatureFailure.Feature.POLL_SCHEDULING,
                failure + "; rolled back: " + (undone == 0 ? "nothing had been changed" : "every change was put back")
                        + ", nothing else was touched");
    }

    private NumaspreadException refusedEveryIrq(Map<Applied, Errno> refused) {
        Map.Entry<Applied, Errno> first = refused.entrySet().iterator().next();
        return new NumaspreadException(
                NumaspreadException.Kind.REFUSED,
                "the kernel refused every IRQ write ("
                        + first.getKey().setting().target().label() + ": "
                        + first.getValue().name() + " ("
                        + first.getValue().text() + ")): changing IRQ affinity needs root with write access to "
                        + paths.procRoot() + "/irq (if these IRQs are all managed by the kernel, there is nothing to"
                        + " change); nothing was changed");
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
        StateFile.State unlocked = stateOf(stateFile, expected);
        unlocked.saved().stream()
                .filter(saved -> writer(saved.target()).exists(saved.target()))
                .forEach(saved -> probe(saved.target()));
        if (unlocked.threadedBefore().isPresent() && Files.exists(threaded.file(unlocked.iface()))) {
            threaded.probe(threaded.file(unlocked.iface()));
        }
        if (!unlocked.napiThreadedBefore().isEmpty() && Files.exists(paths.netDevice(unlocked.iface()))) {
            probeNapis(unlocked);
        }
        if (!unlocked.napiSettingsBefore().isEmpty() && Files.exists(paths.netDevice(unlocked.iface()))) {
            probeNapiSettings(unlocked);
        }
        try (StateFile.Lock lock = StateFile.lock(stateFile)) {
            return restoreHoldingLock(stateOf(stateFile, expected), stateFile);
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

    /** One recorded value and what its file holds now. */
    private record Restoring(StateFile.Saved saved, CpuSet recorded, String current) {}

    private List<Result> restoreHoldingLock(StateFile.State state, Path stateFile) {
        PutBack back = putBack(state, "state file " + stateFile);
        if (!back.failures().isEmpty()) {
            throw new NumaspreadException(
                    NumaspreadException.Kind.INCOMPLETE,
                    "could not restore everything: " + String.join("; ", back.failures()) + "; the state file "
                            + stateFile + " is kept");
        }
        StateFile.delete(stateFile);
        return back.results();
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
        return putBack(changed, "the values " + changed.iface() + " had").failures();
    }

    /** What a put back did, and what it could not put back. */
    private record PutBack(List<Result> results, List<String> failures) {}

    /** @param source what {@code state} comes from, for the refusal of values this machine cannot hold */
    private PutBack putBack(StateFile.State state, String source) {
        InterruptTable interrupts = InterruptTable.read(paths);
        List<Result> results = new ArrayList<>();
        List<Restoring> toWrite = new ArrayList<>();
        List<String> invalid = new ArrayList<>();
        for (StateFile.Saved saved : state.saved()) {
            Target target = saved.target();
            CpuSet recorded = saved.cpus();
            if (!recorded.isEmpty() && recorded.last() >= maskBits) {
                invalid.add(target.label() + ": the recorded CPUs " + recorded + " are beyond the " + maskBits
                        + " CPUs of " + paths.cpuPossible());
                continue;
            }
            Optional<String> gone = writer(target).goneReason(target, interrupts);
            if (gone.isPresent()) {
                results.add(new Result(target, recorded, "", Status.GONE, gone.get()));
                continue;
            }
            Optional<String> current = readCurrent(target);
            if (current.isEmpty()) {
                results.add(new Result(
                        target,
                        recorded,
                        "",
                        Status.GONE,
                        where(target) + " cannot be read (ENOENT): the device has one transmit queue now"));
            } else if (parse(target, current.get()).equals(recorded)) {
                results.add(new Result(target, recorded, current.get(), Status.UNCHANGED, ""));
            } else {
                toWrite.add(new Restoring(saved, recorded, current.get()));
            }
        }
        if (!invalid.isEmpty()) {
            throw NumaspreadException.badInput(source + " cannot be restored on this machine: "
                    + String.join("; ", invalid) + "; nothing was written");
        }
        // Another apply may have added entries while this one waited for the lock.
        toWrite.forEach(r -> probe(r.saved().target()));

        List<String> failures = new ArrayList<>();
        for (Restoring restoring : toWrite) {
            Target target = restoring.saved().target();
            String value = target.format(restoring.recorded(), maskBits);
            try {
                writeValue(target, value);
                String back = readValue(target);
                if (!readsAs(target, back, restoring.recorded())) {
                    failures.add(target.label() + ": wrote \"" + value + "\" but it reads back \"" + back + "\"");
                    continue;
                }
                results.add(new Result(target, restoring.recorded(), restoring.current(), Status.RESTORED, ""));
            } catch (IOException e) {
                failures.add(target.label() + ": writing \"" + value + "\" to " + where(target) + " failed: "
                        + Errno.describe(e));
            }
        }
        failures.addAll(restoreScheduling(state));
        // After the threads' affinity and class: turning threaded NAPI off stops the threads. The device's switch
        // first: it
        // sets every NAPI of the device, and the NAPIs' own values are then put back exactly over it.
        state.threadedBefore()
                .ifPresent(before -> threaded.restore(state.iface(), before).ifPresent(failures::add));
        failures.addAll(restoreNapis(state));
        failures.addAll(restoreNapiSettings(state));
        List<Target> order = state.saved().stream().map(StateFile.Saved::target).toList();
        return new PutBack(
                results.stream()
                        .sorted(Comparator.comparingInt(r -> order.indexOf(r.target())))
                        .toList(),
                failures);
    }

    /**
     * Puts each recorded busy-poll thread's scheduling class back with {@code sched_setscheduler} and reads it
     * back; a thread that no longer exists (threaded NAPI turned off, the queue or device removed) has nothing to
     * put back. The failures, each naming its thread.
     */
    private List<String> restoreScheduling(StateFile.State state) {
        List<String> failures = new ArrayList<>();
        state.napiThreadSchedBefore().forEach((napiId, before) -> {
            Target target = Target.napiThread(state.iface(), napiId);
            OptionalInt pid = threads.find(target);
            if (pid.isEmpty()) {
                return;
            }
            String where = target.name() + " (pid " + pid.getAsInt() + ")";
            try {
                if (threads.scheduler().get(pid.getAsInt()).equals(before)) {
                    return;
                }
                threads.scheduler().set(pid.getAsInt(), before);
                ThreadScheduling back = threads.scheduler().get(pid.getAsInt());
                if (!back.equals(before)) {
                    failures.add(where + ": set to " + before + " but it reads back as " + back);
                }
            } catch (IOException e) {
                failures.add(where + ": sched_setscheduler " + before + " failed: " + Errno.describe(e)
                        + (Errno.of(e) == Errno.EPERM ? " (needs CAP_SYS_NICE)" : ""));
            }
        });
        return failures;
    }

    /** Refuses a restore without the privilege to set a recorded NAPI's {@code threaded}, before any change. */
    private void probeNapis(StateFile.State state) {
        Map<Integer, Integer> now = perNapi.read(state.iface());
        for (int napiId : state.napiThreadedBefore().keySet()) {
            Integer current = now.get(napiId);
            if (current == null) {
                continue;
            }
            try {
                perNapi.write(napiId, current);
            } catch (IOException e) {
                Errno errno = Errno.of(e);
                if (errno == Errno.EPERM || errno == Errno.EACCES) {
                    throw napiSetRefused("cannot put back NAPI " + napiId + "'s threaded", Errno.describe(e));
                }
            }
            return;
        }
    }

    /**
     * Puts each recorded NAPI's own {@code threaded} back with {@code napi-set} and reads them back; a NAPI that no
     * longer exists (the device or the queue removed) has nothing to put back. The failures, each naming its NAPI.
     */
    private List<String> restoreNapis(StateFile.State state) {
        if (state.napiThreadedBefore().isEmpty() || !Files.exists(paths.netDevice(state.iface()))) {
            return List.of();
        }
        Map<Integer, Integer> now = perNapi.read(state.iface());
        List<String> failures = new ArrayList<>();
        List<Integer> written = new ArrayList<>();
        state.napiThreadedBefore().forEach((napiId, before) -> {
            Integer current = now.get(napiId);
            if (current == null || current.equals(before)) {
                return;
            }
            try {
                perNapi.write(napiId, before);
                written.add(napiId);
            } catch (IOException e) {
                failures.add(
                        "NAPI " + napiId + ": netdev napi-set threaded " + before + " failed: " + Errno.describe(e));
            }
        });
        Map<Integer, Integer> back = written.isEmpty() ? Map.of() : perNapi.read(state.iface());
        for (int napiId : written) {
            int before = state.napiThreadedBefore().get(napiId);
            Integer reads = back.get(napiId);
            if (reads != null && reads != before) {
                failures.add("NAPI " + napiId + ": set threaded " + before + " but napi-get reports " + reads);
            }
        }
        return failures;
    }

    /**
     * Refuses a restore without the privilege (or the kernel) to set a recorded NAPI's settings, before any change:
     * the first recorded NAPI that exists gets its own current settings written back.
     */
    private void probeNapiSettings(StateFile.State state) {
        for (int napiId : state.napiSettingsBefore().keySet()) {
            Optional<NapiSettings> current = currentSettings(napiId);
            if (current.isEmpty()) {
                continue;
            }
            try {
                napiSettings.write(napiId, current.get());
            } catch (NumaspreadException e) {
                if (NapiSettingsChange.deniedPrivilege(e)) {
                    throw napiSetRefused("cannot put back NAPI " + napiId + "'s settings", e.getMessage());
                }
            }
            return;
        }
    }

    /** A napi-set that the probe found denied, before any change: what was to be done, and the kernel's error. */
    private static NumaspreadException napiSetRefused(String doing, String error) {
        return new NumaspreadException(
                NumaspreadException.Kind.REFUSED,
                doing + ": " + error + ": netdev netlink napi-set needs CAP_NET_ADMIN; nothing was changed");
    }

    /** A NAPI's settings now, or empty when it is gone (ENOENT: its queue or device was removed). */
    private Optional<NapiSettings> currentSettings(int napiId) {
        try {
            return Optional.of(napiSettings.read(napiId));
        } catch (NumaspreadException e) {
            if (NapiSettingsChange.gone(e)) {
                return Optional.empty();
            }
            throw e;
        }
    }

    /**
     * Puts each recorded NAPI's settings back with {@code napi-set} and reads them back; a NAPI that no longer
     * exists has nothing to put back. The failures, each naming its NAPI.
     */
    private List<String> restoreNapiSettings(StateFile.State state) {
        if (state.napiSettingsBefore().isEmpty() || !Files.exists(paths.netDevice(state.iface()))) {
            return List.of();
        }
        List<String> failures = new ArrayList<>();
        state.napiSettingsBefore().forEach((napiId, before) -> {
            try {
                Optional<NapiSettings> current = currentSettings(napiId);
                if (current.isEmpty() || current.get().equals(before)) {
                    return;
                }
                napiSettings.write(napiId, before);
                NapiSettings back = napiSettings.read(napiId);
                if (!back.equals(before)) {
                    failures.add("NAPI " + napiId + ": set " + before + " but napi-get reports " + back);
                }
            } catch (NumaspreadException e) {
                failures.add("NAPI " + napiId + ": putting its settings back failed: " + e.getMessage());
            }
        });
        return failures;
    }

    private static boolean readsAs(Target target, String text, CpuSet expected) {
        try {
            return target.parse(text).equals(expected);
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    private static List<Applied> ofKind(List<Applied> changes, Target.Kind kind) {
        return changes.stream().filter(c -> c.setting().target().kind() == kind).toList();
    }

    private static List<Result> inOrderOf(List<Setting> settings, List<Result> results) {
        List<Target> order = settings.stream().map(Setting::target).toList();
        return results.stream()
                .sorted(Comparator.comparingInt(r -> order.indexOf(r.target())))
                .toList();
    }

    /** Empty when the device has no such value (an XPS file of a single-queue device). */
    private Optional<String> readCurrent(Target target) {
        try {
            return Optional.of(readValue(target));
        } catch (IOException e) {
            if (writer(target).lacks(target, e)) {
                return Optional.empty();
            }
            throw NumaspreadException.badInput("cannot read " + where(target) + ": " + Errno.describe(e));
        }
    }

    /** Who reads and writes {@code target}'s kind of value. */
    private SettingWriter writer(Target target) {
        return switch (target.kind()) {
            case IRQ -> irqs;
            case XPS -> xps;
            case NAPI_THREAD -> napiThreads;
        };
    }

    private String readValue(Target target) throws IOException {
        return writer(target).read(target);
    }

    private void writeValue(Target target, String value) throws IOException {
        writer(target).write(target, value);
    }

    private String where(Target target) {
        return writer(target).where(target);
    }

    private CpuSet parse(Target target, String text) {
        try {
            return target.parse(text);
        } catch (IllegalArgumentException e) {
            throw NumaspreadException.badInput(where(target) + ": " + KernelText.escape(e.getMessage()));
        }
    }

    /** Refuses before any change when a value cannot be written for want of privilege. */
    private void probe(Target target) {
        writer(target).probe(target);
    }

    /**
     * Refuses to add to a state file that another interface owns, or that was recorded before the IRQs were
     * renumbered (a reboot or driver reload): merged by number, it would name IRQs that are gone, or hold another
     * IRQ's value for a number. The recorded names tell: an IRQ of this plan recorded under another number, or a
     * number recorded under another name.
     */
    private void checkState(
            InterfaceName iface, Optional<StateFile.State> existing, Path stateFile, List<Setting> settings) {
        if (existing.isEmpty()) {
            return;
        }
        if (!existing.get().iface().equals(iface)) {
            throw new StateFileUnusable(
                    NumaspreadException.Kind.BAD_INPUT,
                    "state file " + stateFile + " is for " + existing.get().iface() + ", not " + iface
                            + "; nothing was changed",
                    stateFile,
                    null);
        }
        String stale = ": the file is stale, from before a reboot or driver reload renumbered the IRQs";
        String then = " first (it puts back what still exists and reports the IRQs that are gone), then apply again;"
                + " nothing was changed";
        for (StateFile.Saved saved : existing.get().saved()) {
            Target recorded = saved.target();
            if (recorded.kind() != Target.Kind.IRQ) {
                continue;
            }
            for (Setting setting : settings) {
                Target now = setting.target();
                if (now.kind() != Target.Kind.IRQ) {
                    continue;
                }
                if (now.number() == recorded.number() && !now.name().equals(recorded.name())) {
                    throw new RestoreNeeded(
                            NumaspreadException.Kind.BAD_INPUT,
                            "state file " + stateFile
                                    + " records IRQ " + recorded.number() + " as \"" + recorded.name()
                                    + "\" but it is now \""
                                    + now.name() + "\"" + stale,
                            stateFile,
                            paths,
                            then);
                }
                if (now.name().equals(recorded.name()) && now.number() != recorded.number()) {
                    throw new RestoreNeeded(
                            NumaspreadException.Kind.BAD_INPUT,
                            "state file " + stateFile
                                    + " records \"" + recorded.name() + "\" as IRQ " + recorded.number()
                                    + " but it is now IRQ "
                                    + now.number() + stale,
                            stateFile,
                            paths,
                            then);
                }
            }
        }
    }

    /**
     * Writes and reads back one setting, adding it to {@code applied} on success. An I/O failure of the write is
     * returned for the caller to judge; a read-back that differs rolls everything back.
     */
    private Optional<IOException> writeAndVerify(Applied change, List<Applied> applied, Run run, Path stateFile) {
        Target target = change.setting().target();
        String value = target.format(change.setting().cpus(), maskBits);
        try {
            writeValue(target, value);
        } catch (IOException e) {
            return Optional.of(e);
        }
        applied.add(change);
        String back;
        try {
            back = readValue(target);
        } catch (IOException e) {
            throw rollBack(applied, change, "reading it back failed: " + Errno.describe(e), run, stateFile);
        }
        CpuSet actual;
        try {
            actual = target.parse(back);
        } catch (IllegalArgumentException e) {
            throw rollBack(
                    applied,
                    change,
                    "it reads back as \"" + KernelText.escape(back) + "\": " + KernelText.escape(e.getMessage()),
                    run,
                    stateFile);
        }
        if (!actual.equals(change.setting().cpus())) {
            throw rollBack(applied, change, "it reads back as \"" + KernelText.escape(back) + "\"", run, stateFile);
        }
        return Optional.empty();
    }

    /**
     * Puts back every applied change, newest first. The state file goes when this run created it and everything
     * is back; otherwise it stays for {@code restore}.
     */
    private NumaspreadException rollBack(List<Applied> applied, Applied failed, String why, Run run, Path stateFile) {
        List<String> stuck = undo(applied, run, stateFile);
        Target target = failed.setting().target();
        String value = target.format(failed.setting().cpus(), maskBits);
        int undone = applied.size() - stuck.size();
        String failure = target.label() + ": writing \"" + value + "\" to " + where(target) + " failed: " + why + "; ";
        if (!stuck.isEmpty()) {
            return new RestoreNeeded(
                    NumaspreadException.Kind.ROLLED_BACK,
                    failure + "ROLLBACK FAILED for " + String.join(", ", stuck),
                    stateFile,
                    paths,
                    "");
        }
        return new NumaspreadException(
                NumaspreadException.Kind.ROLLED_BACK,
                failure + "rolled back: " + undone + " change" + (undone == 1 ? "" : "s")
                        + " put back, nothing else was touched");
    }

    /** Writes back what each applied change replaced; returns the labels of those that could not be. */
    private List<String> undo(List<Applied> applied, Run run, Path stateFile) {
        List<String> stuck = new ArrayList<>();
        for (int i = applied.size() - 1; i >= 0; i--) {
            Applied change = applied.get(i);
            Target target = change.setting().target();
            try {
                writeValue(target, change.before());
                if (!change.setting()
                        .target()
                        .parse(readValue(target))
                        .equals(change.setting().target().parse(change.before()))) {
                    stuck.add(change.setting().target().label() + " (reads back differently)");
                }
            } catch (IOException | IllegalArgumentException e) {
                stuck.add(change.setting().target().label() + " ("
                        + (e instanceof IOException io ? Errno.describe(io) : e.getMessage()) + ")");
            }
        }
        run.threadedSwitched().ifPresent(switched -> stuck.addAll(switchOff(switched)));
        if (stuck.isEmpty() && run.createdState()) {
            StateFile.delete(stateFile);
        } else if (stuck.isEmpty() && run.threadedSwitched().isPresent()) {
            StateFile.read(stateFile)
                    .ifPresent(state -> StateFile.write(
                            stateFile, without(state, run.threadedSwitched().get())));
        }
        return stuck;
    }
}
