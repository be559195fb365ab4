// SPDX-License-Identifier: Apache-2.0
package io.numaspread.watch;

import io.numaspread.kernel.InterfaceName;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;

/**
 * Holds the kernel events that wait for a check, in a bounded queue, and collects a burst of them until they stop
 * for a settle interval or a bound is reached: a channel change sends several events, and the check that follows
 * them should see the change done, while a steady stream must not hold the check back for as long as it lasts.
 */
final class Settler {
    /**
     * How many events wait at most, and how many a burst keeps: a flood beyond them is not kept event by event
     * but counted, and every NIC is read afresh, which is what the events would have asked for.
     */
    static final int EVENT_CAPACITY = 1024;
    /** How many settle intervals a burst is collected for at most, while its events keep coming. */
    static final int MAX_SETTLE_INTERVALS = 8;

    /**
     * The events of one burst, those kept (at most {@link #EVENT_CAPACITY}, and then one that says how many were
     * not, which concerns every NIC), {@code count} of them in all over {@code collected}; {@code quiet} when
     * they stopped for a settle interval before the bound.
     */
    record Burst(List<KernelEvent> events, long count, long notKept, Duration collected, boolean quiet) {
        /** Cut short while events kept coming, or too many to keep: said, and counted. */
        boolean flood() {
            return !quiet || notKept > 0;
        }
    }

    private final Duration settle;
    private final Clock clock;
    private final BlockingQueue<KernelEvent> events = new ArrayBlockingQueue<>(EVENT_CAPACITY);
    /** Events that found the queue full, since the last burst took them into account. */
    private final AtomicLong notQueued = new AtomicLong();

    Settler(Duration settle, Clock clock) {
        this.settle = settle;
        this.clock = clock;
    }

    /**
     * Sleeps one settle interval, for a check that waits for a change to show; an interrupt is kept for the watch
     * loop, which stops on it.
     */
    void pause() {
        try {
            Thread.sleep(settle.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** From any thread: {@code event} waits for the next burst, or when the queue is full is only counted. */
    void offer(KernelEvent event) {
        if (!events.offer(event)) {
            notQueued.incrementAndGet();
        }
    }

    /** Wakes a wait from any thread, unless the queue is full: a full queue wakes it as well. */
    void wake(KernelEvent event) {
        events.offer(event);
    }

    /** How many events wait now: never more than {@link #EVENT_CAPACITY}, however fast they come. */
    int waiting() {
        return events.size();
    }

    /** The first event to come until {@code due}; null when none came. */
    KernelEvent firstUntil(Instant due) throws InterruptedException {
        return events.poll(Math.max(0, Duration.between(clock.instant(), due).toMillis()), TimeUnit.MILLISECONDS);
    }

    /** An event that waits now, without waiting for one; null when none does. */
    KernelEvent waitingNow() {
        return events.poll();
    }

    /** At most this long a burst is collected ({@link #MAX_SETTLE_INTERVALS} settle intervals). */
    Duration maxSettle() {
        return settle.multipliedBy(MAX_SETTLE_INTERVALS);
    }

    /**
     * Collects the events that follow {@code first} until none came for a settle interval, or for at most
     * {@link #maxSettle}, or until {@code stopping}: a steady stream would otherwise hold the check back for as
     * long as it lasts.
     */
    Burst settle(KernelEvent first, BooleanSupplier stopping) throws InterruptedException {
        Instant start = clock.instant();
        Instant latest = start.plus(maxSettle());
        List<KernelEvent> kept = new ArrayList<>(List.of(first));
        long count = 1;
        long notKept = 0;
        boolean quiet = false;
        while (!stopping.getAsBoolean()) {
            long left = Duration.between(clock.instant(), latest).toMillis();
            long wait = Math.min(settle.toMillis(), left);
            if (wait <= 0) {
                break;
            }
            KernelEvent next = events.poll(wait, TimeUnit.MILLISECONDS);
            if (next == null) {
                quiet = wait == settle.toMillis();
                break;
            }
            count++;
            if (kept.size() < EVENT_CAPACITY) {
                kept.add(next);
            } else {
                notKept++;
            }
        }
        long dropped = notQueued.getAndSet(0);
        notKept += dropped;
        count += dropped;
        if (notKept > 0) {
            kept.add(
                    0,
                    new KernelEvent(
                            "watch",
                            notKept + " events not kept (more than " + EVENT_CAPACITY + " at once)",
                            Optional.empty()));
        }
        return new Burst(kept, count, notKept, Duration.between(start, clock.instant()), quiet);
    }

    /**
     * The events a change is put down to: those that triggered the check, or when a timed check found the change
     * first, those that came meanwhile and concern the NIC (left in the queue: the check they trigger finds this
     * change done, and anything newer); empty when none did.
     */
    List<KernelEvent> after(InterfaceName iface, List<KernelEvent> triggering) {
        return triggering.isEmpty() ? pending(iface) : triggering;
    }

    /** The kernel events waiting in the queue that concern {@code iface}. */
    List<KernelEvent> pending(InterfaceName iface) {
        return new ArrayList<>(this.events)
                .stream()
                        .filter(event ->
                                event.concerns(iface.value()) && !event.source().equals("watch"))
                        .toList();
    }
}
