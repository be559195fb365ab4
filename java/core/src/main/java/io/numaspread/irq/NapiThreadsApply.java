// SPDX-License-Identifier: Apache-2.0
package io.numaspread.irq;

import io.numaspread.NumaspreadException;
import io.numaspread.kernel.InterfaceName;
import io.numaspread.kernel.KernelPaths;
import io.numaspread.kernel.KernelText;
import io.numaspread.kernel.ThreadScheduling;
import io.numaspread.nic.NapiInstance;
import io.numaspread.nic.NapiMap;
import io.numaspread.nic.Nic;
import io.numaspread.nic.PerNapiThreaded;
import io.numaspread.plan.PollPlan;
import io.numaspread.plan.SpreadPlan;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.TreeMap;

/**
 * A {@link NicPlacement#apply} of the whole plan that reaches the NAPI threads ({@code --napi-threads}, busy-poll
 * cores, {@code --poll-sched}). It chooses how this kernel turns threaded NAPI on (NAPI by NAPI through netdev
 * netlink, or the device's sysfs switch), refuses before any change what the kernel cannot do, and gives the
 * transaction the NAPI threads to pin as they are found under its lock: a NAPI's thread exists only once threaded
 * NAPI is on, so they cannot be listed before.
 */
final class NapiThreadsApply {
    private final NicPlacement placement;
    private final NicPlacement.NapiAccess napi;

    NapiThreadsApply(NicPlacement placement, NicPlacement.NapiAccess napi) {
        this.placement = placement;
        this.napi = napi;
    }

    NicPlacement.Outcome apply(Nic nic, Wanted.Plan whole, NicPlacement.Options options, Path stateFile) {
        SpreadPlan plan = whole.plan();
        Optional<PollPlan> poll = whole.poll();
        Optional<ThreadScheduling> pollScheduling = whole.pollScheduling();
        KernelPaths paths = placement.paths();
        poll.ifPresent(unused -> refuseWithoutBusyPoll(paths, napi.perNapi()));
        Path threadedFile = threadedFile(paths, nic.name());
        List<Setting> settings = IrqPlan.settings(nic, plan, options.xps());
        placement.refuseIfIrqbalance(settings, options);
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
        NapiThreads threads = napi.threads(paths, placement.files());
        ThreadedNapiOn threading = new ThreadedNapiOn(
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
        List<AffinityTransaction.Result> results = placement
                .transaction(threads)
                .apply(
                        nic.name(),
                        settings,
                        Optional.of(threading),
                        options.placement().asked(),
                        stateFile,
                        options.dryRun());
        NicPlacement.Threading way = perNapi.isPresent()
                ? new NicPlacement.Threading(
                        NicPlacement.ThreadingWay.PER_NAPI,
                        threading.napisOff().stream()
                                .filter(napiId -> !busyPolled.containsKey(napiId))
                                .toList(),
                        threadedFile,
                        false,
                        busyPolled,
                        pollScheduling)
                : new NicPlacement.Threading(NicPlacement.ThreadingWay.DEVICE, List.of(), threadedFile, wasOff);
        return placement.outcome(nic, stateFile, results, Optional.of(way));
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

    /** As {@link NicPlacement#refuseWithoutBusyPoll}, with the kernel's release read from {@code paths}. */
    static void refuseWithoutBusyPoll(KernelPaths paths, PerNapiThreaded perNapi) {
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

    /** As {@link NicPlacement#threadedFile}. */
    static Path threadedFile(KernelPaths paths, InterfaceName iface) {
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
}
