// SPDX-License-Identifier: Apache-2.0
package io.numaspread.watch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.numaspread.CpuSet;
import io.numaspread.irq.PlacementOptions;
import io.numaspread.irq.Target;
import io.numaspread.kernel.InterfaceName;
import io.numaspread.testing.ForwardingFiles;
import io.numaspread.testing.MachineShape;
import io.numaspread.testing.StandInNicTest;
import io.numaspread.testing.SysfsFixture;
import java.io.IOException;
import java.io.UncheckedIOException;
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
 * A driver moves its IRQs as part of a change, before the change shows: virtio_net's set_channels spreads every
 * queue IRQ again and only then changes the active queues (which sends their uevents); its CPU hotplug callbacks
 * spread them before the CPU's uevent. A drift check that read the NIC before the change and the IRQs after the
 * reset reported a drift and then the change (two of four watch runs of a CI boot). Here the driver resets the
 * IRQs at the drift check's first read of an affinity, and the change becomes visible just after that read: the
 * listener must hear of the change, once, and of no drift. A move that comes alone is still a drift.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class WatcherResetRaceTest extends StandInNicTest {
    private static final InterfaceName ETH0 = new InterfaceName("eth0");
    private static final int CPU = 5;

    private static final Target IRQ_50 = Target.irq(50, "i40e-eth0-TxRx-0");

    private final List<WatchEvent> events = Collections.synchronizedList(new ArrayList<>());

    /** What the kernel does at the next read of an IRQ's affinity (before it) and just after that read. */
    private record Race(Runnable before, Runnable justAfter) {}

    private volatile Race race;
    private Watcher watcher;

    @Test
    void queuesChangedJustAfterTheResetAreTheChangeNotADrift() throws Exception {
        assertQueuesTwoAndThreeRemovedAreTheChange(new PlacementOptions(false, false, false));
    }

    /**
     * With watch's defaults (XPS kept too), the check that read four queues then reads tx-2's xps_cpus after
     * ethtool -L removed it (ENOENT; seen in a CI boot): the NIC changed under the check, which is the change, not
     * a failure.
     */
    @Test
    void queuesRemovedUnderTheXpsReadAreTheChangeNotAFailure() throws Exception {
        assertQueuesTwoAndThreeRemovedAreTheChange(PlacementOptions.DEFAULTS);
    }

    /** ethtool -L 2 on the 4-queue NIC as virtio_net does it: IRQs reset, then queues 2 and 3 go, with uevents. */
    private void assertQueuesTwoAndThreeRemovedAreTheChange(PlacementOptions placement) throws Exception {
        watch(WatchHarness.mana(sys), placement, new Race(this::resetQueueIrqs, () -> {
            removeQueues(2, 3);
            watcher.post(queueRemoved("tx-3"));
            watcher.post(queueRemoved("tx-2"));
        }));
        WatchEvent.Changed changed = assertOnly(WatchEvent.Changed.class);
        assertEquals(4, changed.before().orElseThrow().txQueues(), events.toString());
        assertEquals(2, changed.now().txQueues(), events.toString());
        assertEquals(List.of(queueRemoved("tx-3"), queueRemoved("tx-2")), changed.after());
    }

    @Test
    void aCpuOnlineAfterTheResetIsTheChangeNotADrift() throws Exception {
        SysfsFixture.write(MachineShape.mana().withOffline(CpuSet.of(CPU)), sys);
        deleteTree(sys.resolve("devices/system/cpu/cpu" + CPU + "/topology"));
        watch(WatchHarness.asWritten(), new Race(this::resetQueueIrqs, () -> {
            SysfsFixture.write(MachineShape.mana(), sys);
            watcher.post(cpuOnline());
        }));
        WatchEvent.Changed changed = assertOnly(WatchEvent.Changed.class);
        assertEquals(CpuSet.parse("0-4,6-7"), changed.before().orElseThrow().online());
        assertEquals(CpuSet.parse("0-7"), changed.now().online());
        assertEquals(List.of(cpuOnline()), changed.after());
    }

    private static KernelEvent cpuOnline() {
        return new KernelEvent("uevent", "cpu" + CPU + " online", Optional.empty());
    }

    /** A reset with an event for the NIC but no change (a driver's own reset): put back, naming the event. */
    @Test
    void aResetWithAnEventAndNoChangeIsPutBackAfterTheEvent() throws Exception {
        KernelEvent up = new KernelEvent("rtnetlink", "eth0 RTM_NEWLINK (up)", Optional.of("eth0"));
        watch(WatchHarness.mana(sys), new Race(this::resetQueueIrqs, () -> watcher.post(up)));
        WatchEvent.ResetPutBack reset = assertOnly(WatchEvent.ResetPutBack.class);
        assertEquals(List.of(up), reset.after());
        WatchEvent.Moved first = reset.moved().get(0);
        assertEquals(IRQ_50, first.target(), reset.toString());
        assertEquals(CpuSet.parse("0-7"), first.target().parse(first.found()));
    }

    /**
     * Events for the NIC after which every file still holds the plan (igb keeps its vectors and their affinity
     * across a link going down and up): kept, said once at the recheck after the events, naming them; nothing
     * written, and neither a reset nor a drift.
     */
    @Test
    void eventsThatLeftThePlanInPlaceAreKept() throws Exception {
        KernelEvent down = new KernelEvent("rtnetlink", "eth0 RTM_NEWLINK (down)", Optional.of("eth0"));
        KernelEvent up = new KernelEvent("rtnetlink", "eth0 RTM_NEWLINK (up)", Optional.of("eth0"));
        watch(WatchHarness.mana(sys), new Race(() -> {}, () -> {
            watcher.post(down);
            watcher.post(up);
        }));
        WatchEvent.Kept kept = assertOnly(WatchEvent.Kept.class);
        assertEquals(List.of(down, up), kept.after());
        assertEquals(
                List.of(
                        IRQ_50,
                        Target.irq(51, "i40e-eth0-TxRx-1"),
                        Target.irq(52, "i40e-eth0-TxRx-2"),
                        Target.irq(53, "i40e-eth0-TxRx-3")),
                kept.held());
        assertEquals("0-1", affinity(50));
    }

    /** The control: a move that comes alone, with no change and no event, is another writer's drift. */
    @Test
    void aMoveAloneIsStillADrift() throws Exception {
        watch(WatchHarness.mana(sys), new Race(() -> write(50, "4"), () -> {}));
        assertEquals(
                List.of(
                        new WatchEvent.DriftFound(ETH0, List.of(IRQ_50)),
                        new WatchEvent.DriftPutBack(
                                ETH0, List.of(new WatchEvent.Moved(IRQ_50, "4", CpuSet.parse("0-1"))))),
                reported().subList(1, 3));
        assertEquals(3, reported().size(), events.toString());
        assertEquals("0-1", affinity(50));
    }

    /**
     * Applies the plan, arms {@code next} for the next check, and watches until something is reported after the
     * start and 0.5 s more.
     */
    private void watch(WatchPlanning planning, Race next) throws Exception {
        watch(planning, new PlacementOptions(false, false, false), next);
    }

    private void watch(WatchPlanning planning, PlacementOptions placement, Race next) throws Exception {
        watcher = new Watcher(
                List.of(ETH0),
                paths,
                racingFiles(),
                planning,
                new Watcher.Settings(
                        Duration.ofMillis(100),
                        Duration.ofMillis(20),
                        Backoff.forInterval(Duration.ofMillis(100)),
                        placement,
                        run.resolve("state")),
                events::add,
                Clock.systemUTC());
        watcher.start();
        Thread running = new Thread(() -> watcher.run(false));
        race = next;
        running.start();
        WatchHarness.awaitEvent(events, e -> !(e instanceof WatchEvent.Applied || e instanceof WatchEvent.Checked));
        Thread.sleep(500);
        watcher.stop(Duration.ofSeconds(20));
        running.join(TimeUnit.SECONDS.toMillis(20));
        assertEquals(null, race, "the race was not run");
    }

    /** What the watcher reported beyond each check's end ({@link WatchEvent.Checked}), the start first. */
    private List<WatchEvent> reported() {
        synchronized (events) {
            return events.stream()
                    .filter(e -> !(e instanceof WatchEvent.Checked))
                    .toList();
        }
    }

    /** The one event reported after the start, which is a {@code kind}. */
    private <T extends WatchEvent> T assertOnly(Class<T> kind) {
        List<WatchEvent> reported = reported();
        assertTrue(reported.get(0) instanceof WatchEvent.Applied, reported.toString());
        assertEquals(2, reported.size(), reported.toString());
        assertTrue(kind.isInstance(reported.get(1)), reported.toString());
        return kind.cast(reported.get(1));
    }

    private ForwardingFiles racingFiles() {
        return new ForwardingFiles() {
            @Override
            public String read(Path file) throws IOException {
                Race now = race;
                if (now == null || !file.getFileName().toString().equals("smp_affinity_list")) {
                    return super.read(file);
                }
                race = null;
                now.before().run();
                String read = super.read(file);
                now.justAfter().run();
                return read;
            }
        };
    }

    /** What virtio_net's virtnet_set_affinity does: every queue IRQ on all CPUs. */
    private void resetQueueIrqs() {
        for (int irq = 50; irq <= 53; irq++) {
            write(irq, "0-7");
        }
    }

    private void write(int irq, String cpus) {
        try {
            Files.writeString(paths.smpAffinityList(irq), cpus + "\n");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private void removeQueues(int... queues) {
        for (int queue : queues) {
            for (String kind : List.of("tx-", "rx-")) {
                deleteTree(paths.netDevice(ETH0).resolve("queues/" + kind + queue));
            }
        }
    }

    private static KernelEvent queueRemoved(String queue) {
        return new KernelEvent("uevent", "eth0 queue " + queue + " remove", Optional.of("eth0"));
    }

    private static void deleteTree(Path root) {
        try (Stream<Path> walk = Files.walk(root)) {
            for (Path path : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(path);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
