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
import io.numaspread.kernel.SchedPolicy;
import io.numaspread.kernel.ThreadScheduling;
import io.numaspread.nic.NapiInstance;
import io.numaspread.nic.NapiMap;
import io.numaspread.nic.NapiSource;
import io.numaspread.nic.Nic;
import io.numaspread.nic.NicDiscovery;
import io.numaspread.nic.PerNapiThreaded;
import io.numaspread.plan.Mode;
import io.numaspread.plan.PlanRequest;
import io.numaspread.plan.Planner;
import io.numaspread.plan.PollPlan;
import io.numaspread.plan.PollRequest;
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
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code apply --napi-threads} on a kernel that reports and sets each NAPI's own {@code threaded} through netdev
 * netlink (Linux 6.17): the four-queue i40e NIC of {@link NapiThreadsApplyTest}, plus a fifth NAPI linked to no
 * planned queue. The netlink side is a map standing in for the kernel's per-NAPI values, whose {@code napi-set}
 * fails when told to; the real kernel's answers are checked in the 7.3 guest.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class PerNapiThreadedApplyTest extends StandInNicTest {
    private static final InterfaceName ETH0 = new InterfaceName("eth0");
    private static final int FIRST_PID = 700;
    private static final int UNPLANNED = 8197;
    private static final PlacementOptions NAPI_THREADS = new PlacementOptions(false, false, true);

    private Nic nic;
    private SpreadPlan plan;
    private Path threaded;
    /** The kernel's per-NAPI threaded, by NAPI ID. */
    private final Map<Integer, Integer> kernel = new TreeMap<>();

    private final List<String> calls = new ArrayList<>();
    /** The napi-set call (counted from 1) that fails, with this errno. */
    private int failAtSet = -1;

    private Errno failure = Errno.EINVAL;
    /** Run at the first napi-set that turns a NAPI on, before it takes effect. */
    private Runnable atFirstOn = () -> {};

    private boolean perNapi = true;
    /** The largest threaded napi-set's policy accepts: 2 (busy-poll) from Linux 6.19. */
    private long threadedMaximum = 1;

    private int failAtPin = -1;
    private int pins;

    /** Each thread's scheduling class, by PID, as sched_getscheduler would give it. */
    private final Map<Integer, ThreadScheduling> classes = new TreeMap<>();
    /** The sched_setscheduler call (counted from 1) that fails, with this errno. */
    private int failAtSched = -1;

    private Errno schedFailure = Errno.EINVAL;
    private final List<String> schedCalls = new ArrayList<>();
    /** Run before each sched_setscheduler, failing ones included. */
    private Runnable beforeEachSched = () -> {};

    private final NapiThreads.Scheduler scheduler = new NapiThreads.Scheduler() {
        @Override
        public ThreadScheduling get(int pid) throws IOException {
            ThreadScheduling now = classes.get(pid);
            if (now == null) {
                throw new ErrnoException("sched_getscheduler", Path.of("/proc/" + pid), Errno.ESRCH.number());
            }
            return now;
        }

        @Override
        public void set(int pid, ThreadScheduling scheduling) throws IOException {
            beforeEachSched.run();
            schedCalls.add(pid + "=" + scheduling);
            if (schedCalls.size() == failAtSched) {
                throw new ErrnoException("sched_setscheduler", Path.of("/proc/" + pid), schedFailure.number());
            }
            classes.put(pid, scheduling);
        }
    };

    private final PerNapiThreaded netlink = new PerNapiThreaded() {
        @Override
        public Map<Integer, Integer> read(InterfaceName iface) {
            return perNapi ? Map.copyOf(kernel) : Map.of();
        }

        @Override
        public void write(int napiId, int value) throws IOException {
            calls.add(napiId + "=" + value);
            if (calls.size() == failAtSet) {
                throw new ErrnoException(
                        "netdev napi-set threaded " + value + " of NAPI", Path.of("" + napiId), failure.number());
            }
            if (value == 1 && calls.stream().filter(c -> c.endsWith("=1")).count() == 1) {
                atFirstOn.run();
            }
            kernel.put(napiId, value);
        }

        @Override
        public long threadedMaximum() {
            return threadedMaximum;
        }
    };

    @BeforeEach
    void nic() {
        Topology mana = SysfsFixture.topology(MachineShape.mana(), sys);
        nic = NicDiscovery.discover(ETH0, paths);
        plan = Planner.plan(mana, nic.planRequest(mana, Purpose.IRQS).withMode(Mode.SIBLINGS));
        threaded = paths.netDevice(ETH0).resolve("threaded");
        NicFixture.file(threaded, "0");
        for (int queue = 0; queue < 4; queue++) {
            NicFixture.task(proc, FIRST_PID + queue, "napi/eth0-" + (8193 + queue), true, "0-7");
            kernel.put(8193 + queue, 0);
        }
        kernel.put(8194, 1); // someone turned this one on: it is neither recorded nor turned off
        kernel.put(UNPLANNED, 0);
        for (int queue = 0; queue < 4; queue++) {
            classes.put(FIRST_PID + queue, ThreadScheduling.OTHER);
        }
        classes.put(FIRST_PID + 1, BATCH); // someone set this one: restore puts back exactly this
    }

    private static final ThreadScheduling BATCH = new ThreadScheduling(SchedPolicy.BATCH, 0);
    private static final ThreadScheduling FIFO_10 = new ThreadScheduling(SchedPolicy.FIFO, 10);

    private Map<Integer, ThreadScheduling> classesBefore() {
        return Map.of(
                FIRST_PID,
                ThreadScheduling.OTHER,
                FIRST_PID + 1,
                BATCH,
                FIRST_PID + 2,
                ThreadScheduling.OTHER,
                FIRST_PID + 3,
                ThreadScheduling.OTHER);
    }

    private void setAffinity(int pid, CpuSet cpus) throws IOException {
        if (++pins == failAtPin) {
            throw new ErrnoException("sched_setaffinity", proc.resolve(Integer.toString(pid)), Errno.EINVAL.number());
        }
        NicFixture.threadAffinity(proc, pid, cpus.toString());
    }

    private NapiMap map() {
        List<NapiInstance> instances = new ArrayList<>();
        for (int napiId : kernel.keySet()) {
            instances.add(new NapiInstance(
                    napiId,
                    napiId == UNPLANNED ? OptionalInt.empty() : OptionalInt.of(napiId - 8193),
                    OptionalInt.of(50 + napiId - 8193),
                    OptionalInt.empty(),
                    perNapi ? OptionalInt.of(kernel.get(napiId)) : OptionalInt.empty()));
        }
        return new NapiMap(ETH0, instances, NapiSource.NETLINK, "netdev netlink queue-get and napi-get");
    }

    private NicPlacement.Outcome apply(boolean dryRun) {
        return new NicPlacement(
                        paths,
                        KernelFiles.DIRECT,
                        Optional.of(iface -> new NicPlacement.NapiAccess(this::map, this::setAffinity, netlink)),
                        NicPlacement.StateLocation.file(state))
                .apply(nic, Wanted.plan(plan), new NicPlacement.Options(NAPI_THREADS, dryRun));
    }

    private AffinityTransaction restorer() {
        return new AffinityTransaction(
                paths,
                KernelFiles.DIRECT,
                8,
                new NapiThreads(paths, KernelFiles.DIRECT, this::setAffinity, Map.of(), netlink, scheduler));
    }

    private Map<Integer, Integer> kernelBefore() {
        return Map.of(8193, 0, 8194, 1, 8195, 0, 8196, 0, UNPLANNED, 0);
    }

    @Test
    void turnsOnOnlyThePlannedNapisThatWereOffAndRestorePutsEachBackExactly() throws IOException {
        NicPlacement.Outcome outcome = apply(false);

        assertEquals(Map.of(8193, 1, 8194, 1, 8195, 1, 8196, 1, UNPLANNED, 0), kernel, "the unplanned NAPI is left");
        assertEquals(
                List.of("8193=0", "8193=1", "8195=1", "8196=1"),
                calls,
                "a probe that changes nothing, then one" + " napi-set per NAPI that was off");
        assertEquals("0", Files.readString(threaded).strip(), "the device's switch is not touched");
        assertEquals(
                Optional.of(new NicPlacement.Threading(
                        NicPlacement.ThreadingWay.PER_NAPI, List.of(8193, 8195, 8196), threaded, false)),
                outcome.threading());
        StateFile.State saved = StateFile.read(state).orElseThrow();
        assertEquals(
                Map.of(8193, 0, 8195, 0, 8196, 0),
                saved.record(NapiThreadedRecord.class).before());
        assertEquals(OptionalInt.empty(), saved.record(ThreadedRecord.class).before());
        assertEquals(
                "0-7", saved.find(Target.napiThread(ETH0, 8193)).orElseThrow().value(), "the threads' affinity too");

        restorer().restore(state, Optional.of(ETH0));
        assertEquals(kernelBefore(), kernel);
        assertFalse(Files.exists(state));
    }

    @Test
    void aFailedNapiSetMidwayPutsBackTheNapisTurnedOnAndNamesTheNapi() throws IOException {
        Map<Path, String> files = NicFixture.snapshot(proc, sys);
        failAtSet = 3; // the probe, 8193 on, then 8195
        NumaspreadException e = assertThrows(NumaspreadException.class, () -> apply(false));
        assertEquals(NumaspreadException.Kind.ROLLED_BACK, e.kind());
        assertTrue(
                e.getMessage().startsWith("NAPI 8195: netdev napi-set threaded 1 failed: EINVAL")
                        && e.getMessage()
                                .endsWith("threaded NAPI is off again for NAPI 8193, 8195; nothing else"
                                        + " was changed"),
                e.getMessage());
        assertEquals(kernelBefore(), kernel);
        assertEquals(files, NicFixture.snapshot(proc, sys), "every IRQ and thread as it was");
        assertFalse(Files.exists(state), "the run created the state file and put everything back");
    }

    @Test
    void aFailedPinAfterTheNapisAreOnPutsThemBackWithTheIrqs() throws IOException {
        Map<Path, String> files = NicFixture.snapshot(proc, sys);
        failAtPin = 6; // four probes (each sets the affinity a thread has), the first thread, then the second
        NumaspreadException e = assertThrows(NumaspreadException.class, () -> apply(false));
        assertEquals(NumaspreadException.Kind.ROLLED_BACK, e.kind());
        assertTrue(e.getMessage().contains("napi/eth0-8194") && e.getMessage().contains("rolled back"), e.getMessage());
        assertEquals(kernelBefore(), kernel);
        assertEquals(files, NicFixture.snapshot(proc, sys));
        assertFalse(Files.exists(state));
    }

    @Test
    void withoutCapNetAdminItIsRefusedBeforeAnyChange() throws IOException {
        Map<Path, String> files = NicFixture.snapshot(proc, sys);
        failAtSet = 1;
        failure = Errno.EPERM;
        NumaspreadException e = assertThrows(NumaspreadException.class, () -> apply(false));
        assertEquals(NumaspreadException.Kind.REFUSED, e.kind());
        assertTrue(
                e.getMessage().contains("NAPI 8193")
                        && e.getMessage().contains("CAP_NET_ADMIN")
                        && e.getMessage().endsWith("nothing was changed"),
                e.getMessage());
        assertEquals(kernelBefore(), kernel);
        assertEquals(files, NicFixture.snapshot(proc, sys));
        assertFalse(Files.exists(state));
    }

    @Test
    void aProcessKilledAfterItsFirstNapiSetLeavesAStateFileThatRestoreUndoes() throws IOException {
        atFirstOn = () -> {
            throw new IllegalStateException("killed");
        };
        // The first napi-set that turns a NAPI on is the moment it dies.
        assertThrows(IllegalStateException.class, () -> apply(false));
        kernel.put(8193, 1); // the kernel took the call before the process died
        assertEquals(
                Map.of(8193, 0, 8195, 0, 8196, 0),
                StateFile.read(state)
                        .orElseThrow()
                        .record(NapiThreadedRecord.class)
                        .before(),
                "every NAPI to be turned on was recorded before the first napi-set");

        restorer().restore(state, Optional.of(ETH0));
        assertEquals(kernelBefore(), kernel);
        assertFalse(Files.exists(state));
    }

    @Test
    void aRestoreLeavesANapiThatIsGoneAndPutsBackTheOthers() throws IOException {
        apply(false);
        kernel.remove(8196); // ethtool -L: the queue and its NAPI went
        restorer().restore(state, Optional.of(ETH0));
        assertEquals(Map.of(8193, 0, 8194, 1, 8195, 0, UNPLANNED, 0), kernel);
        assertFalse(Files.exists(state));
    }

    @Test
    void aRestoreWhoseNapiSetFailsKeepsTheStateFileAndNamesTheNapi() throws IOException {
        apply(false);
        failAtSet = calls.size() + 3; // the restore's probe, then 8193 back, then 8195
        NumaspreadException e =
                assertThrows(NumaspreadException.class, () -> restorer().restore(state, Optional.of(ETH0)));
        assertEquals(NumaspreadException.Kind.INCOMPLETE, e.kind());
        assertTrue(e.getMessage().contains("NAPI 8195: netdev napi-set threaded 0 failed: EINVAL"), e.getMessage());
        assertTrue(Files.exists(state));
        failAtSet = -1;
        restorer().restore(state, Optional.of(ETH0));
        assertEquals(kernelBefore(), kernel);
    }

    @Test
    void aDryRunChangesNothingAndNamesTheNapisItWouldTurnOn() throws IOException {
        Map<Path, String> files = NicFixture.snapshot(proc, sys);
        NicPlacement.Outcome outcome = apply(true);
        assertEquals(kernelBefore(), kernel);
        assertEquals(List.of(), calls);
        assertEquals(files, NicFixture.snapshot(proc, sys));
        assertEquals(
                List.of(8193, 8195, 8196), outcome.threading().orElseThrow().turnedOn());
    }

    @Test
    void aKernelWithoutPerNapiThreadedFallsBackToTheDevicesSwitchAndSaysSo() throws IOException {
        perNapi = false;
        NicPlacement.Outcome outcome = apply(false);
        assertEquals(
                NicPlacement.ThreadingWay.DEVICE,
                outcome.threading().orElseThrow().way());
        assertEquals("1", Files.readString(threaded).strip());
        assertEquals(List.of(), calls, "no napi-set on a kernel whose napi-get reports no per-NAPI threaded");
        assertEquals(
                OptionalInt.of(0),
                StateFile.read(state).orElseThrow().record(ThreadedRecord.class).before());
        restorer().restore(state, Optional.of(ETH0));
        assertEquals("0", Files.readString(threaded).strip());
    }

    /** The plan for {@code queues} busy-polled queues of eth0 and its IRQs, with or without the other threads. */
    private NicPlacement.Outcome applyPolled(int queues, boolean napiThreads, boolean dryRun) {
        return applyPolled(queues, napiThreads, dryRun, Optional.empty());
    }

    /** As {@link #applyPolled(int, boolean, boolean)}, the busy-poll threads set to {@code scheduling} if given. */
    private NicPlacement.Outcome applyPolled(
            int queues, boolean napiThreads, boolean dryRun, Optional<ThreadScheduling> scheduling) {
        Topology mana = SysfsFixture.topology(MachineShape.mana(), sys);
        PlanRequest irqs = nic.planRequest(mana, Purpose.IRQS).withMode(Mode.SIBLINGS);
        poll = Planner.poll(mana, PollRequest.of(irqs.origins().get(0), queues), irqs);
        SpreadPlan avoiding = Planner.plan(mana, poll.avoidedBy(irqs));
        return new NicPlacement(
                        paths,
                        KernelFiles.DIRECT,
                        Optional.of(
                                iface -> new NicPlacement.NapiAccess(this::map, this::setAffinity, netlink, scheduler)),
                        NicPlacement.StateLocation.file(state))
                .apply(
                        nic,
                        scheduling
                                .map(wanted -> Wanted.polled(avoiding, poll, wanted))
                                .orElseGet(() -> Wanted.polled(avoiding, poll)),
                        new NicPlacement.Options(new PlacementOptions(false, false, napiThreads), dryRun));
    }

    private PollPlan poll;

    private String threadAffinity(int pid) throws IOException {
        return new NapiThreads(paths, KernelFiles.DIRECT, this::setAffinity, Map.of()).affinity(pid);
    }

    @Test
    void busyPollSetsThreadedTwoPinsEachPollThreadAloneAndKeepsTheIrqsOffThePollCores() throws IOException {
        threadedMaximum = 2;
        NicPlacement.Outcome outcome = applyPolled(2, false, false);

        assertEquals(
                Map.of(8193, 2, 8194, 2, 8195, 0, 8196, 0, UNPLANNED, 0),
                kernel,
                "the polled queues' NAPIs busy-poll, NAPI 8194 from 1; the others are left");
        assertEquals(List.of("8193=0", "8193=2", "8194=2"), calls, "a probe that changes nothing, then napi-set 2");
        assertEquals(Integer.toString(poll.cores().get(0).cpu()), threadAffinity(FIRST_PID));
        assertEquals(Integer.toString(poll.cores().get(1).cpu()), threadAffinity(FIRST_PID + 1));
        assertEquals("0-7", threadAffinity(FIRST_PID + 2), "the unpolled queues' threads are left");
        for (AffinityTransaction.Result result : outcome.results()) {
            if (result.target().kind() == Target.Kind.IRQ) {
                assertFalse(result.planned().intersects(poll.reserved()), result.toString());
            }
        }
        assertEquals(
                Map.of(
                        8193,
                        poll.cores().get(0).cpu(),
                        8194,
                        poll.cores().get(1).cpu()),
                outcome.threading().orElseThrow().busyPolled());
        assertEquals(
                List.of(),
                outcome.threading().orElseThrow().turnedOn(),
                "NAPI 8193 was off, but busy-polls: it is not one turned threaded");
        assertEquals(
                Map.of(8193, 0, 8194, 1),
                StateFile.read(state)
                        .orElseThrow()
                        .record(NapiThreadedRecord.class)
                        .before());

        restorer().restore(state, Optional.of(ETH0));
        assertEquals(kernelBefore(), kernel, "each NAPI's threaded back as it was: 8193 off, 8194 threaded");
        assertEquals("0-7", threadAffinity(FIRST_PID));
        assertFalse(Files.exists(state));
    }

    @Test
    void busyPollWithNapiThreadsPinsThePollThreadToItsPollCpuAndTheOthersToTheirQueues() throws IOException {
        threadedMaximum = 2;
        applyPolled(1, true, false);

        assertEquals(Map.of(8193, 2, 8194, 1, 8195, 1, 8196, 1, UNPLANNED, 0), kernel);
        assertEquals(Integer.toString(poll.cores().get(0).cpu()), threadAffinity(FIRST_PID));
        assertFalse(
                CpuSet.parse(threadAffinity(FIRST_PID + 2)).intersects(poll.reserved()),
                "the other threads follow their IRQs, off the poll core");
        restorer().restore(state, Optional.of(ETH0));
        assertEquals(kernelBefore(), kernel);
    }

    @Test
    void aKernelWithoutBusyPollIsRefusedBeforeAnyChangeNamingItsReleaseAndLinux619() throws IOException {
        NicFixture.file(proc.resolve("sys/kernel/osrelease"), "6.18.44");
        Map<Path, String> files = NicFixture.snapshot(proc, sys);
        NapiFeatureFailure e = assertThrows(NapiFeatureFailure.class, () -> applyPolled(1, false, false));
        assertEquals(NumaspreadException.Kind.REFUSED, e.kind());
        assertEquals(NapiFeatureFailure.Feature.BUSY_POLL, e.feature());
        assertTrue(
                e.getMessage()
                                .startsWith("kernel 6.18.44 has no threaded busy polling: its napi-set"
                                        + " policy bounds threaded at 1")
                        && e.getMessage().contains("Linux 6.19")
                        && e.getMessage().endsWith("nothing was changed"),
                e.getMessage());
        assertEquals(kernelBefore(), kernel);
        assertEquals(List.of(), calls);
        assertEquals(files, NicFixture.snapshot(proc, sys));
        assertFalse(Files.exists(state));
    }

    @Test
    void busyPollWithoutCapNetAdminIsRefusedBeforeAnyChange() throws IOException {
        threadedMaximum = 2;
        Map<Path, String> files = NicFixture.snapshot(proc, sys);
        failAtSet = 1;
        failure = Errno.EPERM;
        NumaspreadException e = assertThrows(NumaspreadException.class, () -> applyPolled(1, false, false));
        assertEquals(NumaspreadException.Kind.REFUSED, e.kind());
        assertTrue(e.getMessage().contains("NAPI 8193") && e.getMessage().contains("CAP_NET_ADMIN"), e.getMessage());
        assertEquals(kernelBefore(), kernel);
        assertEquals(files, NicFixture.snapshot(proc, sys));
        assertFalse(Files.exists(state));
    }

    @Test
    void aFailedNapiSetMidwayPutsEachPolledNapiBackToWhatItWas() throws IOException {
        threadedMaximum = 2;
        Map<Path, String> files = NicFixture.snapshot(proc, sys);
        failAtSet = 3; // the probe, 8193 to 2, then 8194
        NumaspreadException e = assertThrows(NumaspreadException.class, () -> applyPolled(2, false, false));
        assertEquals(NumaspreadException.Kind.ROLLED_BACK, e.kind());
        assertTrue(
                e.getMessage().startsWith("NAPI 8194: netdev napi-set threaded 2 failed: EINVAL")
                        && e.getMessage()
                                .endsWith("NAPI 8193, 8194 are back to threaded 0, 1; nothing else was" + " changed"),
                e.getMessage());
        assertEquals(kernelBefore(), kernel);
        assertEquals(files, NicFixture.snapshot(proc, sys), "every IRQ and thread as it was");
        assertFalse(Files.exists(state));
    }

    @Test
    void aFailedPinOfAPollThreadPutsBackItsThreadedAndTheIrqs() throws IOException {
        threadedMaximum = 2;
        Map<Path, String> files = NicFixture.snapshot(proc, sys);
        failAtPin = 4; // two probes, the first poll thread, then the second
        NumaspreadException e = assertThrows(NumaspreadException.class, () -> applyPolled(2, false, false));
        assertEquals(NumaspreadException.Kind.ROLLED_BACK, e.kind());
        assertTrue(e.getMessage().contains("napi/eth0-8194") && e.getMessage().contains("rolled back"), e.getMessage());
        assertEquals(kernelBefore(), kernel);
        assertEquals(files, NicFixture.snapshot(proc, sys));
        assertFalse(Files.exists(state));
    }

    @Test
    void pollSchedSetsEachPollThreadsClassAfterRecordingItAndRestorePutsBackExactlyWhatItWas() throws IOException {
        threadedMaximum = 2;
        List<Map<Integer, ThreadScheduling>> recordedAtEachSet = new ArrayList<>();
        beforeEachSched = () -> recordedAtEachSet.add(StateFile.read(state)
                .orElseThrow()
                .record(NapiThreadSchedRecord.class)
                .before());
        NicPlacement.Outcome outcome = applyPolled(2, false, false, Optional.of(FIFO_10));

        assertEquals(FIFO_10, classes.get(FIRST_PID));
        assertEquals(FIFO_10, classes.get(FIRST_PID + 1));
        assertEquals(ThreadScheduling.OTHER, classes.get(FIRST_PID + 2), "an unpolled queue's thread is left");
        Map<Integer, ThreadScheduling> recorded = Map.of(8193, ThreadScheduling.OTHER, 8194, BATCH);
        assertEquals(
                List.of(recorded, recorded),
                recordedAtEachSet,
                "every thread's class was in the state file before the first sched_setscheduler");
        assertEquals(Optional.of(FIFO_10), outcome.threading().orElseThrow().pollScheduling());
        assertEquals(Map.of(8193, 2, 8194, 2, 8195, 0, 8196, 0, UNPLANNED, 0), kernel);

        beforeEachSched = () -> {};
        restorer().restore(state, Optional.of(ETH0));
        assertEquals(classesBefore(), classes, "8193 back to SCHED_OTHER, 8194 to SCHED_BATCH");
        assertEquals(kernelBefore(), kernel);
        assertFalse(Files.exists(state));
    }

    @Test
    void aSecondPollSchedApplyChangesNothingAndRestoreStillPutsBackTheFirstClass() throws IOException {
        threadedMaximum = 2;
        applyPolled(1, false, false, Optional.of(FIFO_10));
        int sets = schedCalls.size();
        applyPolled(1, false, false, Optional.of(FIFO_10));
        assertEquals(sets, schedCalls.size(), "a thread that has the class is not set again");
        assertEquals(
                Map.of(8193, ThreadScheduling.OTHER),
                StateFile.read(state)
                        .orElseThrow()
                        .record(NapiThreadSchedRecord.class)
                        .before());
        restorer().restore(state, Optional.of(ETH0));
        assertEquals(classesBefore(), classes);
        assertEquals(kernelBefore(), kernel);
        assertFalse(Files.exists(state));
    }

    @Test
    void anApplyThatOnlySetsAPollThreadsClassRefusesAnotherInterfacesStateFile() throws IOException {
        threadedMaximum = 2;
        applyPolled(1, false, false, Optional.of(FIFO_10));
        classes.put(FIRST_PID, ThreadScheduling.OTHER); // all else holds: only the class is to change
        StateFile.State applied = StateFile.read(state).orElseThrow();
        StateFile.write(state, new StateFile.State(new InterfaceName("eth1"), List.of(), applied.records()));
        NumaspreadException e =
                assertThrows(NumaspreadException.class, () -> applyPolled(1, false, false, Optional.of(FIFO_10)));
        assertEquals(NumaspreadException.Kind.BAD_INPUT, e.kind());
        assertTrue(e.getMessage().endsWith(" is for eth1, not eth0; nothing was changed"), e.getMessage());
        assertEquals(ThreadScheduling.OTHER, classes.get(FIRST_PID));
        assertEquals(applied.records(), StateFile.read(state).orElseThrow().records());
    }

    @Test
    void pollSchedWithoutCapSysNiceLeavesEverythingAsItWasAndSaysWhatItNeeds() throws IOException {
        threadedMaximum = 2;
        Map<Path, String> files = NicFixture.snapshot(proc, sys);
        failAtSched = 1;
        schedFailure = Errno.EPERM;
        NumaspreadException e =
                assertThrows(NumaspreadException.class, () -> applyPolled(2, false, false, Optional.of(FIFO_10)));
        assertEquals(NumaspreadException.Kind.REFUSED, e.kind());
        assertEquals(NapiFeatureFailure.Feature.POLL_SCHEDULING, ((NapiFeatureFailure) e).feature());
        assertTrue(
                e.getMessage()
                                .startsWith("setting napi/eth0-8193 (pid 700) to SCHED_FIFO priority 10"
                                        + " with sched_setscheduler failed: EPERM")
                        && e.getMessage().contains("needs CAP_SYS_NICE")
                        && e.getMessage().endsWith("rolled back: every change was put back, nothing else was touched"),
                e.getMessage());
        assertEquals(classesBefore(), classes);
        assertEquals(kernelBefore(), kernel, "each NAPI's threaded as it was");
        assertEquals(files, NicFixture.snapshot(proc, sys), "every IRQ and thread's affinity as it was");
        assertFalse(Files.exists(state), "the run created the state file and put everything back");
    }

    @Test
    void aFailedSecondSchedPutsTheFirstThreadBackAndRollsBackEveryOtherChange() throws IOException {
        threadedMaximum = 2;
        Map<Path, String> files = NicFixture.snapshot(proc, sys);
        failAtSched = 2; // 8193's thread, then 8194's
        NumaspreadException e =
                assertThrows(NumaspreadException.class, () -> applyPolled(2, false, false, Optional.of(FIFO_10)));
        assertEquals(NumaspreadException.Kind.ROLLED_BACK, e.kind());
        assertEquals(NapiFeatureFailure.Feature.POLL_SCHEDULING, ((NapiFeatureFailure) e).feature());
        assertTrue(
                e.getMessage().startsWith("setting napi/eth0-8194 (pid 701)")
                        && e.getMessage().contains("EINVAL"),
                e.getMessage());
        assertEquals(classesBefore(), classes);
        assertEquals(kernelBefore(), kernel);
        assertEquals(files, NicFixture.snapshot(proc, sys));
        assertFalse(Files.exists(state));
    }

    @Test
    void aThreadThatCannotBePutBackKeepsTheStateFileForRestore() throws IOException {
        threadedMaximum = 2;
        failAtSched = 2; // 8193's thread is set, 8194's fails, and putting back 8194's fails too
        beforeEachSched = () -> {
            if (schedCalls.size() == 2) {
                failAtSched = 3;
            }
        };
        NumaspreadException e =
                assertThrows(NumaspreadException.class, () -> applyPolled(2, false, false, Optional.of(FIFO_10)));
        assertTrue(
                e instanceof RestoreNeeded && e.getMessage().contains("ROLLBACK FAILED for pid 701"), e.getMessage());
        assertEquals(
                Map.of(8193, ThreadScheduling.OTHER, 8194, BATCH),
                StateFile.read(state)
                        .orElseThrow()
                        .record(NapiThreadSchedRecord.class)
                        .before(),
                "the record stays for restore");
        failAtSched = -1;
        beforeEachSched = () -> {};
        restorer().restore(state, Optional.of(ETH0));
        assertEquals(classesBefore(), classes);
        assertEquals(kernelBefore(), kernel);
        assertFalse(Files.exists(state));
    }
}
