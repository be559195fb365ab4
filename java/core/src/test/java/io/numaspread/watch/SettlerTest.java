// SPDX-License-Identifier: Apache-2.0
package io.numaspread.watch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.numaspread.kernel.InterfaceName;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** How a burst of events is collected: until quiet, until the bound, and what is kept of too many. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class SettlerTest {
    private static final Duration SETTLE = Duration.ofMillis(50);

    private static KernelEvent link(String iface, int n) {
        return new KernelEvent("rtnetlink", iface + " RTM_NEWLINK " + n, Optional.of(iface));
    }

    @Test
    void aBurstThatGoesQuietIsKeptWhole() throws InterruptedException {
        Settler settler = new Settler(SETTLE, Clock.systemUTC());
        settler.offer(link("eth0", 2));
        settler.offer(link("eth1", 3));

        Settler.Burst burst = settler.settle(link("eth0", 1), () -> false);

        assertEquals(List.of(link("eth0", 1), link("eth0", 2), link("eth1", 3)), burst.events());
        assertEquals(3, burst.count());
        assertEquals(0, burst.notKept());
        assertTrue(burst.quiet(), "no event came for a settle interval");
        assertFalse(burst.flood());
        assertTrue(burst.collected().compareTo(SETTLE) >= 0, "waited a settle interval: " + burst.collected());
        assertTrue(burst.collected().compareTo(settler.maxSettle()) < 0, "before the bound: " + burst.collected());
        assertEquals(0, settler.waiting());
    }

    @Test
    void aStreamIsCutShortAtTheBound() throws InterruptedException {
        Settler settler = new Settler(SETTLE, Clock.systemUTC());
        AtomicBoolean streaming = new AtomicBoolean(true);
        Thread stream = new Thread(() -> {
            for (int n = 2; streaming.get(); n++) {
                settler.offer(link("eth0", n));
                try {
                    Thread.sleep(SETTLE.toMillis() / 5);
                } catch (InterruptedException e) {
                    return;
                }
            }
        });
        stream.start();
        try {
            Settler.Burst burst = settler.settle(link("eth0", 1), () -> false);

            assertFalse(burst.quiet(), "events kept coming");
            assertTrue(burst.flood());
            assertEquals(0, burst.notKept());
            assertEquals(burst.events().size(), burst.count());
            assertTrue(burst.count() > Settler.MAX_SETTLE_INTERVALS, "a stream: " + burst.count());
            assertTrue(
                    burst.collected().compareTo(settler.maxSettle().minusMillis(1)) > 0,
                    "collected up to the bound (to the millisecond it waits by): " + burst.collected());
            assertTrue(
                    burst.collected().compareTo(settler.maxSettle().plus(SETTLE.multipliedBy(4))) < 0,
                    "and no longer: " + burst.collected());
        } finally {
            streaming.set(false);
            stream.join();
        }
    }

    @Test
    void tooManyEventsAreCountedNotKept() throws InterruptedException {
        Settler settler = new Settler(SETTLE, Clock.systemUTC());
        int posted = Settler.EVENT_CAPACITY + 5;
        for (int n = 1; n <= posted; n++) {
            settler.offer(link("eth0", n));
        }
        assertEquals(Settler.EVENT_CAPACITY, settler.waiting(), "the queue holds no more");

        Settler.Burst burst = settler.settle(settler.waitingNow(), () -> false);

        assertEquals(posted, burst.count());
        assertEquals(5, burst.notKept());
        assertTrue(burst.quiet(), "the queue emptied, then nothing came");
        assertTrue(burst.flood(), "events not kept make a flood");
        assertEquals(Settler.EVENT_CAPACITY + 1, burst.events().size());
        KernelEvent note = burst.events().get(0);
        assertEquals(
                new KernelEvent(
                        "watch",
                        "5 events not kept (more than " + Settler.EVENT_CAPACITY + " at once)",
                        Optional.empty()),
                note);
        assertTrue(note.concerns("eth1"), "the events not kept may have concerned any NIC");
        assertEquals(link("eth0", 1), burst.events().get(1));
        assertEquals(
                link("eth0", Settler.EVENT_CAPACITY),
                burst.events().get(burst.events().size() - 1));

        settler.offer(link("eth0", posted + 1));
        assertEquals(1, settler.settle(settler.waitingNow(), () -> false).count(), "counted once");
    }

    @Test
    void stoppingEndsTheBurstAtOnce() throws InterruptedException {
        Settler settler = new Settler(Duration.ofSeconds(5), Clock.systemUTC());
        settler.offer(link("eth0", 2));
        Instant start = Instant.now();

        Settler.Burst burst = settler.settle(link("eth0", 1), () -> true);

        assertEquals(List.of(link("eth0", 1)), burst.events());
        assertFalse(burst.quiet());
        assertTrue(Duration.between(start, Instant.now()).compareTo(Duration.ofSeconds(1)) < 0);
        assertEquals(1, settler.waiting(), "left for the next burst");
    }

    @Test
    void aChangeIsPutDownToItsEventsOrToThoseWaiting() throws InterruptedException {
        Settler settler = new Settler(SETTLE, Clock.systemUTC());
        InterfaceName eth0 = new InterfaceName("eth0");
        settler.offer(link("eth0", 1));
        settler.offer(link("eth1", 2));
        settler.offer(new KernelEvent("uevent", "cpu3 offline", Optional.empty()));
        settler.wake(new KernelEvent("watch", "stop", Optional.empty()));

        assertEquals(List.of(link("eth0", 9)), settler.after(eth0, List.of(link("eth0", 9))));
        assertEquals(
                List.of(link("eth0", 1), new KernelEvent("uevent", "cpu3 offline", Optional.empty())),
                settler.after(eth0, List.of()));
        assertNull(new Settler(SETTLE, Clock.systemUTC()).firstUntil(Instant.now()), "nothing came");
    }
}
