// SPDX-License-Identifier: Apache-2.0
package io.numaspread.irq;

import io.numaspread.CpuSet;
import io.numaspread.NumaspreadException;
import io.numaspread.kernel.InterfaceName;
import io.numaspread.kernel.KernelFiles;
import io.numaspread.kernel.KernelPaths;
import io.numaspread.kernel.KernelText;
import io.numaspread.kernel.SysfsTree;
import io.numaspread.kernel.ThreadScheduling;
import io.numaspread.nic.NapiInstance;
import io.numaspread.nic.NapiMap;
import io.numaspread.nic.NapiSettings;
import io.numaspread.nic.NapiSettingsChange;
import io.numaspread.nic.Nic;
import io.numaspread.nic.PerNapiThreaded;
import io.numaspread.plan.PollPlan;
import io.numaspread.plan.SpreadPlan;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Writes a NIC's queue plan as {@code numaspread apply}, {@code watch} and the agent's {@code irqs=apply} all do:
 * irqbalance refused first, the previous values saved to the state file before the first change, every write read
 * back, all or nothing (see {@link AffinityTransaction}). One object per set of trees, backend and state location;
 * callers render the {@link Outcome}.
 */
public final class NicPlacement {
    /**
     * @param placement what {@code apply} and {@code watch} share: force, XPS, NAPI threads
     * @param dryRun read and compare only; nothing is written, not even the state file
     */
    public record Options(PlacementOptions placement, boolean dryRun) {
        /** {@link PlacementOptions#DEFAULTS}, a real apply. */
        public static Options defaults() {
            return new Options(PlacementOptions.DEFAULTS, false);
        }

        public boolean force() {
            return placement.force();
        }

        public boolean xps() {
            return placement.xps();
        }

        public boolean napiThreads() {
            return placement.napiThreads();
        }
    }

    /** Where each interface's previous values go. */
    public sealed interface StateLocation {
        /** {@link StateFile#defaultPath}, which follows the roots and which {@code restore --nic} finds. */
        StateLocation DEFAULT = new Default();

        /** One file, whatever the interface ({@code apply --state FILE}). */
        static StateLocation file(Path file) {
            return new Fixed(file);
        }

        /** {@code DIRECTORY/IFACE.json} ({@code watch}). */
        static StateLocation directory(Path directory) {
            return new Directory(directory);
        }

        /** The state file of {@code iface}. */
        Path of(KernelPaths paths, InterfaceName iface);

        /** The default location. */
        record Default() implements StateLocation {
            @Override
            public Path of(KernelPaths paths, InterfaceName iface) {
                return StateFile.defaultPath(paths, iface);
            }
        }

        /** One given file. */
        record Fixed(Path file) implements StateLocation {
            @Override
            public Path of(KernelPaths paths, InterfaceName iface) {
                return file;
            }
        }

        /** {@code IFACE.json} in a given directory. */
        record Directory(Path directory) implements StateLocation {
            @Override
            public Path of(KernelPaths paths, InterfaceName iface) {
                return directory.resolve(iface.value() + ".json");
            }
        }
    }

    /**
     * How {@code --napi-threads} reaches the NAPI threads.
     *
     * @param discover the NIC's NAPI map as the kernel gives it at the moment of the call (netdev netlink)
     * @param setter {@code sched_setaffinity} on a PID through the native backend
     * @param perNapi each NAPI's own {@code threaded} through netdev netlink (Linux 6.17)
     * @param scheduler the threads' scheduling class by PID through the native backend ({@code --poll-sched})
     */
    public record NapiAccess(
            Supplier<NapiMap> discover,
            NapiThreads.AffinitySetter setter,
            PerNapiThreaded perNapi,
            NapiThreads.Scheduler scheduler) {
        /** Without a way to set the threads' scheduling class, which only {@code --poll-sched} needs. */
        public NapiAccess(Supplier<NapiMap> discover, NapiThreads.AffinitySetter setter, PerNapiThreaded perNapi) {
            this(discover, setter, perNapi, NapiThreads.NO_SCHEDULER);
        }

        /** How a transaction finds, pins and switches the NAPI threads, with PIDs from napi-get given later. */
        public NapiThreads threads(KernelPaths paths, KernelFiles files) {
            return new NapiThreads(paths, files, setter, Map.of(), perNapi, scheduler);
        }
    }

    /** How {@code --napi-threads} turns threaded NAPI on. */
    public enum ThreadingWay {
        /**
         * NAPI by NAPI with netdev netlink {@code napi-set} (Linux 6.17): only the planned queues' NAPIs, the
         * device's other NAPIs as they were.
         */
        PER_NAPI,
        /**
         * The device's sysfs {@code threaded}, which turns every NAPI of the device threaded: the kernel's
         * {@code napi-get} reports no per-NAPI {@code threaded}.
         */
        DEVICE
    }

    /**
     * @param way how threaded NAPI is turned on on this kernel
     * @param turnedOn the NAPIs this apply turned threaded one by one ({@link ThreadingWay#PER_NAPI}; a dry run
     *     names those it would), the busy-polled ones apart: they are in {@code busyPolled}
     * @param threadedFile the device's {@code /sys/class/net/IFACE/threaded}
     * @param switchedDevice whether {@code threadedFile} was 0 and this apply set it to 1 ({@link
     *     ThreadingWay#DEVICE}; a dry run: would)
     * @param busyPolled the NAPIs set to busy-poll ({@code threaded} 2), whether this apply switched them or found
     *     them so, each with its thread's CPU, in queue order
     * @param pollScheduling the scheduling class every busy-poll thread was set to and read back with (a dry run:
     *     would be), or empty when the apply left theirs alone
     */
    public record Threading(
            ThreadingWay way,
            List<Integer> turnedOn,
            Path threadedFile,
            boolean switchedDevice,
            Map<Integer, Integer> busyPolled,
            Optional<ThreadScheduling> pollScheduling) {
        public Threading {
            turnedOn = List.copyOf(turnedOn);
            busyPolled = Collections.unmodifiableMap(new LinkedHashMap<>(busyPolled));
        }

        /** Busy polling with the threads' scheduling class left alone. */
        public Threading(
                ThreadingWay way,
                List<Integer> turnedOn,
                Path threadedFile,
                boolean switchedDevice,
                Map<Integer, Integer> busyPolled) {
            this(way, turnedOn, threadedFile, switchedDevice, busyPolled, Optional.empty());
        }

        /** Threaded NAPI without busy polling. */
        public Threading(ThreadingWay way, List<Integer> turnedOn, Path threadedFile, boolean switchedDevice) {
            this(way, turnedOn, threadedFile, switchedDevice, Map.of());
        }
    }

    /** What one apply writes. */
    public sealed interface Wanted {
        /**
         * Everything the plan places: each queue's IRQ, with {@link Options#xps} its XPS mask, and with {@link
         * Options#napiThreads} its NAPI thread, in the same transaction ({@code threaded} is set to 1 when it is 0,
         * recorded so that restore puts back 0).
         *
         * @param plan one assignment per queue of the NIC, as planned from {@link Nic#planRequest}
         */
        static Wanted plan(SpreadPlan plan) {
            return new Plan(plan, Optional.empty(), Optional.empty());
        }

        /**
         * As {@link #plan(SpreadPlan)}, and each polled queue's NAPI set to busy-poll ({@code threaded} 2, Linux
         * 6.19) with its thread pinned to its poll CPU, recorded so that restore puts {@code threaded} back.
         *
         * @param plan the IRQ plan, planned with {@link PollPlan#avoidedBy} so that it stays off the poll cores
         */
        static Wanted polled(SpreadPlan plan, PollPlan poll) {
            return new Plan(plan, Optional.of(poll), Optional.empty());
        }

        /**
         * As {@link #polled(SpreadPlan, PollPlan)}, and each busy-poll thread set to {@code scheduling} with {@code
         * sched_setscheduler} once pinned, its class before recorded so that restore puts it back.
         */
        static Wanted polled(SpreadPlan plan, PollPlan poll, ThreadScheduling scheduling) {
            return new Plan(plan, Optional.of(poll), Optional.of(scheduling));
        }

        /**
         * These settings and no others ({@code watch} leaves IRQs that another writer fights over alone for a
         * while), with threaded NAPI as it is.
         *
         * @param settings from {@link IrqPlan#settings}, or some of them, maybe with settings of NAPI threads
         * @param threads how the NAPI threads of {@code settings} are found and pinned
         */
        static Wanted only(List<Setting> settings, NapiThreads threads) {
            return new Only(settings, threads);
        }

        /** The whole plan, with busy-poll cores or without, and their threads' scheduling class if one is asked. */
        record Plan(SpreadPlan plan, Optional<PollPlan> poll, Optional<ThreadScheduling> pollScheduling)
                implements Wanted {
            public Plan {
                if (pollScheduling.isPresent() && poll.isEmpty()) {
                    throw new IllegalArgumentException("a busy-poll threads' scheduling class without busy polling");
                }
            }
        }

        /** Some settings. */
        record Only(List<Setting> settings, NapiThreads threads) implements Wanted {
            public Only {
                settings = List.copyOf(settings);
            }
        }
    }

    /**
     * @param stateFile the state file used
     * @param defaultStateFile whether it is the interface's default, which {@code restore --nic} finds
     * @param paths the trees written, which a command that undoes the apply must name when they are not live
     * @param results one per setting, in plan order
     * @param notes what the caller should know that did not stop the apply (an irqbalance that could not be seen)
     * @param threading with {@link Options#napiThreads}, how threaded NAPI was turned on
     */
    public record Outcome(
            InterfaceName iface,
            KernelPaths paths,
            Path stateFile,
            boolean defaultStateFile,
            List<AffinityTransaction.Result> results,
            List<String> notes,
            Optional<Threading> threading) {
        public Outcome {
            results = List.copyOf(results);
            notes = List.copyOf(notes);
        }

        public boolean changed() {
            return results.stream().anyMatch(r -> r.status() == AffinityTransaction.Status.CHANGED);
        }

        /** How many settings ended in each status, in the statuses' order. */
        public Map<AffinityTransaction.Status, Integer> counts() {
            Map<AffinityTransaction.Status, Integer> counts = new TreeMap<>();
            results.forEach(result -> counts.merge(result.status(), 1, Integer::sum));
            return counts;
        }
    }

    /**
     * How {@code apply --irq-suspend} reaches a NIC's NAPIs.
     *
     * @param discover the NIC's NAPI map as the kernel gives it at the moment of the call (netdev netlink)
     * @param settings each NAPI's settings through netdev netlink {@code napi-get} and {@code napi-set}
     */
    public record NapiSettingsAccess(Supplier<NapiMap> discover, NapiSettingsChange.Access settings) {}

    /**
     * What an apply with NAPI settings did.
     *
     * @param placement the IRQs' (and XPS masks', NAPI threads') part
     * @param wanted the settings each planned NAPI got (a dry run: would get)
     * @param before each planned NAPI's settings before, by NAPI ID in queue order
     */
    public record SettingsOutcome(Outcome placement, NapiSettings wanted, Map<Integer, NapiSettings> before) {
        public SettingsOutcome {
            before = Collections.unmodifiableMap(new LinkedHashMap<>(before));
        }
    }

    /** A {@code napi-set} that failed, named by its NAPI; kept apart from the reads' refusals. */
    private static final class NapiSetFailed extends NumaspreadException {
        private static final long serialVersionUID = 1L;

        NapiSetFailed(Kind kind, String message, Throwable cause) {
            super(kind, message, cause);
        }
    }

    private final KernelPaths paths;
    private final KernelFiles files;
    private final Optional<Function<InterfaceName, NapiAccess>> napi;
    private final StateLocation state;

    /**
     * @param paths the trees to write (sysfs and proc roots)
     * @param files the kernel's files ({@link KernelFiles#DIRECT} but in fault tests)
     * @param napi how each interface's NAPI threads are reached, needed for {@link Options#napiThreads}
     * @param state where each interface's previous values go
     */
    public NicPlacement(
            KernelPaths paths,
            KernelFiles files,
            Optional<Function<InterfaceName, NapiAccess>> napi,
            StateLocation state) {
        this.paths = paths;
        this.files = files;
        this.napi = napi;
        this.state = state;
    }

    /**
     * @throws io.numaspread.NumaspreadException REFUSED (irqbalance, no privilege, and with {@link
     *     Options#napiThreads} an interface without a {@code threaded} file (Linux before 5.12) or whose NAPI
     *     threads cannot be told apart by queue), BAD_INPUT or ROLLED_BACK, as {@link AffinityTransaction#apply}
     *     says; only ROLLED_BACK can follow a change, and it was put back
     * @throws IllegalArgumentException when a plan is not one assignment per queue of {@code nic}
     */
    public Outcome apply(Nic nic, Wanted wanted, Options options) {
        Path stateFile = state.of(paths, nic.name());
        if (wanted instanceof Wanted.Only some) {
            return apply(nic, some.settings(), some.threads(), options, stateFile);
        }
        Wanted.Plan whole = (Wanted.Plan) wanted;
        SpreadPlan plan = whole.plan();
        if (!options.napiThreads() && whole.poll().isEmpty()) {
            return apply(nic, IrqPlan.settings(nic, plan, options.xps()), NapiThreads.NONE, options, stateFile);
        }
        NapiAccess access = napi.orElseThrow(() -> new IllegalStateException("NAPI threads without NAPI access"))
                .apply(nic.name());
        return applyWithThreads(nic, plan, whole.poll(), whole.pollScheduling(), access, options, stateFile);
    }

    /**
     * As {@link #apply} with the whole plan, and {@code wanted} written to the NAPI of each planned queue with
     * {@code napi-set} (IRQ suspension's per-NAPI half), all or nothing with the rest: each NAPI's settings are read
     * (a kernel without them, before Linux 6.13, is refused here), recorded in the NIC's state file ({@link
     * RecordedNapiSettings}, which {@code restore} puts back) and written before the IRQs; a failed {@code
     * napi-set} puts back those already written, and a failed IRQ transaction puts back every NAPI's settings.
     *
     * @throws NumaspreadException REFUSED before any change (irqbalance; no NAPI linked to a queue; a kernel
     *     without napi-set; EPERM or EACCES: no CAP_NET_ADMIN), ROLLED_BACK naming the NAPI and errno when a
     *     {@code napi-set} fails part way, or as {@link #apply} does, with the NAPIs put back
     */
    public SettingsOutcome applyWithNapiSettings(
            Nic nic, SpreadPlan plan, Options options, NapiSettings wanted, NapiSettingsAccess access) {
        refuseIfIrqbalance(IrqPlan.settings(nic, plan, options.xps()), options);
        List<Integer> napiIds = plannedNapis(nic, access.discover().get());
        NapiSettingsChange.Access named = named(access.settings());
        if (options.dryRun()) {
            Map<Integer, NapiSettings> before = new LinkedHashMap<>();
            napiIds.forEach(napiId -> before.put(napiId, named.read(napiId)));
            return new SettingsOutcome(apply(nic, Wanted.plan(plan), options), wanted, before);
        }
        Path stateFile = state.of(paths, nic.name());
        boolean hadState = Files.exists(stateFile);
        RecordedNapiSettings recorded;
        try {
            recorded = RecordedNapiSettings.apply(stateFile, nic.name(), named, napiIds, wanted);
        } catch (NapiSetFailed e) {
            if (e.getSuppressed().length == 0) {
                throw new NapiFeatureFailure(
                        e.kind(),
                        NapiFeatureFailure.Feature.IRQ_SUSPENSION,
                        e.getMessage() + "; the NAPIs already set were put back; nothing was changed",
                        e);
            }
            // The NAPIs' entries stay in the state file (RecordedNapiSettings keeps them when a put-back failed).
            RestoreNeeded needed = new RestoreNeeded(
                    NumaspreadException.Kind.ROLLED_BACK,
                    "IRQ suspension: " + e.getMessage() + "; ROLLBACK FAILED: " + e.getSuppressed()[0].getMessage(),
                    stateFile,
                    paths,
                    "");
            needed.initCause(e);
            throw needed;
        }
        try {
            return new SettingsOutcome(apply(nic, Wanted.plan(plan), options), wanted, recorded.before());
        } catch (RuntimeException e) {
            try {
                recorded.restore();
            } catch (RuntimeException notBack) {
                throw new NumaspreadException(
                        NumaspreadException.Kind.ROLLED_BACK,
                        e.getMessage() + "; ROLLBACK FAILED for the NAPI settings (" + notBack.getMessage()
                                + "): numaspread restore puts them back from " + stateFile,
                        e);
            }
            if (!hadState) {
                // The IRQ transaction's roll back keeps a file it did not create (here, for the NAPIs' entries).
                deleteState(stateFile);
            }
            String back = "; every NAPI's settings were put back too";
            if (e instanceof RestoreNeeded stale) {
                throw stale.followedBy(back);
            }
            if (e instanceof NapiFeatureFailure failed) {
                throw failed.followedBy(back);
            }
            if (e instanceof NumaspreadException failure) {
                throw new NumaspreadException(failure.kind(), failure.getMessage() + back, failure);
            }
            throw e;
        }
    }

    /** One NIC of a joint apply, and its share of the joint plan ({@link io.numaspread.plan.Planner#together}). */
    public record Share(Nic nic, SpreadPlan plan) {}

    /**
     * Applies each NIC's share of a joint plan, all or nothing across them: each NIC keeps its own state file, and
     * when one NIC's apply fails, the NICs applied before it are put back, newest first, and their state files
     * rewritten as they were (removed when there was none), so that no state file claims a change that was undone.
     * Every NIC's state file lock is held from the first change to the last. One NIC is applied exactly as {@link
     * #apply} does.
     *
     * @return each NIC's outcome, in the order given
     * @throws NumaspreadException as {@link #apply} does for the NIC that failed, saying which NICs were put back
     *     too; a {@link RestoreNeeded} when one of them could not be, naming its state file, which then keeps the
     *     values it had before
     * @throws IllegalArgumentException when two shares have one state file
     */
    public List<Outcome> applyTogether(List<Share> shares, Options options) {
        if (shares.size() == 1 || options.dryRun()) {
            return shares.stream()
                    .map(share -> apply(share.nic(), Wanted.plan(share.plan()), options))
                    .toList();
        }
        List<Path> stateFiles = shares.stream()
                .map(share -> state.of(paths, share.nic().name()))
                .toList();
        if (Set.copyOf(stateFiles).size() != stateFiles.size()) {
            throw new IllegalArgumentException("the NICs of a joint apply need a state file each, not " + stateFiles);
        }
        List<StateFile.Lock> held = new ArrayList<>();
        try {
            for (Path stateFile : stateFiles) {
                held.add(StateFile.hold(stateFile));
            }
            List<Optional<StateFile.State>> recorded =
                    stateFiles.stream().map(StateFile::read).toList();
            List<Outcome> done = new ArrayList<>();
            for (Share share : shares) {
                try {
                    done.add(apply(share.nic(), Wanted.plan(share.plan()), options));
                } catch (NumaspreadException failed) {
                    throw undone(done, recorded, options, failed);
                }
            }
            return List.copyOf(done);
        } finally {
            for (int i = held.size() - 1; i >= 0; i--) {
                held.get(i).close();
            }
        }
    }

    /**
     * Puts back the NICs a joint apply changed before {@code failed}, newest first, and their state files as they
     * were: the failure to throw.
     */
    private NumaspreadException undone(
            List<Outcome> done, List<Optional<StateFile.State>> recorded, Options options, NumaspreadException failed) {
        List<String> back = new ArrayList<>();
        for (int i = done.size() - 1; i >= 0; i--) {
            Outcome outcome = done.get(i);
            StateFile.State changed = changed(outcome);
            if (changed.isEmpty()) {
                continue;
            }
            NapiThreads threads = options.napiThreads()
                    ? napi.orElseThrow().apply(outcome.iface()).threads(paths, files)
                    : NapiThreads.NONE;
            List<String> stuck = transaction(threads).putBack(changed);
            if (!stuck.isEmpty()) {
                RestoreNeeded needed = new RestoreNeeded(
                        NumaspreadException.Kind.ROLLED_BACK,
                        failed.getMessage() + "; ROLLBACK FAILED for " + outcome.iface() + ": "
                                + String.join("; ", stuck),
                        outcome.stateFile(),
                        paths,
                        "");
                needed.initCause(failed);
                return needed;
            }
            Optional<StateFile.State> before = recorded.get(i);
            if (before.isPresent()) {
                StateFile.write(outcome.stateFile(), before.get());
            } else {
                StateFile.delete(outcome.stateFile());
            }
            back.add(outcome.iface() + " (" + changed.saved().size() + " value"
                    + (changed.saved().size() == 1 ? "" : "s") + ")");
        }
        if (back.isEmpty()) {
            return failed;
        }
        String more = "; " + String.join(", ", back) + " put back too, with "
                + (back.size() == 1 ? "its state file" : "their state files") + " as before";
        if (failed instanceof RestoreNeeded stale) {
            return stale.followedBy(more);
        }
        if (failed instanceof NapiFeatureFailure feature) {
            return feature.followedBy(more);
        }
        return new NumaspreadException(failed.kind(), failed.getMessage() + more, failed);
    }

    /** What an apply changed, each value as it was before: what its undo puts back. */
    private static StateFile.State changed(Outcome outcome) {
        List<StateFile.Saved> saved = outcome.results().stream()
                .filter(result -> result.status() == AffinityTransaction.Status.CHANGED)
                .map(result -> new StateFile.Saved(result.target(), result.before()))
                .toList();
        StateFile.State changed = new StateFile.State(outcome.iface(), saved);
        if (outcome.threading().isEmpty()) {
            return changed;
        }
        Threading threading = outcome.threading().get();
        if (threading.way() == ThreadingWay.DEVICE) {
            return threading.switchedDevice() ? changed.recording(ThreadedRecord.of(0)) : changed;
        }
        Map<Integer, Integer> off = new TreeMap<>();
        threading.turnedOn().forEach(napiId -> off.put(napiId, 0));
        return changed.recording(NapiThreadedRecord.of(off));
    }

    @SuppressWarnings("try") // the lock is held, not used
    private static void deleteState(Path stateFile) {
        try (StateFile.Lock lock = StateFile.lock(stateFile)) {
            StateFile.delete(stateFile);
        }
    }

    /**
     * The NAPI ID of each queue of {@code nic} that {@code map} links to one, in queue order.
     *
     * @throws NumaspreadException (refused) when it links none
     */
    private static List<Integer> plannedNapis(Nic nic, NapiMap map) {
        List<Integer> napiIds = nic.queues().stream()
                .map(map::forQueue)
                .flatMap(Optional::stream)
                .map(NapiInstance::id)
                .toList();
        if (napiIds.isEmpty()) {
            throw new NapiFeatureFailure(
                    NumaspreadException.Kind.REFUSED,
                    NapiFeatureFailure.Feature.IRQ_SUSPENSION,
                    "no queue of " + nic.name() + " has a NAPI ID: "
                            + (map.instances().isEmpty()
                                    ? "netdev netlink napi-get lists no NAPI of it (the kernel lists an interface's"
                                            + " NAPIs only while it is up, and only for drivers that poll with NAPI)"
                                    : "netdev netlink links none of its "
                                            + map.instances().size() + " NAPI instances to queues " + nic.queues())
                            + " (" + map.detail() + "); nothing was changed");
        }
        return napiIds;
    }

    /** {@code access} whose failures name the feature and the NAPI. */
    private static NapiSettingsChange.Access named(NapiSettingsChange.Access access) {
        return new NapiSettingsChange.Access() {
            @Override
            public NapiSettings read(int napiId) {
                try {
                    return access.read(napiId);
                } catch (NumaspreadException e) {
                    throw new NapiFeatureFailure(
                            e.kind(),
                            NapiFeatureFailure.Feature.IRQ_SUSPENSION,
                            "NAPI " + napiId + ": " + e.getMessage() + "; nothing was changed",
                            e);
                }
            }

            @Override
            public void write(int napiId, NapiSettings settings) {
                try {
                    access.write(napiId, settings);
                } catch (RuntimeException e) {
                    boolean denied = NapiSettingsChange.deniedPrivilege(e);
                    throw new NapiSetFailed(
                            denied ? NumaspreadException.Kind.REFUSED : NumaspreadException.Kind.ROLLED_BACK,
                            "NAPI " + napiId + ": " + e.getMessage()
                                    + (denied ? ": netdev netlink napi-set needs CAP_NET_ADMIN" : ""),
                            e);
                }
            }
        };
    }

    private Outcome applyWithThreads(
            Nic nic,
            SpreadPlan plan,
            Optional<PollPlan> poll,
            Optional<ThreadScheduling> pollScheduling,
            NapiAccess napi,
            Options options,
            Path stateFile) {
        poll.ifPresent(unused -> refuseWithoutBusyPoll(napi.perNapi()));
        Path threadedFile = threadedFile(paths, nic.name());
        List<Setting> settings = IrqPlan.settings(nic, plan, options.xps());
        refuseIfIrqbalance(settings, options);
        // NAPI IDs exist before their threads: a kernel that cannot link them to queues is refused before any change.
        NapiMap before = napi.discover().get();
        List<Setting> busyPoll =
                poll.map(p -> NapiThreadPlan.busyPoll(nic, p, before)).orElse(List.of());
        Optional<Map<Integer, Integer>> perNapi =
                perNapiThreaded(threadSettings(nic, plan, poll, before, options.napiThreads()), before);
        Map<Integer, Integer> busyPolled = new LinkedHashMap<>();
        busyPoll.forEach(setting ->
                busyPolled.put(setting.target().number(), setting.cpus().first()));
        if (!busyPolled.isEmpty() && perNapi.isEmpty()) {
            throw new NapiFeatureFailure(
                    NumaspreadException.Kind.REFUSED,
                    NapiFeatureFailure.Feature.BUSY_POLL,
                    "netdev netlink napi-get reports no threaded of each NAPI of " + nic.name() + " (" + before.detail()
                            + "), which busy polling is set through; nothing was changed");
        }
        NapiThreads threads = napi.threads(paths, files);
        AffinityTransaction.Threading threading = new AffinityTransaction.Threading(
                threadedFile,
                perNapi,
                () -> {
                    NapiMap map = napi.discover().get();
                    threads.useNetlinkPids(map);
                    return threadSettings(nic, plan, poll, map, options.napiThreads());
                },
                busyPolled.keySet(),
                pollScheduling);
        boolean wasOff = perNapi.isEmpty() && threadedIsOff(threadedFile);
        List<AffinityTransaction.Result> results =
                transaction(threads).apply(nic.name(), settings, Optional.of(threading), stateFile, options.dryRun());
        Threading way = perNapi.isPresent()
                ? new Threading(
                        ThreadingWay.PER_NAPI,
                        threading.napisOff().stream()
                                .filter(napiId -> !busyPolled.containsKey(napiId))
                                .toList(),
                        threadedFile,
                        false,
                        busyPolled,
                        pollScheduling)
                : new Threading(ThreadingWay.DEVICE, List.of(), threadedFile, wasOff);
        return outcome(
                nic,
                stateFile,
                results,
                Irqbalance.blindSpot(paths.procRoot()).stream().toList(),
                Optional.of(way));
    }

    /**
     * The NAPI threads to pin: with {@code napiThreads} each queue's on its queue's CPUs, and each busy-poll thread
     * on its poll CPU.
     */
    private static List<Setting> threadSettings(
            Nic nic, SpreadPlan plan, Optional<PollPlan> poll, NapiMap map, boolean napiThreads) {
        List<Setting> busyPoll =
                poll.map(p -> NapiThreadPlan.busyPoll(nic, p, map)).orElse(List.of());
        return napiThreads ? NapiThreadPlan.withBusyPoll(NapiThreadPlan.settings(nic, plan, map), busyPoll) : busyPoll;
    }

    /**
     * Refuses, before any change, a kernel whose {@code napi-set} cannot set busy polling: its policy bounds
     * {@code threaded} below 2 (before Linux 6.19), or it has no {@code napi-set} at all. Every apply with poll
     * cores calls it; {@code watch} also before it writes its state file.
     *
     * @throws NumaspreadException (refused) naming the kernel release
     */
    public void refuseWithoutBusyPoll(PerNapiThreaded perNapi) {
        String release = KernelText.readOptional(paths.procRoot().resolve("sys/kernel/osrelease"))
                .orElse("(unknown release)");
        long max;
        try {
            max = perNapi.threadedMaximum();
        } catch (NumaspreadException e) {
            throw new NapiFeatureFailure(
                    NumaspreadException.Kind.REFUSED,
                    NapiFeatureFailure.Feature.BUSY_POLL,
                    "threaded busy polling needs Linux 6.19 or later (netdev napi-set threaded 2); kernel " + release
                            + ": " + e.getMessage() + "; nothing was changed",
                    e);
        }
        if (max < PerNapiThreaded.BUSY_POLL) {
            throw new NapiFeatureFailure(
                    NumaspreadException.Kind.REFUSED,
                    NapiFeatureFailure.Feature.BUSY_POLL,
                    "kernel " + release + " has no threaded busy polling: its napi-set policy bounds"
                            + " threaded at " + max + " (busy-poll is " + PerNapiThreaded.BUSY_POLL
                            + "; nlctrl getpolicy netdev napi-set), which needs Linux 6.19 or later; nothing was"
                            + " changed");
        }
    }

    /**
     * The planned NAPIs' own {@code threaded} as {@code map} reports them, when it reports it for every one of
     * them (netdev netlink napi-get, Linux 6.17); otherwise empty, and the device's switch is used.
     */
    private static Optional<Map<Integer, Integer>> perNapiThreaded(List<Setting> threadSettings, NapiMap map) {
        Map<Integer, Integer> threaded = new TreeMap<>();
        for (Setting setting : threadSettings) {
            int napiId = setting.target().number();
            OptionalInt value = map.byId(napiId).map(NapiInstance::threaded).orElse(OptionalInt.empty());
            if (value.isEmpty()) {
                return Optional.empty();
            }
            threaded.put(napiId, value.getAsInt());
        }
        return Optional.of(threaded);
    }

    /**
     * {@code /sys/class/net/IFACE/threaded}.
     *
     * @throws NapiFeatureFailure ({@link NapiFeatureFailure.Feature#NAPI_THREADS}, refused) when the interface has
     *     none: Linux before 5.12
     */
    public static Path threadedFile(KernelPaths paths, InterfaceName iface) {
        Path threadedFile = paths.netDevice(iface).resolve("threaded");
        if (!Files.exists(threadedFile)) {
            throw new NapiFeatureFailure(
                    NumaspreadException.Kind.REFUSED,
                    NapiFeatureFailure.Feature.NAPI_THREADS,
                    threadedFile.toString()
                            + " is missing: threaded NAPI needs Linux 5.12 or later and a driver that polls with NAPI;"
                            + " nothing was changed");
        }
        return threadedFile;
    }

    private static boolean threadedIsOff(Path threadedFile) {
        return KernelText.readOptional(threadedFile).map("0"::equals).orElse(false);
    }

    private Outcome apply(Nic nic, List<Setting> settings, NapiThreads threads, Options options, Path stateFile) {
        refuseIfIrqbalance(settings, options);
        return outcome(
                nic,
                stateFile,
                transaction(threads).apply(nic.name(), settings, stateFile, options.dryRun()),
                Irqbalance.blindSpot(paths.procRoot()).stream().toList(),
                Optional.empty());
    }

    private AffinityTransaction transaction(NapiThreads threads) {
        return new AffinityTransaction(
                paths, files, SysfsTree.at(paths.sysfsRoot()).maskBits(), threads);
    }

    private Outcome outcome(
            Nic nic,
            Path stateFile,
            List<AffinityTransaction.Result> results,
            List<String> notes,
            Optional<Threading> threading) {
        return new Outcome(
                nic.name(), paths, stateFile, state instanceof StateLocation.Default, results, notes, threading);
    }

    private void refuseIfIrqbalance(List<Setting> settings, Options options) {
        if (!options.dryRun() && !options.force()) {
            Map<Integer, CpuSet> planned = new TreeMap<>();
            settings.stream()
                    .filter(setting -> setting.target().kind() == Target.Kind.IRQ)
                    .forEach(setting -> planned.put(setting.target().number(), setting.cpus()));
            Irqbalance.refuseIfRunning(paths.procRoot(), planned);
        }
    }
}
