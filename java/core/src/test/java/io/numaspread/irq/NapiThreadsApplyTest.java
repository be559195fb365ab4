// SPDX-License-Identifier: Apache-2.0
package io.numaspread.irq;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.numaspread.CpuSet;
import io.numaspread.NumaspreadException;
import io.numaspread.kernel.Errno;
import io.numaspread.kernel.ErrnoException;
import io.numaspread.kernel.InterfaceName;
import io.numaspread.kernel.KernelFiles;
import io.numaspread.nic.NapiInstance;
import io.numaspread.nic.NapiMap;
import io.numaspread.nic.NapiSource;
import io.numaspread.nic.Nic;
import io.numaspread.nic.NicDiscovery;
import io.numaspread.nic.PerNapiThreaded;
import io.numaspread.plan.Mode;
import io.numaspread.plan.Planner;
import io.numaspread.plan.Purpose;
import io.numaspread.plan.SpreadPlan;
import io.numaspread.testing.MachineShape;
import io.numaspread.testing.NicFixture;
import io.numaspread.testing.StandInNicTest;
import io.numaspread.testing.SysfsFixture;
import io.numaspread.topology.Topology;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code apply --napi-threads} as one transaction with the IRQs, on a four-queue i40e NIC of the mana machine
 * (8 CPUs) with threaded NAPI off and one {@code napi/eth0-ID} kernel thread per queue, each allowed on 0-7. The
 * tree stands in for the kernel only where a real one cannot fail on demand: {@code sched_setaffinity} is a
 * function here that rewrites {@code Cpus_allowed_list}, and fails when told to. The real kernel's behaviour is
 * checked in the 6.12 guest.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class NapiThreadsApplyTest extends StandInNicTest {
    private static final InterfaceName ETH0 = new InterfaceName("eth0");
    private static final int FIRST_PID = 700;
    private static final PlacementOptions NAPI_THREADS = new PlacementOptions(false, false, true);

    private Nic nic;
    private SpreadPlan plan;
    private Path threaded;
    private final List<Integer> pinned = new ArrayList<>();
    private int failAtPin = -1;
    private Map<Integer, Integer> netlinkPids = Map.of();

    @BeforeEach
    void nic() {
        Topology mana = SysfsFixture.topology(MachineShape.mana(), sys);
        nic = NicDiscovery.discover(ETH0, paths);
        plan = Planner.plan(mana, nic.planRequest(mana, Purpose.IRQS).withMode(Mode.SIBLINGS));
        threaded = paths.netDevice(ETH0).resolve("threaded");
        NicFixture.file(threaded, "0");
        for (int queue = 0; queue < 4; queue++) {
            NicFixture.task(proc, FIRST_PID + queue, "napi/eth0-" + (8193 + queue), true, "0-7");
        }
        // A process may call itself anything; only a kernel thread is a NAPI thread.
        NicFixture.task(proc, 4242, "napi/eth0-8194", false, "0-7");
    }

    /** The stand-in for sched_setaffinity: the kernel would update Cpus_allowed_list. */
    private void setAffinity(int pid, CpuSet cpus) throws IOException {
        pinned.add(pid);
        if (pinned.size() == failAtPin) {
            throw new ErrnoException("sched_setaffinity", proc.resolve(Integer.toString(pid)), Errno.EINVAL.number());
        }
        NicFixture.threadAffinity(proc, pid, cpus.toString());
    }

    private NapiMap map() {
        List<NapiInstance> instances = new ArrayList<>();
        for (int queue = 0; queue < 4; queue++) {
            Integer pid = netlinkPids.get(8193 + queue);
            instances.add(new NapiInstance(
                    8193 + queue,
                    OptionalInt.of(queue),
                    OptionalInt.of(50 + queue),
                    pid == null ? OptionalInt.empty() : OptionalInt.of(pid)));
        }
        return new NapiMap(ETH0, instances, NapiSource.NETLINK, "netdev netlink queue-get and napi-get");
    }

    private NicPlacement.Outcome apply(boolean dryRun) {
        return placement(new NicPlacement.NapiAccess(this::map, this::setAffinity, PerNapiThreaded.NONE))
                .apply(nic, Wanted.plan(plan), new NicPlacement.Options(NAPI_THREADS, dryRun));
    }

    private NicPlacement placement(NicPlacement.NapiAccess access) {
        return new NicPlacement(
                paths, KernelFiles.DIRECT, Optional.of(iface -> access), NicPlacement.StateLocation.file(state));
    }

    private AffinityTransaction restorer() {
        return new AffinityTransaction(
                paths, KernelFiles.DIRECT, 8, new NapiThreads(paths, KernelFiles.DIRECT, this::setAffinity, Map.of()));
    }

    private String threadAffinity(int pid) throws IOException {
        for (String line : Files.readAllLines(proc.resolve(pid + "/status"))) {
            if (line.startsWith("Cpus_allowed_list:")) {
                return line.substring("Cpus_allowed_list:".length()).strip();
            }
        }
        throw new AssertionError("no Cpus_allowed_list for " + pid);
    }

    private List<String> threadAffinities() throws IOException {
        List<String> all = new ArrayList<>();
        for (int queue = 0; queue < 4; queue++) {
            all.add(threadAffinity(FIRST_PID + queue));
        }
        return all;
    }

    @Test
    void turnsThreadedOnPinsEachQueuesThreadWithItsIrqAndRestorePutsBothBack() throws IOException {
        NicPlacement.Outcome outcome = apply(false);

        assertEquals("1", Files.readString(threaded).strip());
        List<String> planned = List.of("0-1", "2-3", "0-1", "2-3");
        assertEquals(planned, threadAffinities());
        assertEquals(planned, List.of(affinity(50), affinity(51), affinity(52), affinity(53)));
        assertEquals("0-7", threadAffinity(4242), "a process named like a NAPI thread is left alone");
        assertTrue(
                outcome.results().stream()
                        .anyMatch(r -> r.target().equals(Target.napiThread(ETH0, 8196))
                                && r.status() == AffinityTransaction.Status.CHANGED),
                outcome.results().toString());
        assertEquals(
                Optional.of(new NicPlacement.Threading(NicPlacement.ThreadingWay.DEVICE, List.of(), threaded, true)),
                outcome.threading(),
                "a kernel whose napi-get reports no per-NAPI threaded: the device's switch, set from 0 to 1");

        StateFile.State saved = StateFile.read(state).orElseThrow();
        assertEquals(OptionalInt.of(0), saved.record(ThreadedRecord.class).before());
        assertEquals(
                "0-7", saved.find(Target.napiThread(ETH0, 8193)).orElseThrow().value());

        List<AffinityTransaction.Result> restored = restorer().restore(state, Optional.of(ETH0));
        assertEquals(List.of("0-7", "0-7", "0-7", "0-7"), threadAffinities());
        assertEquals("0", Files.readString(threaded).strip());
        assertFalse(Files.exists(state));
        assertEquals(
                8,
                restored.stream()
                        .filter(r -> r.status() == AffinityTransaction.Status.RESTORED)
                        .count());
    }

    @Test
    void aNetlinkPidIsUsedOnlyWhenItsCommNamesTheThread() throws IOException {
        // 4242 is a process, not the kernel thread; 702 really is NAPI 8195's.
        netlinkPids = Map.of(8194, 4242, 8195, 702);
        apply(false);
        assertEquals("0-7", threadAffinity(4242));
        assertEquals(List.of("0-1", "2-3", "0-1", "2-3"), threadAffinities());
    }

    /**
     * Linux 7.3's igb re-creates a threaded NAPI's thread at {@code ethtool -L} before the NAPI has its ID back, so
     * it is named napi/eth0-0: napi-get's PID finds it; the name alone does not.
     */
    @Test
    void aNetlinkPidOfAThreadStartedBeforeItsNapiHadItsIdIsUsed() throws IOException {
        deleteTask(FIRST_PID + 1);
        NicFixture.task(proc, 901, "napi/eth0-0", true, "0-7");
        NicFixture.task(proc, 902, "napi/eth0-0", true, "0-7");
        netlinkPids = Map.of(8194, 901);
        NicFixture.file(threaded, "1");
        apply(false);
        assertEquals("2-3", threadAffinity(901));
        assertEquals("0-7", threadAffinity(902), "napi-get gives no NAPI this thread");
    }

    @Test
    void aFailedPinRollsBackTheThreadsTheIrqsAndThreaded() throws IOException {
        Map<Path, String> before = NicFixture.snapshot(proc, sys);
        failAtPin = 6; // four probes (each sets the affinity a thread has), the first thread, then the second
        NumaspreadException e = assertThrows(NumaspreadException.class, () -> apply(false));
        assertEquals(NumaspreadException.Kind.ROLLED_BACK, e.kind());
        assertTrue(
                e.getMessage().contains("napi/eth0-8194")
                        && e.getMessage().contains("EINVAL")
                        && e.getMessage().contains("rolled back"),
                e.getMessage());
        assertEquals(before, NicFixture.snapshot(proc, sys), "every IRQ, thread and threaded as it was");
        assertFalse(Files.exists(state), "the run created the state file and put everything back");
    }

    @Test
    void noNapiLinkedToAQueueIsRefusedBeforeThreadedIsTouched() throws IOException {
        Map<Path, String> before = NicFixture.snapshot(proc, sys);
        NumaspreadException e = assertThrows(
                NumaspreadException.class,
                () -> placement(new NicPlacement.NapiAccess(
                                () -> new NapiMap(ETH0, List.of(), NapiSource.INTERRUPTS, "no netdev family"),
                                this::setAffinity,
                                PerNapiThreaded.NONE))
                        .apply(nic, Wanted.plan(plan), new NicPlacement.Options(NAPI_THREADS, false)));
        assertEquals(NumaspreadException.Kind.REFUSED, e.kind());
        assertTrue(
                e.getMessage().contains("napi-get (Linux 6.8 or later)")
                        && e.getMessage().endsWith("nothing was changed"),
                e.getMessage());
        assertEquals(before, NicFixture.snapshot(proc, sys));
        assertFalse(Files.exists(state));
    }

    @Test
    void aMapThatLosesItsQueuesOnceThreadedIsOnIsRefusedAndThreadedIsPutBack() throws IOException {
        Map<Path, String> before = NicFixture.snapshot(proc, sys);
        AtomicInteger calls = new AtomicInteger();
        NapiFeatureFailure e = assertThrows(
                NapiFeatureFailure.class,
                () -> placement(new NicPlacement.NapiAccess(
                                () -> calls.incrementAndGet() == 1
                                        ? map()
                                        : new NapiMap(ETH0, List.of(), NapiSource.INTERRUPTS, "no netdev family"),
                                this::setAffinity,
                                PerNapiThreaded.NONE))
                        .apply(nic, Wanted.plan(plan), new NicPlacement.Options(NAPI_THREADS, false)));
        assertEquals(NumaspreadException.Kind.REFUSED, e.kind());
        assertEquals(NapiFeatureFailure.Feature.NAPI_THREADS, e.feature(), "the refusal stays the feature's");
        assertTrue(
                e.getMessage().startsWith("cannot tell which NAPI thread serves which queue of eth0")
                        && e.getMessage().endsWith(threaded + " is 0 again; nothing else was changed"),
                e.getMessage());
        assertEquals(before, NicFixture.snapshot(proc, sys));
        assertFalse(Files.exists(state));
    }

    @Test
    void withoutTheThreadedFileItIsRefusedNamingIt() throws IOException {
        Files.delete(threaded);
        Map<Path, String> before = NicFixture.snapshot(proc, sys);
        NapiFeatureFailure e = assertThrows(NapiFeatureFailure.class, () -> apply(false));
        assertEquals(NumaspreadException.Kind.REFUSED, e.kind());
        assertEquals(NapiFeatureFailure.Feature.NAPI_THREADS, e.feature());
        assertTrue(
                e.getMessage().startsWith(threaded + " is missing")
                        && e.getMessage().contains("5.12"),
                e.getMessage());
        assertEquals(before, NicFixture.snapshot(proc, sys));
    }

    @Test
    void aDryRunWithThreadedOffChangesNothingAndSaysSo() throws IOException {
        Map<Path, String> before = NicFixture.snapshot(proc, sys);
        NicPlacement.Outcome outcome = apply(true);
        assertEquals(before, NicFixture.snapshot(proc, sys));
        assertEquals(
                Optional.of(new NicPlacement.Threading(NicPlacement.ThreadingWay.DEVICE, List.of(), threaded, true)),
                outcome.threading(),
                "it would set the device's switch from 0 to 1");
        assertTrue(pinned.isEmpty());
    }

    @Test
    void withThreadedAlreadyOnItIsNeitherRecordedNorTurnedOff() throws IOException {
        NicFixture.file(threaded, "1");
        apply(false);
        assertEquals(
                OptionalInt.empty(),
                StateFile.read(state).orElseThrow().record(ThreadedRecord.class).before());
        restorer().restore(state, Optional.of(ETH0));
        assertEquals("1", Files.readString(threaded).strip());
        assertEquals(List.of("0-7", "0-7", "0-7", "0-7"), threadAffinities());
    }

    @Test
    void aRecreatedThreadIsFoundByNameAndAGoneOneIsReported() throws IOException {
        apply(false);
        // The driver reset: NAPI 8193's thread is back under a new PID, allowed anywhere; 8196's is gone.
        deleteTask(FIRST_PID);
        NicFixture.task(proc, 900, "napi/eth0-8193", true, "2-3");
        deleteTask(FIRST_PID + 3);

        List<AffinityTransaction.Result> results = restorer().restore(state, Optional.of(ETH0));
        assertEquals("0-7", threadAffinity(900));
        AffinityTransaction.Result gone = results.stream()
                .filter(r -> r.target().equals(Target.napiThread(ETH0, 8196)))
                .findFirst()
                .orElseThrow();
        assertEquals(AffinityTransaction.Status.GONE, gone.status());
        assertTrue(gone.detail().contains("no kernel thread napi/eth0-8196"), gone.detail());
        assertEquals("0", Files.readString(threaded).strip());
    }

    private void deleteTask(int pid) throws IOException {
        Path dir = proc.resolve(Integer.toString(pid));
        for (String file : List.of("comm", "stat", "status")) {
            Files.delete(dir.resolve(file));
        }
        Files.delete(dir);
    }
}
