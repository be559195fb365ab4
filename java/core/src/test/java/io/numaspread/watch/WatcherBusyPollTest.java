// SPDX-License-Identifier: Apache-2.0
package io.numaspread.watch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.numaspread.CpuSet;
import io.numaspread.NumaspreadException;
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
import io.numaspread.plan.PollFlags;
import io.numaspread.plan.PollSibling;
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
import java.util.stream.IntStream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code watch --poll-queues 1} on a fake tree (the four-queue i40e NIC of the mana machine) and a stand-in for the
 * kernel's per-NAPI {@code threaded} (Linux 6.19+, where 2 busy-polls; a NAPI's {@code napi/eth0-ID} thread appears
 * when it is first set threaded). Every plan watch makes keeps the IRQs off the poll core; a reset that gives the
 * queues new NAPIs has the polled one set to 2 again and its thread pinned; a thread the kernel re-created is pinned
 * again; a reset the kernel kept (persistent NAPI config) writes nothing and is said as kept; the exit puts back
 * what watch changed; a kernel without threaded busy polling is refused before any change. The 7.3 igb guest checks
 * the real kernel (scripts/vm-checks-watch-poll).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class WatcherBusyPollTest extends StandInNicTest {
    private static final InterfaceName ETH0 = new InterfaceName("eth0");
    /** mana's node 0 is CPUs 0-3, two cores; the planner gives queue 0's poll thread the second core's CPU 2. */
    private static final int POLL_CPU = 2;
    /** The poll CPU and its sibling, kept idle: no IRQ may land there. */
    private static final CpuSet RESERVED = CpuSet.parse("2-3");

    private final List<WatchEvent> events = Collections.synchronizedList(new ArrayList<>());
    /** The kernel's per-NAPI threaded, by NAPI ID; the NAPI of queue q is {@code firstNapi + q}. */
    private final Map<Integer, Integer> kernel = new ConcurrentSkipListMap<>();

    /** The thread PID napi-get gives each threaded NAPI. */
    private final Map<Integer, Integer> pids = new ConcurrentSkipListMap<>();

    private volatile int firstNapi = 8193;
    private final List<String> napiSets = Collections.synchronizedList(new ArrayList<>());
    /** Every sched_setaffinity, PID=CPUs, the privilege probes (a thread set to its own CPUs) too. */
    private final List<String> pins = Collections.synchronizedList(new ArrayList<>());

    private long threadedMaximum = PerNapiThreaded.BUSY_POLL;
    private int nextPid = 700;
    private Watcher watcher;
    private Thread running;

    private final PerNapiThreaded netlink = new PerNapiThreaded() {
        @Override
        public Map<Integer, Integer> read(InterfaceName iface) {
            return Map.copyOf(kernel);
        }

        @Override
        public void write(int napiId, int value) {
            napiSets.add(napiId + "=" + value);
            if (value > 0 && kernel.get(napiId) == 0) {
                // The kernel starts the NAPI's thread as it takes the call, allowed anywhere.
                pids.put(napiId, nextPid);
                NicFixture.task(proc, nextPid++, "napi/eth0-" + napiId, true, "0-7");
            }
            kernel.put(napiId, value);
        }

        @Override
        public long threadedMaximum() {
            return threadedMaximum;
        }
    };

    @BeforeEach
    void napis() {
        NicFixture.file(paths.netDevice(ETH0).resolve("threaded"), "0");
        newNapis(8193);
    }

    /** The queues' NAPIs are new ({@code first} up), none threaded, as after an unbind and bind. */
    private void newNapis(int first) {
        kernel.clear();
        for (int queue = 0; queue < 4; queue++) {
            kernel.put(first + queue, 0);
        }
        firstNapi = first;
    }

    private NapiMap map() {
        List<NapiInstance> instances = new ArrayList<>();
        kernel.forEach((napiId, threaded) -> instances.add(new NapiInstance(
                napiId,
                OptionalInt.of(napiId - firstNapi),
                OptionalInt.of(50 + napiId - firstNapi),
                pids.containsKey(napiId) ? OptionalInt.of(pids.get(napiId)) : OptionalInt.empty(),
                OptionalInt.of(threaded))));
        return new NapiMap(ETH0, instances, NapiSource.NETLINK, "netdev netlink queue-get and napi-get");
    }

    private Watcher watcher() {
        NicPlacement.NapiAccess access = new NicPlacement.NapiAccess(
                this::map,
                (pid, cpus) -> {
                    pins.add(pid + "=" + cpus);
                    NicFixture.threadAffinity(proc, pid, cpus.toString());
                },
                netlink);
        WatchPlanning mana = WatchHarness.mana(sys);
        return new Watcher(
                List.of(ETH0),
                paths,
                KernelFiles.DIRECT,
                new WatchPlanning(mana.flags(), Optional.empty(), Optional.of(new PollFlags(1, PollSibling.IDLE))),
                new Watcher.Settings(
                        Duration.ofMillis(200),
                        Duration.ofMillis(20),
                        Backoff.forInterval(Duration.ofMillis(200)),
                        new PlacementOptions(false, false, false),
                        run.resolve("state"),
                        Optional.of(iface -> access),
                        NapiSettingsChange.Access.NONE,
                        QueueLeases.Source.NONE),
                events::add,
                Clock.systemUTC());
    }

    private void start() {
        watcher = watcher();
        watcher.start();
        running = new Thread(() -> watcher.run(true));
        running.start();
    }

    private void stop() throws InterruptedException {
        watcher.stop(Duration.ofSeconds(20));
        running.join(TimeUnit.SECONDS.toMillis(20));
    }

    @Test
    void everyPlanKeepsTheIrqsOffThePollCoreAndANewNapiAfterAResetBusyPollsAgainOnIt() throws Exception {
        start();
        assertEquals(Map.of(8193, 2, 8194, 0, 8195, 0, 8196, 0), kernel);
        assertEquals(
                List.of(new WatchEvent.BusyPoll(
                        ETH0,
                        List.of(new WatchEvent.PolledNapi(8193, POLL_CPU, WatchEvent.PollAction.SET)),
                        List.of())),
                WatchHarness.reported(events, WatchEvent.BusyPoll.class));
        assertEquals(String.valueOf(POLL_CPU), threadAffinity(700));
        assertIrqsOffThePollCore();

        // An unbind and bind: the vectors come back spread anew, and the queues have new NAPIs, none threaded.
        WatchHarness.linkDownAndUp(paths, watcher, events, () -> {
            IntStream.rangeClosed(50, 53).forEach(irq -> write(irq, "0-7"));
            newNapis(8301);
        });
        WatchEvent.BusyPoll again = (WatchEvent.BusyPoll) WatchHarness.awaitEvent(
                events,
                e -> e instanceof WatchEvent.BusyPoll poll && !poll.after().isEmpty());
        assertEquals(List.of(new WatchEvent.PolledNapi(8301, POLL_CPU, WatchEvent.PollAction.SET)), again.napis());
        // A drift check may find the NIC gone before the link-down event is read: then both come in one burst.
        assertTrue(again.after().contains(WatchHarness.LINK_UP), again.toString());
        assertEquals(Map.of(8301, 2, 8302, 0, 8303, 0, 8304, 0), kernel);
        assertEquals(String.valueOf(POLL_CPU), threadAffinity(701));
        assertIrqsOffThePollCore();
        WatchHarness.awaitEvent(events, WatchEvent.Changed.class::isInstance);
        Thread.sleep(2000); // past the recheck after the events
        assertEquals(List.of(), WatchHarness.reported(events, WatchEvent.Kept.class), "written, not kept: " + events);

        stop();
        assertEquals(Map.of(8301, 0, 8302, 0, 8303, 0, 8304, 0), kernel, events.toString());
        assertEquals("0-7", threadAffinity(701));
        assertEquals("0-7", affinity(50));
    }

    @Test
    void aResetTheKernelKeptIsSaidKeptAndWritesNothing() throws Exception {
        start();
        List<String> setsBefore = List.copyOf(napiSets);
        List<String> pinsBefore = List.copyOf(pins);
        // A link down and up on a driver with persistent NAPI config: the same vectors, NAPIs, threaded and thread.
        WatchHarness.linkDownAndUp(paths, watcher, events, () -> {});
        WatchEvent.Kept kept = (WatchEvent.Kept) WatchHarness.awaitEvent(events, WatchEvent.Kept.class::isInstance);
        assertTrue(kept.held().contains(Target.napiThread(ETH0, 8193)), kept.toString());
        assertEquals(setsBefore, napiSets);
        assertEquals(pinsBefore, pins);
        assertEquals(1, WatchHarness.reported(events, WatchEvent.BusyPoll.class).size(), events.toString());
        assertEquals(List.of(), WatchHarness.reported(events, WatchEvent.Changed.class), events.toString());
        stop();
    }

    @Test
    void aThreadTheKernelRecreatedIsPinnedAgainAndTheNapiLeftBusyPolling() throws Exception {
        start();
        List<String> setsBefore = List.copyOf(napiSets);
        WatchHarness.linkDownAndUp(paths, watcher, events, () -> {
            for (String file : List.of("comm", "stat", "status")) {
                try {
                    Files.delete(proc.resolve("700/" + file));
                } catch (IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            }
            // Linux 7.3's igb starts it before the NAPI has its ID back: only napi-get's PID names it.
            NicFixture.task(proc, 900, "napi/eth0-0", true, "0-7");
            pids.put(8193, 900);
        });
        WatchEvent.BusyPoll again = (WatchEvent.BusyPoll) WatchHarness.awaitEvent(
                events,
                e -> e instanceof WatchEvent.BusyPoll poll && !poll.after().isEmpty());
        assertEquals(List.of(new WatchEvent.PolledNapi(8193, POLL_CPU, WatchEvent.PollAction.PINNED)), again.napis());
        assertEquals(String.valueOf(POLL_CPU), threadAffinity(900));
        assertEquals(setsBefore, napiSets, "threaded 2 was kept: no napi-set");
        stop();
        assertEquals(0, kernel.get(8193));
    }

    @Test
    void aKernelWithoutThreadedBusyPollingIsRefusedBeforeAnyChange() {
        threadedMaximum = 1; // Linux 6.18's napi-set policy
        Map<Path, String> untouched = NicFixture.snapshot(proc, sys);
        NumaspreadException refused =
                assertThrows(NumaspreadException.class, () -> watcher().start());
        assertEquals(NumaspreadException.Kind.REFUSED, refused.kind());
        assertTrue(refused.getMessage().contains("has no threaded busy polling"), refused.getMessage());
        assertEquals(untouched, NicFixture.snapshot(proc, sys));
        assertEquals(List.of(), napiSets);
        assertFalse(Files.exists(run.resolve("state/eth0.json")));
    }

    private void assertIrqsOffThePollCore() throws IOException {
        for (int irq = 50; irq <= 53; irq++) {
            CpuSet cpus = CpuSet.parse(affinity(irq));
            assertFalse(cpus.intersects(RESERVED), "IRQ " + irq + " on " + cpus + ": " + events);
        }
    }

    private String threadAffinity(int pid) throws IOException {
        for (String line : Files.readAllLines(proc.resolve(pid + "/status"))) {
            if (line.startsWith("Cpus_allowed_list:")) {
                return line.substring("Cpus_allowed_list:".length()).strip();
            }
        }
        throw new AssertionError("no Cpus_allowed_list for " + pid);
    }

    private void write(int irq, String cpus) {
        try {
            Files.writeString(paths.smpAffinityList(irq), cpus + "\n");
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
