// SPDX-License-Identifier: Apache-2.0
package io.numaspread.irq;

import io.numaspread.CpuSet;
import io.numaspread.NumaspreadException;
import io.numaspread.kernel.InterfaceName;
import io.numaspread.kernel.KernelFiles;
import io.numaspread.kernel.KernelPaths;
import io.numaspread.kernel.SysfsTree;
import io.numaspread.kernel.ThreadScheduling;
import io.numaspread.nic.NapiMap;
import io.numaspread.nic.NapiSettings;
import io.numaspread.nic.NapiSettingsChange;
import io.numaspread.nic.Nic;
import io.numaspread.nic.PerNapiThreaded;
import io.numaspread.plan.SpreadPlan;
import java.nio.file.Path;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Writes a NIC's queue plan as {@code numaspread apply}, {@code watch} and the agent's {@code irqs=apply} all do:
 * irqbalance refused first, the previous values saved to the state file before the first change, every write read
 * back, all or nothing (see {@link AffinityTransaction}). One object per set of trees, backend and state location;
 * callers render the {@link Outcome}.
 *
 * <p>This class holds the entry points, their values and the plain apply. An apply that reaches the NAPI threads is
 * {@code NapiThreadsApply}'s, one with IRQ suspension's NAPI settings {@code NapiSettingsApply}'s, and one of
 * several NICs at once {@code JointApply}'s: each adds its own refusals and roll back around the same transaction.
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
                return StateFile.in(directory, iface);
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

    /**
     * @param stateFile the state file used
     * @param defaultStateFile whether it is the interface's default, which {@code restore --nic} finds
     * @param paths the trees written, which a command that undoes the apply must name when they are not live
     * @param results one per setting, in plan order
     * @param notes what the caller should know that did not stop the apply (an irqbalance that could not be seen)
     * @param threading with {@link Options#napiThreads}, how threaded NAPI was turned on
     * @param napiSettings with {@link Wanted#suspended}, what each planned NAPI had and got
     */
    public record Outcome(
            InterfaceName iface,
            KernelPaths paths,
            Path stateFile,
            boolean defaultStateFile,
            List<AffinityTransaction.Result> results,
            List<String> notes,
            Optional<Threading> threading,
            Optional<NapiSettingsOutcome> napiSettings) {
        public Outcome {
            results = List.copyOf(results);
            notes = List.copyOf(notes);
        }

        Outcome withNapiSettings(NapiSettingsOutcome outcome) {
            return new Outcome(
                    iface, paths, stateFile, defaultStateFile, results, notes, threading, Optional.of(outcome));
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
     * What an apply with NAPI settings did to them.
     *
     * @param wanted the settings each planned NAPI got (a dry run: would get)
     * @param before each planned NAPI's settings before, by NAPI ID in queue order
     */
    public record NapiSettingsOutcome(NapiSettings wanted, Map<Integer, NapiSettings> before) {
        public NapiSettingsOutcome {
            before = Collections.unmodifiableMap(new LinkedHashMap<>(before));
        }
    }

    private final KernelPaths paths;
    private final KernelFiles files;
    private final Optional<Function<InterfaceName, NapiAccess>> napi;
    private final StateLocation state;
    private final NapiSettingsChange.Access napiSettings;

    /**
     * @param paths the trees to write (sysfs and proc roots)
     * @param files the kernel's files ({@link KernelFiles#DIRECT} but in fault tests)
     * @param napi how each interface's NAPI threads are reached, needed for {@link Options#napiThreads}
     * @param state where each interface's previous values go
     * @param napiSettings how {@link #restore} puts back the NAPI settings a state file records (an {@code apply
     *     --irq-suspend}): netdev netlink on the running kernel, {@link NapiSettingsChange.Access#NONE} over a
     *     stand-in tree, where a state file that records them is refused
     */
    public NicPlacement(
            KernelPaths paths,
            KernelFiles files,
            Optional<Function<InterfaceName, NapiAccess>> napi,
            StateLocation state,
            NapiSettingsChange.Access napiSettings) {
        this.paths = paths;
        this.files = files;
        this.napi = napi;
        this.state = state;
        this.napiSettings = napiSettings;
    }

    /** Without access to NAPI settings: a state file that records them is refused by {@link #restore}. */
    public NicPlacement(
            KernelPaths paths,
            KernelFiles files,
            Optional<Function<InterfaceName, NapiAccess>> napi,
            StateLocation state) {
        this(paths, files, napi, state, NapiSettingsChange.Access.NONE);
    }

    /**
     * @throws io.numaspread.NumaspreadException REFUSED (irqbalance, no privilege, and with {@link
     *     Options#napiThreads} an interface without a {@code threaded} file (Linux before 5.12) or whose NAPI
     *     threads cannot be told apart by queue), BAD_INPUT or ROLLED_BACK, as {@link AffinityTransaction#apply}
     *     says; only ROLLED_BACK can follow a change, and it was put back
     * @throws IllegalArgumentException when a plan is not one assignment per queue of {@code nic}
     */
    public Outcome apply(Nic nic, Wanted wanted, Options options) {
        return wanted.applyBy(this, nic, options, stateFile(nic.name()));
    }

    /**
     * Puts back everything {@code stateFile} records, as {@link AffinityTransaction#restore} says: IRQs, XPS masks,
     * NAPI threads (found again through {@code threads}: a re-created thread has a new PID), threaded NAPI, the
     * busy-poll threads' scheduling classes, and NAPI settings through this placement's access to them. The one
     * entry of {@code restore} and of the restore that ends {@code watch}.
     *
     * @param expected the interface the file must be of, when the caller names one
     */
    public List<AffinityTransaction.Result> restore(
            Path stateFile, Optional<InterfaceName> expected, NapiThreads threads) {
        return transaction(threads).restore(stateFile, expected);
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
        return new JointApply(this).apply(shares, options);
    }

    /**
     * Refuses, before any change, a kernel whose {@code napi-set} cannot set busy polling: its policy bounds
     * {@code threaded} below 2 (before Linux 6.19), or it has no {@code napi-set} at all. Every apply with poll
     * cores calls it; {@code watch} also before it writes its state file.
     *
     * @throws NumaspreadException (refused) naming the kernel release
     */
    public void refuseWithoutBusyPoll(PerNapiThreaded perNapi) {
        NapiThreadsApply.refuseWithoutBusyPoll(paths, perNapi);
    }

    /**
     * {@code /sys/class/net/IFACE/threaded}.
     *
     * @throws NapiFeatureFailure ({@link NapiFeatureFailure.Feature#NAPI_THREADS}, refused) when the interface has
     *     none: Linux before 5.12
     */
    public static Path threadedFile(KernelPaths paths, InterfaceName iface) {
        return NapiThreadsApply.threadedFile(paths, iface);
    }

    Outcome applyPlain(Nic nic, List<Setting> settings, NapiThreads threads, Options options, Path stateFile) {
        refuseIfIrqbalance(settings, options);
        return outcome(
                nic,
                stateFile,
                transaction(threads)
                        .apply(
                                nic.name(),
                                settings,
                                Optional.empty(),
                                options.placement().asked(),
                                stateFile,
                                options.dryRun()),
                Optional.empty());
    }

    // What the ways of applying (NapiThreadsApply, NapiSettingsApply, JointApply) share with the plain one.

    KernelPaths paths() {
        return paths;
    }

    KernelFiles files() {
        return files;
    }

    Path stateFile(InterfaceName iface) {
        return state.of(paths, iface);
    }

    NapiAccess napiAccess(InterfaceName iface) {
        return napi.orElseThrow(() -> new IllegalStateException("NAPI threads without NAPI access"))
                .apply(iface);
    }

    AffinityTransaction transaction(NapiThreads threads) {
        return new AffinityTransaction(
                paths, files, SysfsTree.at(paths.sysfsRoot()).maskBits(), threads, napiSettings);
    }

    /** A transaction's outcome, with a note when an irqbalance could not be seen ({@link Irqbalance#blindSpot}). */
    Outcome outcome(Nic nic, Path stateFile, List<AffinityTransaction.Result> results, Optional<Threading> threading) {
        List<String> notes = Irqbalance.blindSpot(paths.procRoot()).stream().toList();
        return new Outcome(
                nic.name(),
                paths,
                stateFile,
                state instanceof StateLocation.Default,
                results,
                notes,
                threading,
                Optional.empty());
    }

    /** Refuses a real apply while irqbalance runs, unless forced: it would move the planned IRQs back. */
    void refuseIfIrqbalance(List<Setting> settings, Options options) {
        if (!options.dryRun() && !options.force()) {
            Map<Integer, CpuSet> planned = new TreeMap<>();
            settings.stream()
                    .filter(setting -> setting.target().kind() == Target.Kind.IRQ)
                    .forEach(setting -> planned.put(setting.target().number(), setting.cpus()));
            Irqbalance.refuseIfRunning(paths.procRoot(), planned);
        }
    }
}
