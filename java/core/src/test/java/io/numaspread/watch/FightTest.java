// SPDX-License-Identifier: Apache-2.0
package io.numaspread.watch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The backoff rules, as pure functions of time: a 1 s drift interval, so window 6 s, first 3 s, cap 30 s. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class FightTest {
    private static final Backoff BACKOFF = Backoff.forInterval(Duration.ofSeconds(1));
    private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

    private static Instant at(double seconds) {
        return T0.plusMillis((long) (seconds * 1000));
    }

    @Test
    void delaysDoubleUpToTheCap() {
        Backoff standard = Backoff.forInterval(Duration.ofSeconds(10));
        List<Long> delays = new ArrayList<>();
        for (int round = 1; round <= 7; round++) {
            delays.add(standard.delay(round).toSeconds());
        }
        assertEquals(List.of(30L, 60L, 120L, 240L, 300L, 300L, 300L), delays);
        assertEquals(Duration.ofSeconds(60), standard.window());
        assertThrows(IllegalArgumentException.class, () -> standard.delay(0));
        assertThrows(
                IllegalArgumentException.class,
                () -> new Backoff(Duration.ofSeconds(1), 3, Duration.ofSeconds(5), Duration.ofSeconds(4)));
    }

    @Test
    void driftsFartherApartThanTheWindowNeverFight() {
        Fight fight = Fight.NONE;
        for (int i = 0; i < 20; i++) {
            fight = fight.drifted(at(i * 4.0), BACKOFF);
            assertFalse(fight.fighting(), "drift " + i);
            assertFalse(fight.backingOff(at(i * 4.0)));
        }
        assertEquals(2, fight.drifts().size(), "only the drifts within the window are kept");
    }

    @Test
    void theThirdDriftInTheWindowStartsAFightAndEachRoundDoublesUpToTheCap() {
        Fight fight = Fight.NONE.drifted(at(0), BACKOFF).drifted(at(1), BACKOFF);
        assertFalse(fight.fighting());
        fight = fight.drifted(at(2), BACKOFF);
        assertEquals(1, fight.round());
        assertEquals(Optional.of(at(5)), fight.leaveAloneUntil());
        assertTrue(fight.backingOff(at(4.9)));
        assertSame(fight, fight.drifted(at(3), BACKOFF), "the writer's value still standing is no new drift");

        // A writer that rewrites every second: the plan is retried once per backoff, and backoffs double.
        List<Double> retries = new ArrayList<>();
        for (double t = 3; t < 200; t += 1) {
            Fight next = fight.drifted(at(t), BACKOFF);
            if (next.retriedAt().equals(Optional.of(at(t)))) {
                retries.add(t);
            }
            fight = next;
        }
        assertEquals(List.of(5.0, 12.0, 25.0, 50.0, 81.0, 112.0, 143.0, 174.0), retries);
        assertEquals(Duration.ofSeconds(30), BACKOFF.delay(fight.round()));
    }

    @Test
    void aFightEndsWhenThePlanHoldsForAWindowAfterTheRetry() {
        Fight fight = Fight.NONE.drifted(at(0), BACKOFF).drifted(at(1), BACKOFF).drifted(at(2), BACKOFF);
        assertSame(fight, fight.held(at(4), BACKOFF), "still backing off");
        Fight retried = fight.drifted(at(5), BACKOFF);
        assertTrue(retried.fighting());
        assertFalse(retried.backingOff(at(5)));
        assertSame(retried, retried.held(at(10.9), BACKOFF));
        assertSame(Fight.NONE, retried.held(at(11), BACKOFF));
        Fight again = retried.drifted(at(7), BACKOFF);
        assertEquals(2, again.round());
        assertEquals(Optional.of(at(13)), again.leaveAloneUntil());
    }
}
