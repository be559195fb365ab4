// SPDX-License-Identifier: Apache-2.0
package io.numaspread.watch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.numaspread.CpuSet;
import io.numaspread.irq.PlacementOptions;
import io.numaspread.kernel.InterfaceName;
import io.numaspread.kernel.KernelFiles;
import io.numaspread.testing.StandInNicTest;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The kubelet's CPU state is read at every check: CPUs it gives a Guaranteed pod later are planned off, and a file
 * that turns bad keeps the CPUs it last gave, said once.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class WatcherKubeletTest extends StandInNicTest {
    private static final InterfaceName ETH0 = new InterfaceName("eth0");
    private static final CpuSet POD_CPUS = CpuSet.parse("2-3");

    private final List<WatchEvent> events = Collections.synchronizedList(new ArrayList<>());

    @Test
    void aChangedFileMovesTheQueuesAndABadOneKeepsTheLastCpus() throws Exception {
        Path kubelet = run.resolve("cpu_manager_state");
        Files.writeString(
                kubelet, "{\"policyName\":\"static\",\"defaultCpuSet\":\"0-7\",\"entries\":{},\"checksum\":1}");
        WatchHarness.mana(sys);
        Watcher watcher = new Watcher(
                List.of(ETH0),
                paths,
                KernelFiles.DIRECT,
                new WatchPlanning(WatchHarness.asWritten().flags(), Optional.of(kubelet), Optional.empty()),
                new Watcher.Settings(
                        Duration.ofMillis(100),
                        Duration.ofMillis(20),
                        Backoff.forInterval(Duration.ofMillis(100)),
                        new PlacementOptions(false, false, false),
                        run.resolve("state")),
                events::add,
                Clock.systemUTC());
        watcher.start();
        assertTrue(queueCpus().intersects(POD_CPUS), "the plan at the start uses every CPU: " + queueCpus());
        Thread running = new Thread(() -> watcher.run(false));
        running.start();
        try {
            replace(
                    kubelet,
                    "{\"policyName\":\"static\",\"defaultCpuSet\":\"0-1,4-7\",\"entries\":{"
                            + "\"0f6c1f1e-5b0a-4f7e-9a55-1d2c3b4a5e6f\":{\"server\":\"2-3\"}},\"checksum\":2}");
            WatchEvent.Changed changed = (WatchEvent.Changed) WatchHarness.awaitEvent(
                    events,
                    e -> e instanceof WatchEvent.Changed c && c.now().keptFree().equals(POD_CPUS));
            assertEquals(CpuSet.EMPTY, changed.before().orElseThrow().keptFree());
            assertEquals(CpuSet.EMPTY, queueCpus().intersect(POD_CPUS), "the queues left the pod's CPUs");

            replace(kubelet, "{\"entries\":");
            WatchEvent.KeptFreeUnreadable unreadable = (WatchEvent.KeptFreeUnreadable)
                    WatchHarness.awaitEvent(events, e -> e instanceof WatchEvent.KeptFreeUnreadable);
            assertEquals(new WatchEvent.KeptFreeUnreadable(ETH0, unreadable.problem(), POD_CPUS), unreadable);
            assertTrue(
                    unreadable.problem().startsWith(kubelet + " is not the kubelet's CPU state (JSON): "),
                    unreadable.problem());
            int checked = checks();
            while (checks() < checked + 3) {
                Thread.sleep(20);
            }
        } finally {
            watcher.stop(Duration.ofSeconds(20));
            running.join(TimeUnit.SECONDS.toMillis(20));
        }
        synchronized (events) {
            assertEquals(
                    1,
                    events.stream()
                            .filter(e -> e instanceof WatchEvent.KeptFreeUnreadable)
                            .count(),
                    events.toString());
            assertEquals(
                    1,
                    events.stream().filter(e -> e instanceof WatchEvent.Changed).count(),
                    events.toString());
        }
        assertEquals(CpuSet.EMPTY, queueCpus().intersect(POD_CPUS), "the queues stayed off the pod's CPUs");
    }

    /**
     * As the kubelet writes its checkpoint: a new file renamed over the old, so that no check reads it half written
     * (a file emptied and then written is read empty by a check between the two).
     */
    private static void replace(Path file, String content) throws IOException {
        Path next = Files.writeString(file.resolveSibling(file.getFileName() + ".tmp"), content);
        Files.move(next, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }

    private int checks() {
        synchronized (events) {
            return (int)
                    events.stream().filter(e -> e instanceof WatchEvent.Checked).count();
        }
    }

    /** The CPUs eth0's queue IRQs are on, as the stand-in kernel holds them. */
    private CpuSet queueCpus() throws IOException {
        CpuSet cpus = CpuSet.EMPTY;
        for (int irq = 50; irq <= 53; irq++) {
            cpus = cpus.union(CpuSet.parse(affinity(irq)));
        }
        return cpus;
    }
}
