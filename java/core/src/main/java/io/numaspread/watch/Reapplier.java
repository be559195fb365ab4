// SPDX-License-Identifier: Apache-2.0
package io.numaspread.watch;

import io.numaspread.irq.AffinityTransaction;
import io.numaspread.irq.NicPlacement;
import io.numaspread.irq.Setting;
import io.numaspread.irq.Target;
import io.numaspread.irq.Wanted;
import io.numaspread.kernel.InterfaceName;
import io.numaspread.kernel.KernelPaths;
import io.numaspread.nic.Nic;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Writes what a check decided, through the same {@link NicPlacement} as {@code apply}: the plan at the start, the
 * plan made again after a change, the files someone moved put back (unless a writer keeps moving them, {@link
 * Fight}), and the NIC's originals at the end; and says what each write did.
 */
record Reapplier(
        KernelPaths paths,
        Watcher.Settings settings,
        NicPlacement placement,
        WatchedState stateFiles,
        Watcher.Listener listener,
        Settler settler,
        NapiUpkeep napi) {

    /** Applies every setting of {@code wanted}, as {@code apply} does. */
    NicPlacement.Outcome apply(Placed state, Nic nic, List<Setting> wanted) {
        return placement.apply(nic, Wanted.only(wanted, state.threads()), settings.placement(false));
    }

    /** Applies the plan made again after a change, and tells what changed. */
    void planAgain(InterfaceName iface, Placed state, Reading reading, List<Setting> wanted, List<KernelEvent> events) {
        Optional<NicSnapshot> before = state.present ? Optional.of(state.snapshot.orElseThrow()) : Optional.empty();
        state.heldAfter.clear();
        stateFiles.pruneStale(iface);
        state.fights.forEach((target, fight) -> {
            if (fight.fighting()) {
                listener.heard(new WatchEvent.FightOver(iface, target, Optional.empty()));
            }
        });
        state.fights.clear();
        NicPlacement.Outcome outcome = apply(state, reading.nic(), wanted);
        napi.countNapiThreads(iface, outcome.results());
        listener.heard(new WatchEvent.Changed(
                iface, before, reading.snapshot(), settler.after(iface, events), counts(state, outcome)));
        napi.sayBusyPoll(iface, state, List.of(), outcome.results(), settler.after(iface, events));
    }

    /**
     * Nothing the plan depends on changed: files that differ from the plan ({@code reading}, from
     * {@link KernelReader#readBack}) were changed by someone. {@code events}: those that triggered the check; none
     * for a timed check.
     */
    void putBack(
            InterfaceName iface,
            Placed state,
            Nic nic,
            List<Setting> wanted,
            List<AffinityTransaction.Result> reading,
            Trigger trigger,
            List<KernelEvent> events,
            Instant now) {
        List<AffinityTransaction.Result> moved =
                reading.stream().filter(KernelReader::moved).toList();
        for (AffinityTransaction.Result held : reading) {
            if (!KernelReader.moved(held)) {
                state.fights.computeIfPresent(held.target(), (target, fight) -> {
                    Fight next = fight.held(now, settings.backoff());
                    if (fight.fighting() && !next.fighting()) {
                        listener.heard(new WatchEvent.FightOver(
                                iface, target, Optional.of(settings.backoff().window())));
                    }
                    return next == Fight.NONE ? null : next;
                });
            }
        }
        if (moved.isEmpty()) {
            if (state.changedFirst.isEmpty()) {
                heldAcross(iface, state, reading, trigger, events);
            } else {
                state.heldAfter.clear();
            }
            return;
        }
        state.heldAfter.clear();
        boolean byWriter = trigger == Trigger.DRIFT_CHECK;
        List<Target> leftAlone = new ArrayList<>();
        if (byWriter) {
            listener.heard(new WatchEvent.DriftFound(
                    iface,
                    moved.stream().map(AffinityTransaction.Result::target).toList()));
            for (AffinityTransaction.Result result : moved) {
                Fight before = state.fights.getOrDefault(result.target(), Fight.NONE);
                Fight next = before.drifted(now, settings.backoff());
                state.fights.put(result.target(), next);
                if (next.round() > before.round()) {
                    listener.heard(fightRound(iface, result, next, now));
                }
                if (next.backingOff(now)) {
                    leftAlone.add(result.target());
                }
            }
        }
        List<Setting> toWrite =
                wanted.stream().filter(s -> !leftAlone.contains(s.target())).toList();
        List<AffinityTransaction.Result> rewritten =
                moved.stream().filter(r -> !leftAlone.contains(r.target())).toList();
        if (rewritten.isEmpty()) {
            return;
        }
        napi.countNapiThreads(iface, apply(state, nic, toWrite).results());
        List<WatchEvent.Moved> putBack =
                rewritten.stream().map(WatchEvent.Moved::of).toList();
        listener.heard(
                byWriter
                        ? new WatchEvent.DriftPutBack(iface, putBack)
                        : new WatchEvent.ResetPutBack(iface, putBack, events));
    }

    /**
     * Every file of the plan holds its CPUs ({@code reading}): after events, remembered; at the recheck that follows
     * them, said as kept (the kernel kept the placement across them), once for all the events since the last write.
     */
    private void heldAcross(
            InterfaceName iface,
            Placed state,
            List<AffinityTransaction.Result> reading,
            Trigger trigger,
            List<KernelEvent> events) {
        if (trigger == Trigger.EVENT) {
            state.remember(events);
        } else if (trigger == Trigger.RECHECK && !state.heldAfter.isEmpty()) {
            listener.heard(new WatchEvent.Kept(iface, KernelReader.held(reading), state.heldAfter));
            state.heldAfter.clear();
        }
    }

    /** The new round {@code fight} of the fight over {@code result}'s target, found at {@code now}. */
    private WatchEvent.FightRound fightRound(
            InterfaceName iface, AffinityTransaction.Result result, Fight fight, Instant now) {
        List<Writers.Writer> suspects = result.target().kind() == Target.Kind.IRQ
                ? Writers.suspects(paths.procRoot(), result.target().number())
                : List.of();
        Instant until = fight.leaveAloneUntil().orElseThrow();
        return new WatchEvent.FightRound(
                iface,
                result.target(),
                result.before(),
                fight.round(),
                fight.drifts().size(),
                settings.backoff().window(),
                Duration.between(now, until),
                until,
                settings.backoff().cap(),
                suspects);
    }

    /**
     * How many settings of {@code outcome} ended in each status, those the check changed first ({@link
     * Placed#changedFirst}) counted as changed: the apply that follows found them as that one left them.
     */
    static Map<AffinityTransaction.Status, Integer> counts(Placed state, NicPlacement.Outcome outcome) {
        Map<AffinityTransaction.Status, Integer> counts = new TreeMap<>();
        for (AffinityTransaction.Result result : outcome.results()) {
            AffinityTransaction.Status status = result.status() == AffinityTransaction.Status.UNCHANGED
                            && state.changedFirst.contains(result.target())
                    ? AffinityTransaction.Status.CHANGED
                    : result.status();
            counts.merge(status, 1, Integer::sum);
        }
        return counts;
    }

    /** Puts back what the NIC's state file recorded before watch changed it, and says what that did. */
    void restore(InterfaceName iface, Placed state) {
        listener.heard(stateFiles.restore(iface, state.threads()));
    }
}
