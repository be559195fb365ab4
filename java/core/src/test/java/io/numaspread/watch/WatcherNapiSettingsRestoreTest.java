// SPDX-License-Identifier: Apache-2.0
package io.numaspread.watch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import io.numaspread.irq.NapiSettingsRecord;
import io.numaspread.irq.PlacementOptions;
import io.numaspread.irq.StateFile;
import io.numaspread.kernel.InterfaceName;
import io.numaspread.kernel.KernelFiles;
import io.numaspread.nic.IrqSuspension;
import io.numaspread.nic.NapiSettings;
import io.numaspread.nic.QueueLeases;
import io.numaspread.testing.StandInNapiSettings;
import io.numaspread.testing.StandInNicTest;
import java.nio.file.Files;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code apply --irq-suspend}, then {@code watch --restore-on-exit}: the state file watch takes over records the
 * NAPIs' own settings, and watch's restore at the end must put those back with the IRQs, as {@code restore} does.
 * It was given no netdev netlink, so the whole restore was refused ("NAPI 8193's settings need netdev netlink")
 * and every IRQ stayed moved (seen on this host's eth0). The netlink side is a map standing in for the kernel's
 * per-NAPI settings ({@link StandInNapiSettings}).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class WatcherNapiSettingsRestoreTest extends StandInNicTest {
    private static final InterfaceName ETH0 = new InterfaceName("eth0");
    private static final NapiSettings OWN = new NapiSettings(2, 200_000, 0);

    /** The kernel's per-NAPI settings: 8193 as the apply left it. */
    private final StandInNapiSettings netlink = new StandInNapiSettings();

    private final List<WatchEvent> events = Collections.synchronizedList(new ArrayList<>());

    @Test
    void restoreOnExitPutsBackTheNapiSettingsAndTheIrqs() throws Exception {
        netlink.kernel().put(8193, IrqSuspension.recipe().napi());
        String irq50 = affinity(50);
        StateFile.write(
                state, new StateFile.State(ETH0, List.of()).recording(NapiSettingsRecord.of(Map.of(8193, OWN))));
        Watcher watcher = new Watcher(
                List.of(ETH0),
                paths,
                KernelFiles.DIRECT,
                WatchHarness.mana(sys),
                new Watcher.Settings(
                        Duration.ofMillis(100),
                        Duration.ofMillis(10),
                        Backoff.forInterval(Duration.ofMillis(100)),
                        new PlacementOptions(false, false, false),
                        state.getParent(),
                        Optional.empty(),
                        netlink,
                        QueueLeases.Source.NONE),
                events::add,
                Clock.systemUTC());
        watcher.start();
        Thread running = new Thread(() -> watcher.run(true));
        running.start();
        WatchHarness.awaitEvent(events, e -> e instanceof WatchEvent.Applied);
        watcher.stop(Duration.ofSeconds(20));
        running.join(TimeUnit.SECONDS.toMillis(20));

        List<WatchEvent> ends = events.stream()
                .filter(e -> e instanceof WatchEvent.Restored || e instanceof WatchEvent.RestoreFailed)
                .toList();
        assertEquals(1, ends.size(), events.toString());
        assertEquals(WatchEvent.Restored.class, ends.get(0).getClass(), events.toString());
        assertEquals(OWN, netlink.kernel().get(8193), "the NAPI's own settings, put back");
        assertEquals(irq50, affinity(50), "and the IRQs");
        assertFalse(Files.exists(state), "everything is back, the state file is gone");
    }
}
