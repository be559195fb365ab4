// SPDX-License-Identifier: Apache-2.0
package io.numaspread.watch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.numaspread.irq.PlacementOptions;
import io.numaspread.kernel.InterfaceName;
import io.numaspread.kernel.KernelFiles;
import io.numaspread.nativeaccess.Backends;
import io.numaspread.testing.StandInNicTest;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A steady stream of events must not hold the checks back, nor grow without bound: events that concern the NIC
 * are collected for at most 8 settle intervals, then the check plans with what came; more than the queue holds
 * are counted, not kept, and every NIC is read afresh; another interface's events are not waited for at all (a
 * real flood: uevents of lo, from the kernel, through the real readers). Before, the settle window lasted as
 * long as the stream, and the queue held every event.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class WatcherFloodTest extends StandInNicTest {
    private static final InterfaceName ETH0 = new InterfaceName("eth0");
    private static final KernelEvent ETH0_EVENT =
            new KernelEvent("uevent", "eth0 queue rx-0 change", Optional.of("eth0"));
    private static final KernelEvent ETH1_EVENT =
            new KernelEvent("uevent", "eth1 queue rx-0 change", Optional.of("eth1"));

    private final List<WatchEvent> events = Collections.synchronizedList(new ArrayList<>());
    private final AtomicBoolean flooding = new AtomicBoolean(true);
    /** Gaps between two posts of a flood at least this long, counted in {@link #pauses}: none by default. */
    private volatile long pauseNanos = Long.MAX_VALUE;

    private final AtomicInteger pauses = new AtomicInteger();
    private final List<Thread> floods = new ArrayList<>();
    /** The first event heard that this wants holds the watcher's thread (a slow check) until {@link #released}. */
    private volatile Predicate<WatchEvent> holdAt = event -> false;

    private final CountDownLatch held = new CountDownLatch(1);
    private final CountDownLatch released = new CountDownLatch(1);
    private Watcher watcher;
    private Thread running;

    @AfterEach
    void stop() throws InterruptedException {
        flooding.set(false);
        released.countDown();
        for (Thread flood : floods) {
            flood.join(TimeUnit.SECONDS.toMillis(10));
        }
        if (watcher != null) {
            watcher.stop(Duration.ofSeconds(20));
            running.join(TimeUnit.SECONDS.toMillis(20));
        }
    }

    @Test
    void aFloodOfTheNicsEventsIsCheckedWithinTheBoundAndSaidOnce() throws Exception {
        start(Duration.ofMillis(100)); // at most 0.8 s of settling
        pauseNanos = TimeUnit.MILLISECONDS.toNanos(50);
        write(51, "4-7");
        long floodStart = System.nanoTime();
        flood(Duration.ofMillis(2), () -> watcher.post(ETH0_EVENT), 6);
        WatchEvent.ResetPutBack reset =
                (WatchEvent.ResetPutBack) WatchHarness.awaitEvent(events, WatchEvent.ResetPutBack.class::isInstance);
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - floodStart);
        assertTrue(millis < 3000, "put back " + millis + " ms into a 6 s flood: " + reset);
        assertEquals("2-3", affinity(51));
        WatchEvent.Flood flood = (WatchEvent.Flood) WatchHarness.awaitEvent(events, WatchEvent.Flood.class::isInstance);
        assertTrue(!flood.quiet() && flood.begins() && flood.notKept() == 0, flood.toString());
        assertTrue(flood.collected().compareTo(Duration.ofMillis(750)) >= 0, "collected up to the bound: " + flood);
        assertEquals(Duration.ofMillis(800), flood.maxSettle());
        Thread.sleep(2000); // two more bounds of the flood: checked again, not said again
        List<WatchEvent.Flood> said = WatchHarness.reported(events, WatchEvent.Flood.class);
        assertTrue(said.size() >= 2, said.toString());
        // A loaded host can stall the posting thread for longer than the watcher waits for the next event: the
        // stream then really paused, and a new flood begins after it. Said once for each stretch without a pause.
        long begins = said.stream().filter(WatchEvent.Flood::begins).count();
        assertTrue(begins >= 1 && begins <= 1 + pauses.get(), begins + " begin with " + pauses + " pauses: " + said);
    }

    /**
     * A source of its own posts, every half settle interval, 128 events of eth0 and 128 of eth1: the stream never
     * pauses for a settle interval, yet the first check begins within the bound, 8 settle intervals. While that
     * check is held (as a slow sysfs would hold it), twice as many events as the queue holds come, and fill it to
     * its cap and no further. Without the bound no check began while the stream lasted (12 s); without the cap the
     * queue held every event.
     */
    @Test
    void aSteadyStreamIsCheckedWithinTheBoundAndQueuedUpToTheCap() throws Exception {
        Duration settle = Duration.ofMillis(100);
        startOnly(settle);
        Instant streamStart = Instant.now();
        holdAt = event ->
                event instanceof WatchEvent.Checked checked && !checked.at().isBefore(streamStart);
        running = new Thread(() -> watcher.run(false));
        running.start();
        AtomicInteger postedWhileHeld = new AtomicInteger();
        AtomicInteger mostWaiting = new AtomicInteger();
        flood(
                settle.dividedBy(2),
                () -> {
                    for (int i = 0; i < 128; i++) {
                        watcher.post(ETH1_EVENT);
                        watcher.post(ETH0_EVENT);
                        mostWaiting.accumulateAndGet(watcher.waiting(), Math::max);
                        if (held.getCount() == 0 && postedWhileHeld.incrementAndGet() == 2 * Settler.EVENT_CAPACITY) {
                            released.countDown();
                        }
                    }
                },
                12);

        assertTrue(held.await(20, TimeUnit.SECONDS), "no check in 20 s of the stream: " + events);
        WatchEvent.Checked first = (WatchEvent.Checked) WatchHarness.awaitEvent(events, holdAt);
        Duration began = Duration.between(streamStart, first.at());
        Duration bound = settle.multipliedBy(Settler.MAX_SETTLE_INTERVALS);
        assertTrue(
                began.compareTo(bound.plusMillis(1200)) < 0,
                "the first check began " + began.toMillis() + " ms into the stream, the bound is " + bound.toMillis());

        assertTrue(
                released.await(20, TimeUnit.SECONDS),
                "events posted while the check was held: " + postedWhileHeld.get());
        assertEquals(Settler.EVENT_CAPACITY, mostWaiting.get(), "the most events waiting at once");
    }

    @Test
    void eventsBeyondTheQueueAreCountedAndEveryNicReadAfresh() throws Exception {
        startOnly(Duration.ofMillis(50));
        for (int i = 0; i < 5000; i++) {
            assertTrue(watcher.post(ETH0_EVENT));
            watcher.post(new KernelEvent("uevent", "eth1 queue rx-" + i + " change", Optional.of("eth1")));
        }
        write(51, "4-7");
        running = new Thread(() -> watcher.run(false));
        running.start();
        WatchEvent.ResetPutBack reset =
                (WatchEvent.ResetPutBack) WatchHarness.awaitEvent(events, WatchEvent.ResetPutBack.class::isInstance);
        assertTrue(
                reset.after().size() <= Settler.EVENT_CAPACITY + 1,
                "kept: " + reset.after().size());
        assertEquals(
                new KernelEvent("watch", "3976 events not kept (more than 1024 at once)", Optional.empty()),
                reset.after().get(0));
        WatchEvent.Flood flood = (WatchEvent.Flood) WatchHarness.awaitEvent(events, WatchEvent.Flood.class::isInstance);
        assertEquals(5000, flood.events(), "eth1's events are not eth0's: " + flood);
        assertEquals(3976, flood.notKept(), flood.toString());
        assertTrue(flood.quiet(), flood.toString());
    }

    @Test
    @SuppressWarnings("try") // the readers run while it is open
    void anotherInterfacesRealEventsDoNotHoldTheCheckBack() throws Exception {
        start(Duration.ofMillis(250)); // at most 2 s of settling
        BlockingQueue<String> said = new LinkedBlockingQueue<>();
        Path loUevent = Path.of("/sys/class/net/lo/uevent");
        try (NetlinkEvents netlink = NetlinkEvents.start(
                NetlinkEvents.open(Backends.live().backend()).orElseThrow(),
                watcher::post,
                new NetlinkEvents.Reports() {
                    @Override
                    public void skipped(String line) {
                        said.add(line);
                    }

                    @Override
                    public void died(String line) {
                        said.add(line);
                    }
                })) {
            // A real flood of lo's uevents, one every 2 ms, which the readers hear.
            flood(Duration.ofMillis(2), () -> writeQuietly(loUevent, "change"), 8);
            Thread.sleep(1000);
            Instant posted = Instant.now();
            long start = System.nanoTime();
            watcher.post(WatchHarness.LINK_DOWN);
            WatchHarness.awaitEvent(
                    events,
                    e -> e instanceof WatchEvent.Checked checked
                            && !checked.at().isBefore(posted));
            long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertTrue(millis < 1500, "checked " + millis + " ms after eth0's event: " + events);
            assertEquals(List.of(), WatchHarness.reported(events, WatchEvent.Flood.class));
            flooding.set(false);
        }
        assertEquals(List.of(), List.copyOf(said));
    }

    /** The watcher started and running. */
    private void start(Duration settle) {
        startOnly(settle);
        running = new Thread(() -> watcher.run(false));
        running.start();
    }

    /** The watcher started (its first apply done), not yet running. */
    private void startOnly(Duration settle) {
        watcher = new Watcher(
                List.of(ETH0),
                paths,
                KernelFiles.DIRECT,
                WatchHarness.mana(sys),
                new Watcher.Settings(
                        Duration.ofSeconds(60),
                        settle,
                        Backoff.forInterval(Duration.ofSeconds(60)),
                        new PlacementOptions(false, false, false),
                        run.resolve("state")),
                this::heard,
                Clock.systemUTC());
        watcher.start();
    }

    /** The watcher's listener: keeps every event, and holds the watcher's thread at {@link #holdAt}'s. */
    private void heard(WatchEvent event) {
        events.add(event);
        if (held.getCount() > 0 && holdAt.test(event)) {
            held.countDown();
            try {
                released.await(20, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Runs {@code each} every {@code period} for {@code seconds} or until the test ends it, on a thread of its own. */
    private void flood(Duration period, Runnable each, int seconds) {
        Thread flood = new Thread(() -> {
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
            long last = System.nanoTime();
            while (flooding.get() && System.nanoTime() < end) {
                each.run();
                long now = System.nanoTime();
                if (now - last >= pauseNanos) {
                    pauses.incrementAndGet();
                }
                last = now;
                try {
                    Thread.sleep(period.toMillis());
                } catch (InterruptedException e) {
                    return;
                }
            }
        });
        flood.start();
        floods.add(flood);
    }

    private static void writeQuietly(Path file, String value) {
        try {
            Files.writeString(file, value);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private void write(int irq, String cpus) {
        writeQuietly(paths.smpAffinityList(irq), cpus + "\n");
    }
}
