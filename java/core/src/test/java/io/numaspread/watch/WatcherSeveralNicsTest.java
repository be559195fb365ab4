// SPDX-License-Identifier: Apache-2.0
package io.numaspread.watch;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.numaspread.irq.PlacementOptions;
import io.numaspread.kernel.InterfaceName;
import io.numaspread.kernel.KernelFiles;
import io.numaspread.plan.Mode;
import io.numaspread.plan.PlanFlags;
import io.numaspread.plan.Policy;
import io.numaspread.testing.MachineShape;
import io.numaspread.testing.NicFixture;
import io.numaspread.testing.StandInNicTest;
import io.numaspread.testing.SysfsFixture;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
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
        SysfsFixture.write(MachineShape.mana(), sys);
        NicFixture.secondI40ePort(sys, proc);
        Watcher watcher = new Watcher(
                List.of(ETH0, ETH1),
                paths,
                KernelFiles.DIRECT,
                perCpu(),
                new Watcher.Settings(
                        Duration.ofMillis(100),
                        Duration.ofMillis(10),
                        Backoff.forInterval(Duration.ofMillis(100)),
                        new PlacementOptions(false, false, false),
                        state.getParent()),
                events::add,
                Clock.systemUTC());
        watcher.start();
        Thread running = new Thread(() -> watcher.run(false));
        running.start();
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

    /** Planned one CPU per queue ({@code --per-cpu}): mana's 8 CPUs are 4 sibling groups, one per queue otherwise. */
    private static Watcher.Planning perCpu() {
        return new Watcher.Planning(
                new PlanFlags(Optional.of(Mode.CPU), Policy.KERNEL, false, Optional.empty(), Optional.empty()),
                Optional.empty(),
                Optional.empty());
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
