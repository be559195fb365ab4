// SPDX-License-Identifier: Apache-2.0
package io.numaspread.irq;

import io.numaspread.CpuSet;
import io.numaspread.NumaspreadException;
import io.numaspread.kernel.InterfaceName;
import io.numaspread.kernel.KernelFiles;
import io.numaspread.kernel.KernelPaths;
import io.numaspread.kernel.KernelText;
import io.numaspread.kernel.SysfsTree;
import io.numaspread.nic.NapiMap;
import io.numaspread.nic.Nic;
import io.numaspread.plan.SpreadPlan;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Supplier;

/**
 * Writes a NIC's queue plan as {@code numaspread apply} and the agent's {@code irqs=apply} both do: irqbalance
 * refused first, the previous values saved to the state file before the first change, every write read back,
 * all or nothing (see {@link AffinityTransaction}). Callers render the {@link Outcome}.
 */
public final class NicPlacement {
    /**
     * @param placement what {@code apply} and {@code watch} share: force, XPS, NAPI threads
     * @param dryRun read and compare only; nothing is written, not even the state file
     * @param stateFile where the previous values go; empty for {@link StateFile#defaultPath}, which follows the roots
     */
    public record Options(PlacementOptions placement, boolean dryRun, Optional<Path> stateFile) {
        /** {@link PlacementOptions#DEFAULTS}, a real apply, the default state file. */
        public static Options defaults() {
            return new Options(PlacementOptions.DEFAULTS, false, Optional.empty());
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

    /**
     * How {@code --napi-threads} reaches the NAPI threads.
     *
     * @param discover the NIC's NAPI map as the kernel gives it at the moment of the call (netdev netlink)
     * @param setter {@code sched_setaffinity} on a PID through the native backend
     */
    public record NapiAccess(Supplier<NapiMap> discover, NapiThreads.AffinitySetter setter) {
    }

    /**
     * @param stateFile the state file used
     * @param defaultStateFile whether it is the interface's default, which {@code restore --nic} finds
     * @param results one per setting, in plan order
     * @param notes what the caller should know that did not stop the apply (an irqbalance that could not be seen)
     */
    public record Outcome(InterfaceName iface, KernelPaths paths, Path stateFile, boolean defaultStateFile,
            List<AffinityTransaction.Result> results, List<String> notes) {
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

        /** The command that puts the previous values back, with the stand-in roots when the tree is not live. */
        public String restoreCommand() {
            return defaultStateFile ? "numaspread restore --nic " + iface + AffinityTransaction.rootOptions(paths)
                    : AffinityTransaction.restoreCommand(paths, stateFile);
        }
    }

    private NicPlacement() {
    }

    /**
     * @param plan one assignment per queue of {@code nic}, as planned from {@link Nic#planRequest}
     * @param files the kernel's files ({@link KernelFiles#DIRECT} but in fault tests)
     * @throws io.numaspread.NumaspreadException REFUSED (irqbalance, no privilege), BAD_INPUT or ROLLED_BACK, as
     *     {@link AffinityTransaction#apply} says; only ROLLED_BACK can follow a change, and it was put back
     */
    public static Outcome apply(Nic nic, SpreadPlan plan, Options options, KernelPaths paths, KernelFiles files) {
        return apply(nic, IrqPlan.settings(nic, plan, options.xps()), options, paths, files);
    }

    /**
     * As {@link #apply(Nic, SpreadPlan, Options, KernelPaths, KernelFiles)}, and with {@link Options#napiThreads}
     * each queue's NAPI thread too, in the same transaction: {@code threaded} is set to 1 when it is 0 (recorded,
     * so that restore puts back 0), and every thread is pinned to its queue's planned CPUs.
     *
     * @throws io.numaspread.NumaspreadException REFUSED also when the interface has no {@code threaded} file
     *     (Linux before 5.12) or its NAPI threads cannot be told apart by queue
     */
    public static Outcome apply(Nic nic, SpreadPlan plan, Options options, KernelPaths paths, KernelFiles files,
            NapiAccess napi) {
        if (!options.napiThreads()) {
            return apply(nic, plan, options, paths, files);
        }
        Path threadedFile = threadedFile(paths, nic.name());
        List<Setting> settings = IrqPlan.settings(nic, plan, options.xps());
        refuseIfIrqbalance(settings, options, paths);
        // NAPI IDs exist before their threads: a kernel that cannot link them to queues is refused before any change.
        NapiThreadPlan.settings(nic, plan, napi.discover().get());
        NapiThreads threads = new NapiThreads(paths, files, napi.setter(), Map.of());
        AffinityTransaction.Threading threading = new AffinityTransaction.Threading(threadedFile, () -> {
            NapiMap map = napi.discover().get();
            threads.useNetlinkPids(map);
            return NapiThreadPlan.settings(nic, plan, map);
        });
        boolean wasOff = threadedIsOff(threadedFile);
        Path state = options.stateFile().orElseGet(() -> StateFile.defaultPath(paths, nic.name()));
        AffinityTransaction applier = new AffinityTransaction(paths, files, SysfsTree.at(paths.sysfsRoot()).maskBits(),
                threads);
        List<AffinityTransaction.Result> results = applier.apply(nic.name(), settings, Optional.of(threading), state,
                options.dryRun());
        List<String> notes = new ArrayList<>(Irqbalance.blindSpot(paths.procRoot()).stream().toList());
        if (wasOff) {
            notes.add(options.dryRun() ? threadedFile + " is 0: apply would set it to 1 and pin the NAPI threads the"
                    + " kernel then starts" : threadedFile + " was 0 and is now 1 (threaded NAPI); restore puts back 0");
        }
        return new Outcome(nic.name(), paths, state, options.stateFile().isEmpty(), results, notes);
    }

    /**
     * {@code /sys/class/net/IFACE/threaded}.
     *
     * @throws NumaspreadException (refused) when the interface has none: Linux before 5.12
     */
    public static Path threadedFile(KernelPaths paths, InterfaceName iface) {
        Path threadedFile = paths.netDevice(iface).resolve("threaded");
        if (!Files.exists(threadedFile)) {
            throw new NumaspreadException(NumaspreadException.Kind.REFUSED, "--napi-threads: " + threadedFile
                    + " is missing: threaded NAPI needs Linux 5.12 or later and a driver that polls with NAPI;"
                    + " nothing was changed");
        }
        return threadedFile;
    }

    private static boolean threadedIsOff(Path threadedFile) {
        return KernelText.readOptional(threadedFile).map("0"::equals).orElse(false);
    }

    /**
     * As {@link #apply(Nic, SpreadPlan, Options, KernelPaths, KernelFiles)}, for some of the plan's settings
     * ({@code watch} leaves IRQs that another writer fights over alone for a while).
     *
     * @param settings from {@link IrqPlan#settings}, or some of them
     */
    public static Outcome apply(Nic nic, List<Setting> settings, Options options, KernelPaths paths,
            KernelFiles files) {
        return apply(nic, settings, options, paths, files, NapiThreads.NONE);
    }

    /**
     * As {@link #apply(Nic, List, Options, KernelPaths, KernelFiles)}, with settings of NAPI threads among them
     * ({@code watch --napi-threads}, with threaded NAPI on).
     *
     * @param threads how the NAPI threads of {@code settings} are found and pinned
     */
    public static Outcome apply(Nic nic, List<Setting> settings, Options options, KernelPaths paths,
            KernelFiles files, NapiThreads threads) {
        refuseIfIrqbalance(settings, options, paths);
        Path state = options.stateFile().orElseGet(() -> StateFile.defaultPath(paths, nic.name()));
        AffinityTransaction applier = new AffinityTransaction(paths, files, SysfsTree.at(paths.sysfsRoot()).maskBits(),
                threads);
        return new Outcome(nic.name(), paths, state, options.stateFile().isEmpty(),
                applier.apply(nic.name(), settings, state, options.dryRun()),
                Irqbalance.blindSpot(paths.procRoot()).stream().toList());
    }

    private static void refuseIfIrqbalance(List<Setting> settings, Options options, KernelPaths paths) {
        if (!options.dryRun() && !options.force()) {
            Map<Integer, CpuSet> planned = new TreeMap<>();
            settings.stream().filter(setting -> setting.target().kind() == Target.Kind.IRQ)
                    .forEach(setting -> planned.put(setting.target().number(), setting.cpus()));
            Irqbalance.refuseIfRunning(paths.procRoot(), planned);
        }
    }
}
