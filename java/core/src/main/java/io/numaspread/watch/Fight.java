// SPDX-License-Identifier: Apache-2.0
package io.numaspread.watch;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * One IRQ's record of drifts and, once they come too often, the fight over it. Immutable: each observation
 * returns the next record, so the rules are pure functions of the times ({@link Backoff}).
 *
 * <p>A fight goes in rounds: the IRQ is left alone for the round's delay; when that is over, the plan is put
 * back once (a retry); if the other writer moves it again, the next round leaves it alone twice as long.
 *
 * @param drifts the times of the drifts within the backoff's window, oldest first
 * @param round 0 while there is no fight; then the fight's round
 * @param leaveAloneUntil while backing off, when the plan may be put back again
 * @param retriedAt when the plan was last put back after a backoff
 */
public record Fight(List<Instant> drifts, int round, Optional<Instant> leaveAloneUntil, Optional<Instant> retriedAt) {
    public static final Fight NONE = new Fight(List.of(), 0, Optional.empty(), Optional.empty());

    public Fight {
        drifts = List.copyOf(drifts);
    }

    public boolean fighting() {
        return round > 0;
    }

    /** Whether the IRQ is to be left alone at {@code now}. */
    public boolean backingOff(Instant now) {
        return leaveAloneUntil.isPresent() && now.isBefore(leaveAloneUntil.get());
    }

    /**
     * The record after the IRQ was found moved at {@code now}; the caller puts the plan back unless
     * {@link #backingOff} is then true.
     *
     * <ul>
     *   <li>While backing off, the other writer's value is still standing: nothing changes.</li>
     *   <li>When the backoff is over, the value found is the one left alone: the plan is retried, no new drift.</li>
     *   <li>Otherwise it is a new drift; reaching the threshold within the window starts the fight, and every
     *       drift after a retry is the next round, with twice the delay up to the cap.</li>
     * </ul>
     */
    public Fight drifted(Instant now, Backoff backoff) {
        if (backingOff(now)) {
            return this;
        }
        if (leaveAloneUntil.isPresent()) {
            return new Fight(drifts, round, Optional.empty(), Optional.of(now));
        }
        List<Instant> recent = new ArrayList<>();
        for (Instant drift : drifts) {
            if (Duration.between(drift, now).compareTo(backoff.window()) < 0) {
                recent.add(drift);
            }
        }
        recent.add(now);
        if (!fighting() && recent.size() < backoff.threshold()) {
            return new Fight(recent, 0, Optional.empty(), retriedAt);
        }
        int next = round + 1;
        return new Fight(recent, next, Optional.of(now.plus(backoff.delay(next))), retriedAt);
    }

    /**
     * The record after a check at {@code now} found the IRQ as planned: once the plan has held for a whole
     * window since the last drift or retry, there is nothing left to remember ({@link #NONE}).
     */
    public Fight held(Instant now, Backoff backoff) {
        if (backingOff(now) || leaveAloneUntil.isPresent()) {
            return this;
        }
        Instant since = drifts.isEmpty() ? now : drifts.get(drifts.size() - 1);
        if (retriedAt.isPresent() && retriedAt.get().isAfter(since)) {
            since = retriedAt.get();
        }
        return Duration.between(since, now).compareTo(backoff.window()) >= 0 ? NONE : this;
    }
}
