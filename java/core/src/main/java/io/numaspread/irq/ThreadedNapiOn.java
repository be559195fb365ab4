// SPDX-License-Identifier: Apache-2.0
package io.numaspread.irq;

import io.numaspread.kernel.InterfaceName;
import io.numaspread.kernel.ThreadScheduling;
import io.numaspread.nic.PerNapiThreaded;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Supplier;

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
record ThreadedNapiOn(
        Path threadedFile,
        Optional<Map<Integer, Integer>> perNapi,
        Supplier<List<Setting>> threadSettings,
        Set<Integer> busyPoll,
        Optional<ThreadScheduling> busyPollScheduling) {
    public ThreadedNapiOn {
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
    public ThreadedNapiOn(
            Path threadedFile,
            Optional<Map<Integer, Integer>> perNapi,
            Supplier<List<Setting>> threadSettings,
            Set<Integer> busyPoll) {
        this(threadedFile, perNapi, threadSettings, busyPoll, Optional.empty());
    }

    /** Threaded NAPI for {@code perNapi}'s NAPIs, none of them busy-polling. */
    public ThreadedNapiOn(
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

    /** The {@code threaded} NAPI {@code napiId} is set to: 2 to busy-poll, else 1. */
    int wanted(int napiId) {
        return busyPoll.contains(napiId) ? PerNapiThreaded.BUSY_POLL : 1;
    }

    /**
     * The changes of an apply with NAPI threads, in order: the threaded switch when a planned NAPI is off (the
     * device's, or each NAPI's own), the affinity of {@code settings} and of the NAPI threads (planned once the
     * threads exist), and the busy-poll threads' scheduling class when one is asked. A dry run with threaded NAPI
     * off has the settings' affinity alone: there are no threads yet.
     */
    List<Change> changes(ChangeContext kernel, InterfaceName iface, List<Setting> settings, boolean dryRun) {
        Change switching = perNapi.isPresent()
                ? new NapiThreadedSwitch(kernel, iface, this)
                : new DeviceThreadedSwitch(kernel, threadedFile);
        switching.read();
        List<Change> changes = new ArrayList<>();
        if (switching.changesAnything()) {
            if (dryRun) {
                return List.of(new AffinityChange(kernel, settings));
            }
            changes.add(switching);
            changes.add(new AffinityChange(kernel, settings, threadSettings));
        } else {
            List<Setting> all = new ArrayList<>(settings);
            all.addAll(threadSettings.get());
            changes.add(new AffinityChange(kernel, all));
        }
        if (!dryRun) {
            busyPollScheduling.ifPresent(
                    wanted -> changes.add(new BusyPollScheduling(kernel, iface, new TreeSet<>(busyPoll), wanted)));
        }
        return changes;
    }
}
