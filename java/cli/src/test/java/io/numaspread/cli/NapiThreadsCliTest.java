// SPDX-License-Identifier: Apache-2.0
package io.numaspread.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.numaspread.irq.NicPlacement;
import io.numaspread.kernel.InterfaceName;
import io.numaspread.kernel.SchedPolicy;
import io.numaspread.kernel.ThreadScheduling;
import io.numaspread.testing.NicFixture;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code apply --napi-threads} and the restore of NAPI entries on fake trees (a four-queue i40e NIC on the mana
 * machine): the refusals, and what restore does with recorded threads and {@code threaded} where no live thread
 * may be touched. Pinning real threads is checked in the 6.12 guest.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class NapiThreadsCliTest extends StandInCliTest {
    private Path threaded;

    @BeforeEach
    void nic() {
        threaded = sys.resolve("class/net/eth0/threaded");
    }

    @Test
    void aKernelWithoutThreadedNapiIsRefusedNamingTheFileAndNothingChanges() {
        Map<Path, String> before = NicFixture.snapshot(proc, sys);
        CliRun apply = CliRun.of(withState("apply", "--nic", "eth0", "--napi-threads"));
        assertEquals(Failures.REFUSED, apply.exitCode(), apply.err());
        RestoreCommandTest.assertOneCleanLine(apply);
        assertEquals(
                "numaspread: --napi-threads: " + threaded + " is missing: threaded NAPI needs Linux 5.12 or later and a"
                        + " driver that polls with NAPI; nothing was changed\n",
                apply.err());
        assertEquals(before, NicFixture.snapshot(proc, sys));
        assertFalse(Files.exists(state));
    }

    @Test
    void aStandInTreeIsRefusedBecauseItsPidsAreNoThreadsOfThisMachine() {
        NicFixture.file(threaded, "0");
        NicFixture.task(proc, 700, "napi/eth0-8193", true, "0-7");
        Map<Path, String> before = NicFixture.snapshot(proc, sys);
        for (String[] apply : List.of(
                withState("apply", "--nic", "eth0", "--napi-threads"),
                withState("apply", "--nic", "eth0", "--napi-threads", "--dry-run"))) {
            CliRun result = CliRun.of(apply);
            assertEquals(Failures.BAD_INPUT, result.exitCode(), result.err());
            RestoreCommandTest.assertOneCleanLine(result);
            assertTrue(
                    result.err().contains("--napi-threads and --poll-queues work on the live kernel's NAPI threads"),
                    result.err());
        }
        assertEquals(before, NicFixture.snapshot(proc, sys));
    }

    @Test
    void pollQueuesOnAStandInTreeIsRefusedAfterShowingThePollCoresAndNothingChanges() {
        NicFixture.file(threaded, "0");
        Map<Path, String> before = NicFixture.snapshot(proc, sys);
        CliRun apply = CliRun.of(withState("apply", "--nic", "eth0", "--poll-queues", "1"));
        assertEquals(Failures.BAD_INPUT, apply.exitCode(), apply.err());
        RestoreCommandTest.assertOneCleanLine(apply);
        assertTrue(apply.err().contains("--poll-queues work on the live kernel's NAPI threads"), apply.err());
        assertTrue(apply.out().contains("busy poll: 1 queue, one spinning core each, siblings kept free"), apply.out());
        assertEquals(before, NicFixture.snapshot(proc, sys));
        assertFalse(Files.exists(state));
    }

    @Test
    void pollFlagsAreCheckedBeforeAnything() {
        Map<Path, String> before = NicFixture.snapshot(proc, sys);
        for (Map.Entry<String[], String> bad : Map.of(
                        withState("apply", "--nic", "eth0", "--poll-sibling", "idle"),
                        "--poll-sibling goes with --poll-queues N",
                        withState("apply", "--nic", "eth0", "--poll-queues", "1", "--poll-sibling", "half"),
                        "unknown poll sibling use 'half': idle or shared",
                        withState("apply", "--nic", "eth0", "--poll-queues", "0"),
                        "--poll-queues must be at least 1, not 0",
                        withState("apply", "--nic", "eth0", "--poll-queues", "8"),
                        "so at most")
                .entrySet()) {
            CliRun result = CliRun.of(bad.getKey());
            assertEquals(Failures.BAD_INPUT, result.exitCode(), result.err());
            RestoreCommandTest.assertOneCleanLine(result);
            assertTrue(result.err().contains(bad.getValue()), result.err());
        }
        assertEquals(before, NicFixture.snapshot(proc, sys));
        assertFalse(Files.exists(state));
    }

    @Test
    void pollSchedIsCheckedBeforeAnythingAndNamesTheFlagAndValue() {
        Map<Path, String> before = NicFixture.snapshot(proc, sys);
        for (Map.Entry<String[], String> bad : Map.of(
                        withState("apply", "--nic", "eth0", "--poll-sched", "fifo:10"),
                        "--poll-sched goes with --poll-queues N",
                        withState("apply", "--nic", "eth0", "--poll-queues", "1", "--poll-sched", "fifo"),
                        "--poll-sched \"fifo\": fifo needs a priority, fifo:1 to fifo:99",
                        withState("apply", "--nic", "eth0", "--poll-queues", "1", "--poll-sched", "fifo:100"),
                        "--poll-sched \"fifo:100\": the priority must be a number from 1 to 99",
                        withState("apply", "--nic", "eth0", "--poll-queues", "1", "--poll-sched", "rr:0"),
                        "--poll-sched \"rr:0\": the priority must be a number from 1 to 99",
                        withState("apply", "--nic", "eth0", "--poll-queues", "1", "--poll-sched", "rr:+5"),
                        "--poll-sched \"rr:+5\": the priority must be a number from 1 to 99",
                        withState("apply", "--nic", "eth0", "--poll-queues", "1", "--poll-sched", "other:5"),
                        "--poll-sched \"other:5\": other takes no priority (only fifo and rr do, 1-99)",
                        withState("apply", "--nic", "eth0", "--poll-queues", "1", "--poll-sched", "deadline:1"),
                        "--poll-sched \"deadline:1\": the policy is none of fifo, rr, other, batch and idle",
                        withState("apply", "--nic", "eth0", "--poll-queues", "1", "--poll-sched", "FIFO:10"),
                        "--poll-sched \"FIFO:10\": the policy is none of")
                .entrySet()) {
            CliRun result = CliRun.of(bad.getKey());
            assertEquals(Failures.BAD_INPUT, result.exitCode(), result.err());
            RestoreCommandTest.assertOneCleanLine(result);
            assertTrue(result.err().contains(bad.getValue()), result.err());
        }
        assertEquals(before, NicFixture.snapshot(proc, sys));
        assertFalse(Files.exists(state));
    }

    @Test
    void pollSchedWordsAreTheKernelsPolicies() {
        assertEquals(new ThreadScheduling(SchedPolicy.FIFO, 50), ApplyCommand.parseSchedule("fifo:50"));
        assertEquals(new ThreadScheduling(SchedPolicy.RR, 1), ApplyCommand.parseSchedule("rr:1"));
        assertEquals(new ThreadScheduling(SchedPolicy.FIFO, 99), ApplyCommand.parseSchedule("fifo:99"));
        assertEquals(ThreadScheduling.OTHER, ApplyCommand.parseSchedule("other"));
        assertEquals(new ThreadScheduling(SchedPolicy.BATCH, 0), ApplyCommand.parseSchedule("batch"));
        assertEquals(new ThreadScheduling(SchedPolicy.IDLE, 0), ApplyCommand.parseSchedule("idle"));
        assertEquals("SCHED_FIFO priority 50", ApplyCommand.schedulingWords(ApplyCommand.parseSchedule("fifo:50")));
        assertEquals("SCHED_OTHER", ApplyCommand.schedulingWords(ThreadScheduling.OTHER));
    }

    @Test
    void restorePutsThreadedBackAndReportsAThreadThatIsGone() throws Exception {
        NicFixture.file(threaded, "1");
        writeStateFile(stateWithThreads("0-7"));
        CliRun restore = CliRun.of(withState("restore"));
        assertEquals(0, restore.exitCode(), restore.err());
        assertEquals("0", Files.readString(threaded).strip());
        assertTrue(
                restore.out()
                        .contains("NAPI 8193 thread (napi/eth0-8193)  recorded 0-7  gone (no kernel thread"
                                + " napi/eth0-8193 now"),
                restore.out());
        assertTrue(restore.out().contains(threaded + " put back to 0"), restore.out());
        assertEquals(
                "0-1",
                Files.readString(proc.resolve("irq/50/smp_affinity_list")).strip());
        assertFalse(Files.exists(state));
    }

    @Test
    void aStandInTreesThreadIsNeverPinnedAndTheStateIsKept() throws Exception {
        NicFixture.file(threaded, "1");
        NicFixture.task(proc, 700, "napi/eth0-8193", true, "2");
        writeStateFile(stateWithThreads("0-7"));
        CliRun restore = CliRun.of(withState("restore"));
        assertEquals(Failures.ROLLED_BACK, restore.exitCode(), restore.err());
        RestoreCommandTest.assertOneCleanLine(restore);
        assertTrue(
                restore.err().contains("NAPI 8193 thread (napi/eth0-8193)")
                        && restore.err().contains("pinned only on the live kernel"),
                restore.err());
        assertTrue(Files.readString(proc.resolve("700/status")).contains("Cpus_allowed_list:\t2\n"));
        assertTrue(Files.exists(state));
    }

    private static String stateWithThreads(String threadValue) {
        return "{\"version\": 1, \"interface\": \"eth0\", \"threaded\": 0, \"saved\": [{\"kind\": \"irq\", \"number\": 50,"
                + " \"name\": \"i40e-eth0-TxRx-0\", \"value\": \"0-1\"}, {\"kind\": \"napi\", \"number\": 8193, \"name\":"
                + " \"napi/eth0-8193\", \"value\": \"" + threadValue + "\"}]}\n";
    }

    @Test
    void applySaysInOneLineWhichWayThreadedNapiWasTurnedOn() {
        InterfaceName eth0 = new InterfaceName("eth0");
        assertEquals(
                "threaded NAPI per NAPI: turned on for NAPI 8194, 8195 with netdev netlink napi-set, the device's"
                        + " other NAPIs as they were; restore puts back 0",
                ApplyCommand.threadingLine(
                        eth0,
                        new NicPlacement.Threading(
                                NicPlacement.ThreadingWay.PER_NAPI, List.of(8194, 8195), threaded, false),
                        false));
        assertEquals(
                "threaded NAPI per NAPI: would turn it on for NAPI 8194 with netdev netlink napi-set, the device's"
                        + " other NAPIs as they are",
                ApplyCommand.threadingLine(
                        eth0,
                        new NicPlacement.Threading(NicPlacement.ThreadingWay.PER_NAPI, List.of(8194), threaded, false),
                        true));
        assertEquals(
                "threaded NAPI per NAPI (netdev netlink): the planned NAPIs are threaded already",
                ApplyCommand.threadingLine(
                        eth0,
                        new NicPlacement.Threading(NicPlacement.ThreadingWay.PER_NAPI, List.of(), threaded, false),
                        false));
        String why = ": this kernel's netdev netlink has no per-NAPI threaded (napi-set threaded, Linux 6.17 or later)";
        assertEquals(
                "threaded NAPI through " + threaded + ", which was 0 and is now 1 for every NAPI of eth0 (restore puts"
                        + " back 0)" + why,
                ApplyCommand.threadingLine(
                        eth0,
                        new NicPlacement.Threading(NicPlacement.ThreadingWay.DEVICE, List.of(), threaded, true),
                        false));
        assertEquals(
                "threaded NAPI through " + threaded + ", which is 0: apply would set it to 1, for every NAPI of eth0,"
                        + " and pin the NAPI threads the kernel then starts" + why,
                ApplyCommand.threadingLine(
                        eth0,
                        new NicPlacement.Threading(NicPlacement.ThreadingWay.DEVICE, List.of(), threaded, true),
                        true));
        assertEquals(
                "threaded NAPI through " + threaded + ", already 1 for every NAPI of eth0" + why,
                ApplyCommand.threadingLine(
                        eth0,
                        new NicPlacement.Threading(NicPlacement.ThreadingWay.DEVICE, List.of(), threaded, false),
                        false));
    }
}
