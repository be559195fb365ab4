// SPDX-License-Identifier: Apache-2.0
package io.numaspread.watch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.numaspread.CpuSet;
import io.numaspread.irq.NicPlacement;
import io.numaspread.irq.PlacementOptions;
import io.numaspread.irq.Target;
import io.numaspread.kernel.InterfaceName;
import io.numaspread.kernel.KernelFiles;
import io.numaspread.nic.NapiInstance;
import io.numaspread.nic.NapiMap;
import io.numaspread.nic.NapiSettingsChange;
import io.numaspread.nic.NapiSource;
import io.numaspread.nic.PerNapiThreaded;
import io.numaspread.nic.QueueLeases;
import io.numaspread.testing.NicFixture;
import io.numaspread.testing.StandInNicTest;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code watch --napi-threads} on a fake tree (a four-queue i40e NIC of the mana machine, threaded NAPI off, one
 * {@code napi/eth0-ID} kernel thread per queue): the start turns threaded on and pins the threads; a re-created
 * thread (new PID, allowed anywhere) is pinned again at the next check, reported and counted; threaded turned
 * off is turned on again; the restore on exit puts back threaded and the threads. {@code sched_setaffinity} is a
 * function that rewrites {@code Cpus_allowed_list}; the 6.12 guest checks the real kernel.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class WatcherNapiThreadsTest extends StandInNicTest {
    private static final InterfaceName ETH0 = new InterfaceName("eth0");

    private Path threaded;
    private final List<WatchEvent> events = Collections.synchronizedList(new ArrayList<>());

    @BeforeEach
    void nic() {
        threaded = paths.netDevice(ETH0).resolve("threaded");
        NicFixture.file(threaded, "0");
        for (int queue = 0; queue < 4; queue++) {
            NicFixture.task(proc, 700 + queue, "napi/eth0-" + (8193 + queue), true, "0-7");
        }
    }

    /** Whether the kernel's map links the NAPIs to queues; virtio_net's does not with fewer channels than NAPIs. */
    private volatile boolean linked = true;

    private NapiMap map() {
        if (!linked) {
            return new NapiMap(
                    ETH0,
                    List.of(new NapiInstance(8193, OptionalInt.empty(), OptionalInt.empty(), OptionalInt.empty())),
                    NapiSource.NETLINK_DERIVED,
                    "4 NAPIs cannot be matched to 2 rx queues");
        }
        List<NapiInstance> instances = new ArrayList<>();
        for (int queue = 0; queue < 4; queue++) {
            instances.add(
                    new NapiInstance(8193 + queue, OptionalInt.of(queue), OptionalInt.empty(), OptionalInt.empty()));
        }
        return new NapiMap(ETH0, instances, NapiSource.NETLINK_DERIVED, "queues by NAPI ID order");
    }

    private Watcher watcher() {
        WatchPlanning planning = WatchHarness.mana(sys);
        NicPlacement.NapiAccess access = new NicPlacement.NapiAccess(
                this::map, (pid, cpus) -> NicFixture.threadAffinity(proc, pid, cpus.toString()), PerNapiThreaded.NONE);
        Watcher.Settings settings = new Watcher.Settings(
                Duration.ofMillis(100),
                Duration.ofMillis(10),
                Backoff.forInterval(Duration.ofMillis(100)),
                new PlacementOptions(false, false, true),
                run.resolve("state"),
                Optional.of(iface -> access),
                NapiSettingsChange.Access.NONE,
                QueueLeases.Source.NONE);
        return new Watcher(
                List.of(ETH0), paths, KernelFiles.DIRECT, planning, settings, events::add, Clock.systemUTC());
    }

    private String threadAffinity(int pid) throws IOException {
        for (String line : Files.readAllLines(proc.resolve(pid + "/status"))) {
            if (line.startsWith("Cpus_allowed_list:")) {
                return line.substring("Cpus_allowed_list:".length()).strip();
            }
        }
        throw new AssertionError("no Cpus_allowed_list for " + pid);
    }

    private WatchEvent awaitEvent(Predicate<WatchEvent> wanted) throws InterruptedException {
        return WatchHarness.awaitEvent(events, wanted);
    }

    /** The NAPI threads pinned again, as reported so far. */
    private int pinnedAgain() {
        synchronized (events) {
            return events.stream()
                    .filter(e -> e instanceof WatchEvent.NapiThreadsPinned)
                    .mapToInt(e -> ((WatchEvent.NapiThreadsPinned) e).threads())
                    .sum();
        }
    }

    /** The events of kind {@code kind} reported so far. */
    private <T extends WatchEvent> List<T> reported(Class<T> kind) {
        synchronized (events) {
            return events.stream().filter(kind::isInstance).map(kind::cast).toList();
        }
    }

    @Test
    void keepsTheThreadsPinnedWhenTheyAreRecreatedAndThreadedOnAndRestoresBothOnExit() throws Exception {
        Watcher watcher = watcher();
        watcher.start();
        assertEquals("1", Files.readString(threaded).strip());
        assertEquals(
                List.of("0-1", "2-3", "0-1", "2-3"),
                List.of(threadAffinity(700), threadAffinity(701), threadAffinity(702), threadAffinity(703)));
        assertEquals(
                List.of(new WatchEvent.ThreadedTurnedOn(ETH0, threaded, List.of(), 4, List.of())),
                reported(WatchEvent.ThreadedTurnedOn.class));
        assertEquals(4, pinnedAgain());

        Thread running = new Thread(() -> watcher.run(true));
        running.start();
        // The queue's thread is re-created, as a reset does: a new PID, allowed anywhere.
        for (String file : List.of("comm", "stat", "status")) {
            Files.delete(proc.resolve("701/" + file));
        }
        Files.delete(proc.resolve("701"));
        NicFixture.task(proc, 901, "napi/eth0-8194", true, "0-7");
        Target thread = Target.napiThread(ETH0, 8194);
        awaitEvent(e -> e instanceof WatchEvent.DriftPutBack drift
                && drift.moved().stream()
                        .anyMatch(m -> m.target().equals(thread)
                                && thread.parse(m.found()).equals(CpuSet.parse("0-7"))
                                && m.planned().equals(CpuSet.parse("2-3"))));
        assertEquals("2-3", threadAffinity(901));
        assertEquals(5, pinnedAgain());

        NicFixture.file(threaded, "0");
        awaitEvent(e -> e instanceof WatchEvent.ThreadedTurnedOn on && on.pinned() != 4);
        assertEquals("1", Files.readString(threaded).strip());

        // While the map cannot tell the threads apart, the IRQs are still kept, and that is said once.
        linked = false;
        awaitEvent(e -> e instanceof WatchEvent.NapiThreadsLeft);
        NicFixture.file(paths.smpAffinityList(50), "0-7");
        Target irq50 = Target.irq(50, "i40e-eth0-TxRx-0");
        awaitEvent(e -> e instanceof WatchEvent.DriftPutBack drift
                && drift.moved().stream()
                        .anyMatch(m -> m.target().equals(irq50)
                                && m.found().equals("0-7")
                                && m.planned().equals(CpuSet.parse("0-1"))));
        assertEquals(1, reported(WatchEvent.NapiThreadsLeft.class).size(), events.toString());
        String cause = reported(WatchEvent.NapiThreadsLeft.class).get(0).cause();
        assertTrue(cause.startsWith("cannot tell which NAPI thread serves which queue of eth0: "), cause);
        linked = true;

        watcher.stop(Duration.ofSeconds(20));
        running.join(TimeUnit.SECONDS.toMillis(20));
        assertEquals("0", Files.readString(threaded).strip(), events.toString());
        assertEquals(
                List.of("0-7", "0-7", "0-7", "0-7"),
                List.of(threadAffinity(700), threadAffinity(901), threadAffinity(702), threadAffinity(703)));
    }

    /** The kernel's per-NAPI threaded (Linux 6.17), for the watcher that turns NAPIs on one by one. */
    private final Map<Integer, Integer> perNapi = new ConcurrentSkipListMap<>();

    private NapiMap perNapiMap() {
        List<NapiInstance> instances = new ArrayList<>();
        perNapi.forEach((napiId, value) -> instances.add(new NapiInstance(
                napiId,
                OptionalInt.of(napiId - 8193),
                OptionalInt.empty(),
                OptionalInt.empty(),
                OptionalInt.of(value))));
        return new NapiMap(ETH0, instances, NapiSource.NETLINK, "netdev netlink");
    }

    @Test
    void onAKernelWithPerNapiThreadedItTurnsOnTheNapisAgainOneByOneAndRestoresThemOnExit() throws Exception {
        for (int queue = 0; queue < 4; queue++) {
            perNapi.put(8193 + queue, 0);
        }
        PerNapiThreaded netlink = new PerNapiThreaded() {
            @Override
            public Map<Integer, Integer> read(InterfaceName iface) {
                return Map.copyOf(perNapi);
            }

            @Override
            public void write(int napiId, int value) {
                perNapi.put(napiId, value);
            }

            @Override
            public long threadedMaximum() {
                return 1; // Linux 6.18: watch never sets busy-poll
            }
        };
        NicPlacement.NapiAccess access = new NicPlacement.NapiAccess(
                this::perNapiMap, (pid, cpus) -> NicFixture.threadAffinity(proc, pid, cpus.toString()), netlink);
        Watcher watcher = new Watcher(
                List.of(ETH0),
                paths,
                KernelFiles.DIRECT,
                WatchHarness.mana(sys),
                new Watcher.Settings(
                        Duration.ofMillis(100),
                        Duration.ofMillis(10),
                        Backoff.forInterval(Duration.ofMillis(100)),
                        new PlacementOptions(false, false, true),
                        run.resolve("state"),
                        Optional.of(iface -> access),
                        NapiSettingsChange.Access.NONE,
                        QueueLeases.Source.NONE),
                events::add,
                Clock.systemUTC());
        watcher.start();
        assertEquals(Map.of(8193, 1, 8194, 1, 8195, 1, 8196, 1), perNapi);
        assertEquals("0", Files.readString(threaded).strip(), "the device's switch is left as it was");
        assertEquals(
                List.of(new WatchEvent.ThreadedTurnedOn(ETH0, threaded, List.of(8193, 8194, 8195, 8196), 4, List.of())),
                reported(WatchEvent.ThreadedTurnedOn.class));

        Thread running = new Thread(() -> watcher.run(true));
        running.start();
        perNapi.put(8195, 0); // another tool turns one NAPI's thread off
        awaitEvent(
                e -> e instanceof WatchEvent.ThreadedTurnedOn on && on.napis().equals(List.of(8195)));
        assertEquals(1, perNapi.get(8195));

        watcher.stop(Duration.ofSeconds(20));
        running.join(TimeUnit.SECONDS.toMillis(20));
        assertEquals(Map.of(8193, 0, 8194, 0, 8195, 0, 8196, 0), perNapi, events.toString());
        assertEquals(
                List.of("0-7", "0-7", "0-7", "0-7"),
                List.of(threadAffinity(700), threadAffinity(701), threadAffinity(702), threadAffinity(703)));
    }
}
