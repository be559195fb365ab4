// SPDX-License-Identifier: Apache-2.0
package io.numaspread.watch;

import io.numaspread.NumaspreadException;
import io.numaspread.irq.AffinityTransaction;
import io.numaspread.irq.NapiThreadPlan;
import io.numaspread.irq.NapiThreads;
import io.numaspread.irq.NicPlacement;
import io.numaspread.irq.Setting;
import io.numaspread.irq.Target;
import io.numaspread.irq.Wanted;
import io.numaspread.kernel.InterfaceName;
import io.numaspread.kernel.KernelFiles;
import io.numaspread.kernel.KernelPaths;
import io.numaspread.kernel.KernelText;
import io.numaspread.nic.NapiInstance;
import io.numaspread.nic.NapiMap;
import io.numaspread.nic.Nic;
import io.numaspread.nic.PerNapiThreaded;
import io.numaspread.plan.PollPlan;
import io.numaspread.plan.SpreadPlan;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * Keeps a check's NAPI threads and busy-poll NAPIs up: adds their settings to the plan's, turns threaded NAPI or
 * busy polling on again when the kernel lost it, and says what the applies did to them.
 */
record NapiUpkeep(
        KernelPaths paths,
        KernelFiles files,
        Watcher.Settings settings,
        NicPlacement placement,
        Watcher.Listener listener,
        Settler settler) {

    /**
     * With {@code --napi-threads}, the plan's settings plus one per NAPI thread, as the kernel names them now; with
     * busy-poll cores, plus each polled queue's thread on its poll CPU. When threaded NAPI is off (someone turned it
     * off, or at the start), or a polled queue's NAPI does not busy-poll (a reset gave the queue a new NAPI, or the
     * kernel forgot its {@code threaded}), it is set again and the threads pinned in one apply, which records
     * {@code threaded}'s previous value; that says one line.
     */
    List<Setting> withNapiThreads(
            Placed state, Reading reading, List<Setting> wanted, Trigger trigger, List<KernelEvent> events) {
        boolean pinAll = settings.placement().napiThreads();
        Optional<PollPlan> poll = reading.poll();
        if (!pinAll && poll.isEmpty()) {
            return wanted;
        }
        Nic nic = reading.nic();
        SpreadPlan plan = reading.plan();
        NicPlacement.NapiAccess napi = settings.napi().orElseThrow().apply(nic.name());
        Path threadedFile = NicPlacement.threadedFile(paths, nic.name());
        NapiMap map = napi.discover().get();
        List<Setting> threadSettings;
        List<Setting> busyPoll;
        try {
            threadSettings = pinAll ? NapiThreadPlan.settings(nic, plan, map) : List.of();
            busyPoll = poll.map(p -> NapiThreadPlan.busyPoll(nic, p, map)).orElse(List.of());
        } catch (NumaspreadException e) {
            // While the kernel's map cannot tell the threads apart (virtio_net with fewer channels than NAPIs, or
            // no NAPI listed while the link is down), the IRQs are still kept; the threads are pinned again once
            // it can.
            if (trigger == Trigger.START || e.kind() != NumaspreadException.Kind.REFUSED) {
                throw e;
            }
            if (!state.napiProblem.equals(Optional.of(e.getMessage()))) {
                listener.heard(
                        new WatchEvent.NapiThreadsLeft(nic.name(), e.getMessage(), settler.after(nic.name(), events)));
            }
            state.napiProblem = Optional.of(e.getMessage());
            return wanted;
        }
        state.napiProblem = Optional.empty();
        state.busyPoll = busyPoll;
        boolean threadedOff = pinAll && threadedOff(threadedFile, threadSettings, map);
        List<Integer> notPolling = notPolling(busyPoll, map);
        if (threadedOff || !notPolling.isEmpty()) {
            NicPlacement.Outcome outcome = placement.apply(
                    nic,
                    poll.map(p -> Wanted.polled(plan, p)).orElseGet(() -> Wanted.plan(plan)),
                    settings.placement(false));
            state.changedFirst = outcome.results().stream()
                    .filter(r -> r.status() == AffinityTransaction.Status.CHANGED)
                    .map(AffinityTransaction.Result::target)
                    .toList();
            long pinned = countNapiThreads(nic.name(), outcome.results());
            List<KernelEvent> after = trigger == Trigger.START ? List.of() : settler.after(nic.name(), events);
            if (threadedOff) {
                listener.heard(new WatchEvent.ThreadedTurnedOn(
                        nic.name(),
                        threadedFile,
                        outcome.threading()
                                .filter(way -> way.way() == NicPlacement.ThreadingWay.PER_NAPI)
                                .map(threading -> threading.turnedOn().stream()
                                        .filter(id -> !threading.busyPolled().containsKey(id))
                                        .toList())
                                .orElse(List.of()),
                        pinned,
                        after));
            }
            sayBusyPoll(nic.name(), state, notPolling, outcome.results(), after);
        }
        NapiThreads threads = state.threads.orElseGet(() -> napi.threads(paths, files));
        threads.useNetlinkPids(map);
        state.threads = Optional.of(threads);
        List<Setting> all = new ArrayList<>(wanted);
        all.addAll(NapiThreadPlan.withBusyPoll(threadSettings, busyPoll));
        return all;
    }

    /** The polled queues' NAPIs that do not busy-poll now, as napi-get reports their {@code threaded}. */
    private static List<Integer> notPolling(List<Setting> busyPoll, NapiMap map) {
        return busyPoll.stream()
                .map(setting -> setting.target().number())
                .filter(napiId -> map.byId(napiId)
                        .map(NapiInstance::threaded)
                        .filter(OptionalInt::isPresent)
                        .map(OptionalInt::getAsInt)
                        .map(threaded -> threaded != PerNapiThreaded.BUSY_POLL)
                        .orElse(true))
                .toList();
    }

    /**
     * Says, once per check, what an apply did to the busy-poll NAPIs: {@code switched} were set to busy-poll, the
     * others' threads pinned ({@code results} changed them) or found on their poll CPU, kept.
     */
    void sayBusyPoll(
            InterfaceName iface,
            Placed state,
            List<Integer> switched,
            List<AffinityTransaction.Result> results,
            List<KernelEvent> after) {
        if (state.busyPoll.isEmpty() || state.busyPollSaid) {
            return;
        }
        state.busyPollSaid = true;
        List<WatchEvent.PolledNapi> napis = new ArrayList<>();
        for (Setting setting : state.busyPoll) {
            int napiId = setting.target().number();
            boolean pinned = results.stream()
                    .anyMatch(r ->
                            r.target().equals(setting.target()) && r.status() == AffinityTransaction.Status.CHANGED);
            napis.add(new WatchEvent.PolledNapi(
                    napiId,
                    setting.cpus().first(),
                    switched.contains(napiId)
                            ? WatchEvent.PollAction.SET
                            : pinned ? WatchEvent.PollAction.PINNED : WatchEvent.PollAction.KEPT));
        }
        listener.heard(new WatchEvent.BusyPoll(iface, napis, after));
    }

    /**
     * Whether threaded NAPI is off for a planned NAPI: as the NAPI's own {@code threaded} says where napi-get
     * reports it (Linux 6.17, where apply turns only the planned NAPIs on and the device's file stays 0),
     * otherwise as the device's file says.
     */
    private static boolean threadedOff(Path threadedFile, List<Setting> threadSettings, NapiMap map) {
        List<OptionalInt> own = threadSettings.stream()
                .map(setting -> map.byId(setting.target().number())
                        .map(NapiInstance::threaded)
                        .orElse(OptionalInt.empty()))
                .toList();
        if (own.stream().allMatch(OptionalInt::isPresent)) {
            return own.stream().anyMatch(value -> value.getAsInt() == 0);
        }
        return KernelText.readOptional(threadedFile).map("0"::equals).orElse(false);
    }

    /** Tells the listener how many NAPI threads {@code results} pinned, and returns it. */
    long countNapiThreads(InterfaceName iface, List<AffinityTransaction.Result> results) {
        long pinned = results.stream()
                .filter(r -> r.target().kind() == Target.Kind.NAPI_THREAD
                        && r.status() == AffinityTransaction.Status.CHANGED)
                .count();
        if (pinned > 0) {
            listener.heard(new WatchEvent.NapiThreadsPinned(iface, (int) pinned));
        }
        return pinned;
    }
}
