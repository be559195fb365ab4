// SPDX-License-Identifier: Apache-2.0
package io.numaspread.watch;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.numaspread.kernel.InterfaceName;
import io.numaspread.testing.MachineShape;
import io.numaspread.testing.NicFixture;
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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code watch --nic eth0 --nic eth1} over a two-port i40e card on mana's node 0 (4 CPUs for the two ports' 8
 * queues): the NICs are planned together, as {@code apply --nic eth0 --nic eth1} plans them, so that no CPU gets
 * a second queue IRQ while one they may use has none. Planned each on its own, both ports' queues took node 0's
 * same 4 CPUs.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class WatcherSeveralNicsTest extends StandInNicTest {
    private static final InterfaceName ETH0 = new InterfaceName("eth0");
    private static final InterfaceName ETH1 = new InterfaceName("eth1");

    private final List<WatchEvent> events = Collections.synchronizedList(new ArrayList<>());

    @Test
    void twoPortsWatchedTogetherGetACpuEachForEveryQueue() throws Exception {
        Watcher watcher = bothPorts();
        watcher.start();
        Thread running = WatchHarness.running(watcher);
        // Several drift checks of both: each keeps its share rather than planning itself alone again.
        Thread.sleep(500);
        watcher.stop(Duration.ofSeconds(20));
        running.join(TimeUnit.SECONDS.toMillis(20));

        List<String> cpus = new ArrayList<>();
        for (int irq : List.of(50, 51, 52, 53, 60, 61, 62, 63)) {
            cpus.add(affinity(irq));
        }
        Set<String> distinct = new TreeSet<>(cpus);
        assertEquals(8, distinct.size(), "every queue of both ports on a CPU of its own: " + cpus);
        assertEquals(Set.of("0", "1", "2", "3"), nodeZeroCpusTaken(cpus), "node 0's 4 CPUs all taken: " + cpus);
        assertEquals(
                List.of(),
                events.stream().filter(e -> e instanceof WatchEvent.Failed).toList());
    }

    /**
     * eth1's channels cut to 2 (its queues 2 and 3 gone from {@code /proc/interrupts}, as after {@code ethtool -L}),
     * then eth1 in a reset (no handler for any of its vectors, its interface still there, as igb while it requests
     * them again), then back: eth0's queues stay on their CPUs throughout. Made afresh, the joint plan for 4 and 2
     * queues moves eth0's queue 3 from CPU 7 to CPU 6 (only the order of equals put it there), and eth0 planned alone
     * for the moment of eth1's reset would move its queues 2 and 3 onto node 0 and back.
     */
    @Test
    void anotherPortsChangeAndResetLeaveThisPortsQueuesWhereTheySit() throws Exception {
        Watcher watcher = bothPorts();
        watcher.start();
        List<String> eth0 = affinities(50, 51, 52, 53);
        assertEquals(List.of("0", "3", "4", "7"), eth0, "the joint plan of 4 and 4 queues");
        assertEquals(List.of("2", "1", "6", "5"), affinities(60, 61, 62, 63));
        Thread running = WatchHarness.running(watcher);
        Path interrupts = proc.resolve("interrupts");
        String whole = Files.readString(interrupts);
        try {
            Files.writeString(interrupts, without(whole, "eth1-TxRx-2", "eth1-TxRx-3"));
            awaitEvent(WatchEvent.Changed.class, ETH1);
            Thread.sleep(400); // drift checks of both
            assertEquals(eth0, affinities(50, 51, 52, 53), "eth1 cut to 2 queues");
            assertEquals(List.of("2", "1"), affinities(60, 61));

            Files.writeString(interrupts, without(whole, "0000:3b:00.1:misc", "eth1-TxRx-"));
            awaitEvent(WatchEvent.Gone.class, ETH1);
            Thread.sleep(400);
            assertEquals(eth0, affinities(50, 51, 52, 53), "eth1 in a reset");
        } finally {
            Files.writeString(interrupts, whole);
        }
        Thread.sleep(400);
        watcher.stop(Duration.ofSeconds(20));
        running.join(TimeUnit.SECONDS.toMillis(20));
        assertEquals(eth0, affinities(50, 51, 52, 53), "eth1 back with 4 queues");
        assertEquals(8, new TreeSet<>(affinities(50, 51, 52, 53, 60, 61, 62, 63)).size(), "every queue on its own CPU");
        assertEquals(
                List.of(),
                heard().stream().filter(e -> e instanceof WatchEvent.Failed).toList());
    }

    private List<String> affinities(int... irqs) throws IOException {
        List<String> cpus = new ArrayList<>();
        for (int irq : irqs) {
            cpus.add(affinity(irq));
        }
        return cpus;
    }

    /** {@code text} without the lines that contain one of {@code names}. */
    private static String without(String text, String... names) {
        StringBuilder kept = new StringBuilder();
        for (String line : text.split("\n", -1)) {
            if (java.util.Arrays.stream(names).noneMatch(line::contains)) {
                kept.append(line).append('\n');
            }
        }
        return kept.substring(0, kept.length() - 1);
    }

    private void awaitEvent(Class<? extends WatchEvent> kind, InterfaceName iface) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (heard().stream()
                .noneMatch(e -> kind.isInstance(e) && e.toString().contains(iface.value()))) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("no " + kind.getSimpleName() + " of " + iface + " within 20 s: " + heard());
            }
            Thread.sleep(20);
        }
    }

    /** What the watcher has said so far: a copy, since its thread goes on adding. */
    private List<WatchEvent> heard() {
        synchronized (events) {
            return new ArrayList<>(events);
        }
    }

    /** {@code watch --per-cpu --nic eth0 --nic eth1} over the two-port card, checking every 100 ms. */
    private Watcher bothPorts() {
        SysfsFixture.write(MachineShape.mana(), sys);
        NicFixture.secondI40ePort(sys, proc);
        return WatchHarness.perCpu(List.of(ETH0, ETH1), paths, state.getParent(), events);
    }

    /** The CPUs of node 0 (0-3 on mana) that hold a queue. */
    private static Set<String> nodeZeroCpusTaken(List<String> cpus) {
        Set<String> taken = new TreeSet<>();
        for (String cpu : cpus) {
            if (Integer.parseInt(cpu) < 4) {
                taken.add(cpu);
            }
        }
        return taken;
    }
}
