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
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
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
    private static final KernelEvent DOWN =
            new KernelEvent("rtnetlink", "eth0 RTM_NEWLINK (down)", Optional.of("eth0"));
    private static final KernelEvent UP = new KernelEvent("rtnetlink", "eth0 RTM_NEWLINK (up)", Optional.of("eth0"));

    private final List<WatchEvent> events = Collections.synchronizedList(new ArrayList<>());
    private Watcher watcher;
    private Thread running;

    @Test
    void aLinkDownAndUpThatKeptTheVectorsIsKept() throws Exception {
        start();
        linkDownAndUp(() -> {});
        WatchEvent.Kept kept = (WatchEvent.Kept) WatchHarness.awaitEvent(events, WatchEvent.Kept.class::isInstance);
        stop();
        assertEquals(List.of(UP), kept.after(), events.toString());
        assertEquals(
                IntStream.rangeClosed(50, 53)
                        .mapToObj(irq -> Target.irq(irq, "i40e-eth0-TxRx-" + (irq - 50)))
                        .toList(),
                kept.held());
        assertEquals(List.of(), reported(WatchEvent.Changed.class), events.toString());
        assertEquals(List.of(), reported(WatchEvent.ResetPutBack.class), events.toString());
        assertEquals(List.of(), reported(WatchEvent.DriftPutBack.class), events.toString());
        assertEquals(1, reported(WatchEvent.Kept.class).size(), events.toString());
        assertEquals("0-1", affinity(50));
    }

    /** The control: the same vectors back with their affinity reset, as an unbind and bind leaves them. */
    @Test
    void aNicBackWithItsVectorsResetIsPlannedAgain() throws Exception {
        start();
        linkDownAndUp(() -> IntStream.rangeClosed(50, 53).forEach(irq -> write(irq, "0-7")));
        WatchEvent.Changed changed =
                (WatchEvent.Changed) WatchHarness.awaitEvent(events, WatchEvent.Changed.class::isInstance);
        Thread.sleep(2000); // past the recheck after the events
        stop();
        assertTrue(changed.before().isEmpty(), changed.toString());
        assertEquals(List.of(UP), changed.after(), events.toString());
        assertEquals(List.of(), reported(WatchEvent.Kept.class), events.toString());
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

    /**
     * The NIC's vectors (49-53) leave /proc/interrupts with a link-down event, until watch says it went; then
     * {@code meanwhile} runs and they come back with a link-up event.
     */
    private void linkDownAndUp(Runnable meanwhile) throws Exception {
        String interrupts = Files.readString(paths.interrupts());
        Files.writeString(
                paths.interrupts(),
                Arrays.stream(interrupts.split("\n", -1))
                        .filter(line -> !line.matches(" *(49|5[0-3]):.*"))
                        .collect(Collectors.joining("\n")));
        watcher.post(DOWN);
        WatchHarness.awaitEvent(events, WatchEvent.Gone.class::isInstance);
        meanwhile.run();
        Files.writeString(paths.interrupts(), interrupts);
        watcher.post(UP);
    }

    private void write(int irq, String cpus) {
        try {
            Files.writeString(paths.smpAffinityList(irq), cpus + "\n");
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private <T extends WatchEvent> List<T> reported(Class<T> kind) {
        synchronized (events) {
            return events.stream().filter(kind::isInstance).map(kind::cast).toList();
        }
    }
}
