// SPDX-License-Identifier: Apache-2.0
package io.numaspread.watch;

import io.numaspread.irq.NapiThreads;
import io.numaspread.irq.Setting;
import io.numaspread.irq.Target;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** What the watcher last did for one NIC: what its checks remember from one to the next. */
final class Placed {
    Optional<NicSnapshot> snapshot = Optional.empty();
    boolean present = true;
    /** The last failure reported, so that one that lasts is said once, not at every check. */
    Optional<String> failure = Optional.empty();

    Map<Target, Fight> fights = new HashMap<>();
    /** The NIC's NAPI threads, found by name, with the PIDs netlink gave at the last check. */
    Optional<NapiThreads> threads = Optional.empty();
    /** Why the NAPI threads could not be planned at the last check, said once. */
    Optional<String> napiProblem = Optional.empty();
    /** This check's busy-poll threads, each on its poll CPU; none without poll cores. */
    List<Setting> busyPoll = List.of();
    /** Whether this check has said what it did to the busy-poll NAPIs. */
    boolean busyPollSaid;
    /**
     * The settings this check already changed while setting threaded NAPI or busy polling again (that apply
     * writes the whole plan): nothing of the check is then said as kept by the kernel.
     */
    List<Target> changedFirst = List.of();
    /**
     * Events after which a check found the plan held, with nothing to write: said as kept at the recheck after
     * them, if it still holds then (a driver finishes some changes after their events).
     */
    List<KernelEvent> heldAfter = new ArrayList<>();

    /**
     * Adds {@code events} to {@link #heldAfter}, each once and at most {@link Settler#EVENT_CAPACITY} of them:
     * events that keep coming (a flood) never reach the recheck that would say and clear them.
     */
    void remember(List<KernelEvent> events) {
        for (KernelEvent event : events) {
            if (heldAfter.size() < Settler.EVENT_CAPACITY && !heldAfter.contains(event)) {
                heldAfter.add(event);
            }
        }
    }

    /** The NIC's NAPI threads as last found; none before they are. */
    NapiThreads threads() {
        return threads.orElse(NapiThreads.NONE);
    }
}
