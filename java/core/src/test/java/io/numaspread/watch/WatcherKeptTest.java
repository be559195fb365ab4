// SPDX-License-Identifier: Apache-2.0
package io.numaspread.watch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.numaspread.irq.PlacementOptions;
import io.numaspread.irq.Target;
import io.numaspread.kernel.InterfaceName;
import io.numaspread.kernel.KernelFiles;
import io.numaspread.testing.StandInNicTest;
import java.io.IOException;
import java.nio.file.Files;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * igb's link going down and up, as Linux 7.3 does it (docs/verification.md): at down the driver frees its
 * vectors' handlers, so they leave /proc/interrupts and the NIC cannot be read (gone); at up it requests the same
 * vectors again, and the kernel has kept their affinity. Watch must say the placement was kept, and write nothing;
 * a NIC that comes back with its vectors reset (an unbind and bind) is planned again, as before.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class WatcherKeptTest extends StandInNicTest {
    private static final InterfaceName ETH0 = new InterfaceName("eth0");

    private final List<WatchEvent> events = Collections.synchronizedList(new ArrayList<>());
    private Watcher watcher;
    private Thread running;

    @Test
    void aLinkDownAndUpThatKeptTheVectorsIsKept() throws Exception {
        start();
        WatchHarness.linkDownAndUp(paths, watcher, events, () -> {});
        WatchEvent.Kept kept = (WatchEvent.Kept) WatchHarness.awaitEvent(events, WatchEvent.Kept.class::isInstance);
        stop();
        assertEquals(List.of(WatchHarness.LINK_UP), kept.after(), events.toString());
        assertEquals(
                IntStream.rangeClosed(50, 53)
                        .mapToObj(irq -> Target.irq(irq, "i40e-eth0-TxRx-" + (irq - 50)))
                        .toList(),
                kept.held());
        assertEquals(List.of(), WatchHarness.reported(events, WatchEvent.Changed.class), events.toString());
        assertEquals(List.of(), WatchHarness.reported(events, WatchEvent.ResetPutBack.class), events.toString());
        assertEquals(List.of(), WatchHarness.reported(events, WatchEvent.DriftPutBack.class), events.toString());
        assertEquals(1, WatchHarness.reported(events, WatchEvent.Kept.class).size(), events.toString());
        assertEquals("0-1", affinity(50));
    }

    /** The control: the same vectors back with their affinity reset, as an unbind and bind leaves them. */
    @Test
    void aNicBackWithItsVectorsResetIsPlannedAgain() throws Exception {
        start();
        WatchHarness.linkDownAndUp(
                paths, watcher, events, () -> IntStream.rangeClosed(50, 53).forEach(irq -> write(irq, "0-7")));
        WatchEvent.Changed changed =
                (WatchEvent.Changed) WatchHarness.awaitEvent(events, WatchEvent.Changed.class::isInstance);
        Thread.sleep(2000); // past the recheck after the events
        stop();
        assertTrue(changed.before().isEmpty(), changed.toString());
        assertEquals(List.of(WatchHarness.LINK_UP), changed.after(), events.toString());
        assertEquals(List.of(), WatchHarness.reported(events, WatchEvent.Kept.class), events.toString());
        assertEquals("0-1", affinity(50));
    }

    private void start() {
        watcher = new Watcher(
                List.of(ETH0),
                paths,
                KernelFiles.DIRECT,
                WatchHarness.mana(sys),
                new Watcher.Settings(
                        Duration.ofMillis(200),
                        Duration.ofMillis(20),
                        Backoff.forInterval(Duration.ofMillis(200)),
                        new PlacementOptions(false, false, false),
                        run.resolve("state")),
                events::add,
                Clock.systemUTC());
        watcher.start();
        running = new Thread(() -> watcher.run(false));
        running.start();
    }

    private void stop() throws InterruptedException {
        watcher.stop(Duration.ofSeconds(20));
        running.join(TimeUnit.SECONDS.toMillis(20));
    }

    private void write(int irq, String cpus) {
        try {
            Files.writeString(paths.smpAffinityList(irq), cpus + "\n");
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
