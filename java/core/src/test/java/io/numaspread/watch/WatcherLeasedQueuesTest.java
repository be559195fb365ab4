// SPDX-License-Identifier: Apache-2.0
package io.numaspread.watch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.numaspread.kernel.InterfaceName;
import io.numaspread.nic.QueueLeases;
import io.numaspread.testing.MachineShape;
import io.numaspread.testing.RecordedLeases;
import io.numaspread.testing.StandInNicTest;
import io.numaspread.testing.SysfsFixture;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code watch --per-cpu --nic eth0} on a leasing kernel ({@link RecordedLeases}: rx 1 leased into a pod): the
 * leased queue's IRQ goes to the pod's CPUs as {@code apply} puts it, follows the pod's cpuset when it changes, and
 * goes back to where the NIC's plan puts it when the pod has no process left; the other queues stay on node 0.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class WatcherLeasedQueuesTest extends StandInNicTest {
    private static final List<Integer> UNLEASED_IRQS = List.of(50, 52, 53);

    private final List<WatchEvent> events = Collections.synchronizedList(new ArrayList<>());

    @Test
    void theLeasedQueueFollowsItsPodsCpusAndTheOthersStayOnTheNicsNode() throws Exception {
        SysfsFixture.write(MachineShape.mana(), sys);
        RecordedLeases.pod(paths, "5-6");
        Watcher watcher = watcher();
        watcher.start();
        Thread running = WatchHarness.running(watcher);
        try {
            String leased = affinity(RecordedLeases.LEASED_QUEUE_IRQ);
            assertTrue(Set.of("5", "6").contains(leased), "the leased queue on the pod's CPUs: " + leased);
            List<String> others = affinities(UNLEASED_IRQS);
            assertEquals(3, new TreeSet<>(others).size(), "a CPU each: " + others);
            assertTrue(others.stream().allMatch(cpu -> Integer.parseInt(cpu) < 4), "on node 0 (0-3): " + others);

            RecordedLeases.pod(paths, "7");
            awaitAffinity(RecordedLeases.LEASED_QUEUE_IRQ, "7");
            Thread.sleep(400); // several drift checks: it stays
            assertEquals("7", affinity(RecordedLeases.LEASED_QUEUE_IRQ), "the pod's new cpuset, kept");
            assertEquals(others, affinities(UNLEASED_IRQS), "the other queues did not move");

            deletePodProcess();
            // (read while the watcher writes it, the stand-in file can be empty for a moment)
            awaitAffinity(RecordedLeases.LEASED_QUEUE_IRQ, cpu -> !cpu.isEmpty() && Integer.parseInt(cpu) < 4);
            Thread.sleep(400);
            String back = affinity(RecordedLeases.LEASED_QUEUE_IRQ);
            assertTrue(Integer.parseInt(back) < 4, "back on node 0 without the pod: " + back);
            List<String> all = affinities(List.of(50, 51, 52, 53));
            assertEquals(4, new TreeSet<>(all).size(), "every queue on a CPU of its own: " + all);
        } finally {
            watcher.stop(Duration.ofSeconds(20));
            running.join(TimeUnit.SECONDS.toMillis(20));
        }
        assertEquals(List.of(), WatchHarness.reported(events, WatchEvent.Failed.class), "no check failed");
    }

    private Watcher watcher() {
        return WatchHarness.perCpu(
                List.of(new InterfaceName("eth0")),
                paths,
                state.getParent(),
                events,
                QueueLeases.asking(new RecordedLeases()));
    }

    /** The pod's one process exits: its {@code /proc/PID} is gone. */
    private void deletePodProcess() throws IOException {
        try (Stream<Path> files = Files.walk(proc.resolve("300"))) {
            for (Path path : files.sorted(Collections.reverseOrder()).toList()) {
                Files.delete(path);
            }
        }
    }

    private void awaitAffinity(int irq, String cpus) throws Exception {
        awaitAffinity(irq, cpus::equals);
    }

    private void awaitAffinity(int irq, Predicate<String> wanted) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!wanted.test(affinity(irq))) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("IRQ " + irq + " still on " + affinity(irq) + " after 20 s: " + events);
            }
            Thread.sleep(20);
        }
    }

    private List<String> affinities(List<Integer> irqs) throws IOException {
        List<String> cpus = new ArrayList<>();
        for (int irq : irqs) {
            cpus.add(affinity(irq));
        }
        return cpus;
    }
}
