// SPDX-License-Identifier: Apache-2.0
package io.numaspread.watch;

import java.time.Duration;

/**
 * When a drift is a fight, and how long to leave a fought-over IRQ alone. Pure.
 *
 * <p>A drift is the kernel file of a placed IRQ found changed although nothing about the NIC or the CPUs
 * changed: someone wrote it. {@link #threshold} drifts of one IRQ within {@link #window} make a fight. Each
 * round of a fight leaves the IRQ alone for twice as long as the round before, from {@link #first} up to
 * {@link #cap}, then puts the plan back once; so a writer that keeps at it costs one write per cap, not one
 * per drift check.
 */
public record Backoff(Duration window, int threshold, Duration first, Duration cap) {
    public Backoff {
        if (threshold < 1 || first.isNegative() || first.isZero() || cap.compareTo(first) < 0) {
            throw new IllegalArgumentException(
                    "backoff needs threshold >= 1 and 0 < first <= cap, not " + threshold + ", " + first + ", " + cap);
        }
    }

    /**
     * For a drift check every {@code interval}: a fight is 3 drifts within 6 intervals; it backs off 3
     * intervals, then 6, 12, ... up to 30 intervals (5 minutes at the default 10 s).
     */
    public static Backoff forInterval(Duration interval) {
        return new Backoff(interval.multipliedBy(6), 3, interval.multipliedBy(3), interval.multipliedBy(30));
    }

    /** How long round {@code round} (1, 2, ...) of a fight leaves the IRQ alone: first × 2^(round-1), capped. */
    public Duration delay(int round) {
        if (round < 1) {
            throw new IllegalArgumentException("fight rounds start at 1, not " + round);
        }
        Duration delay = first;
        for (int i = 1; i < round && delay.compareTo(cap) < 0; i++) {
            delay = delay.multipliedBy(2);
        }
        return delay.compareTo(cap) > 0 ? cap : delay;
    }
}
