// SPDX-License-Identifier: Apache-2.0
package io.numaspread.watch;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.numaspread.irq.PlacementOptions;
import io.numaspread.kernel.InterfaceName;
import io.numaspread.testing.ForwardingFiles;
import io.numaspread.testing.StandInNicTest;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A NIC that goes away while a check writes its plan: unbinding virtio_net removes the interface and then frees
 * its IRQs, so a check that still found the interface can find its IRQ files gone a moment later (the mana
 * guest's watch check saw it once in CI). That is reported as the NIC gone, once, not as a failed check.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class WatcherTeardownTest extends StandInNicTest {
    private static final InterfaceName ETH0 = new InterfaceName("eth0");
    private static final KernelEvent QUEUE_REMOVED =
            new KernelEvent("uevent", "eth0 queue rx-3 remove", Optional.of("eth0"));

    private final List<WatchEvent> events = Collections.synchronizedList(new ArrayList<>());

    /** Set to unbind the NIC at the next read of an IRQ's affinity: its interface first, then its IRQs. */
    private volatile boolean unbindAtNextRead;

    @Test
    void anIrqThatVanishesWithItsInterfaceMidCheckIsTheNicGoneNotAFailure() throws Exception {
        watchOneEvent(true);
        List<WatchEvent.Gone> gone = reported(WatchEvent.Gone.class);
        assertEquals(List.of(QUEUE_REMOVED), gone.get(0).after(), events.toString());
        assertEquals(List.of(), reported(WatchEvent.Failed.class), events.toString());
        // Later checks find it still gone and do not report it going again.
        assertEquals(1, gone.stream().filter(WatchEvent.Gone::justWent).count(), events.toString());
    }

    /** The control: without the unbind, the same event is a quiet check that keeps the plan. */
    @Test
    void withoutTheUnbindTheSameEventIsAQuietCheck() throws Exception {
        watchOneEvent(false);
        assertEquals(List.of(), reported(WatchEvent.Failed.class), events.toString());
        assertEquals(List.of(), reported(WatchEvent.Gone.class), events.toString());
        assertEquals("0-1", affinity(50));
    }

    /** Applies the plan to the i40e NIC, posts a queue's removal (unbinding the NIC with it) and watches 0.4 s. */
    private void watchOneEvent(boolean unbind) throws Exception {
        Watcher watcher = new Watcher(
                List.of(ETH0),
                paths,
                unbindingFiles(),
                WatchHarness.mana(sys),
                new Watcher.Settings(
                        Duration.ofMillis(100),
                        Duration.ofMillis(10),
                        Backoff.forInterval(Duration.ofMillis(100)),
                        new PlacementOptions(false, false, false),
                        run.resolve("state")),
                events::add,
                Clock.systemUTC());
        watcher.start();
        Thread running = new Thread(() -> watcher.run(false));
        running.start();
        unbindAtNextRead = unbind;
        watcher.post(QUEUE_REMOVED);
        if (unbind) {
            WatchHarness.awaitEvent(events, e -> e instanceof WatchEvent.Gone);
        }
        Thread.sleep(400);
        watcher.stop(Duration.ofSeconds(20));
        running.join(TimeUnit.SECONDS.toMillis(20));
    }

    /** The events of kind {@code kind} reported so far. */
    private <T extends WatchEvent> List<T> reported(Class<T> kind) {
        synchronized (events) {
            return events.stream().filter(kind::isInstance).map(kind::cast).toList();
        }
    }

    private ForwardingFiles unbindingFiles() {
        return new ForwardingFiles() {
            @Override
            public String read(Path file) throws IOException {
                if (unbindAtNextRead && file.getFileName().toString().equals("smp_affinity_list")) {
                    unbindAtNextRead = false;
                    Files.delete(paths.netDevice(ETH0));
                    for (int irq = 49; irq <= 53; irq++) {
                        deleteTree(proc.resolve("irq/" + irq));
                    }
                }
                return super.read(file);
            }
        };
    }

    private static void deleteTree(Path root) throws IOException {
        try (Stream<Path> walk = Files.walk(root)) {
            for (Path path : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(path);
            }
        }
    }
}
