// SPDX-License-Identifier: Apache-2.0
package io.numaspread.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.numaspread.CpuSet;
import io.numaspread.NumaspreadException;
import io.numaspread.irq.AffinityTransaction.Status;
import io.numaspread.irq.Irqbalance;
import io.numaspread.irq.IrqbalanceConflict;
import io.numaspread.irq.Target;
import io.numaspread.kernel.InterfaceName;
import io.numaspread.testing.NicFixture;
import io.numaspread.watch.KernelEvent;
import io.numaspread.watch.NicSnapshot;
import io.numaspread.watch.WatchEvent;
import io.numaspread.watch.Writers;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** watch's lines, as the checks in scripts/ and the README grep them, from the watcher's events. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class WatchPrinterTest {
    private static final InterfaceName ETH0 = new InterfaceName("eth0");
    private static final Target IRQ_51 = Target.irq(51, "i40e-eth0-TxRx-1");
    private static final KernelEvent CPU5_ONLINE = new KernelEvent("uevent", "cpu5 online", Optional.empty());
    private static final Map<Integer, String> VECTORS =
            Map.of(38, "virtio0-input.0", 39, "virtio0-output.0", 40, "virtio0-input.1", 41, "virtio0-output.1");
    private static final NicSnapshot BEFORE = new NicSnapshot(
            CpuSet.parse("0-7"),
            CpuSet.EMPTY,
            VECTORS,
            2,
            List.of(CpuSet.parse("4-5"), CpuSet.parse("6-7")),
            List.of());
    private static final Map<Status, Integer> COUNTS = Map.of(Status.UNCHANGED, 2, Status.CHANGED, 6);
    private static final Instant UNTIL = Instant.parse("2026-12-01T12:00:00Z");

    private static String line(WatchEvent event) {
        return WatchPrinter.line(event).orElseThrow(() -> new AssertionError("no line for " + event));
    }

    @Test
    void theStartAndTheRestore() {
        assertEquals(
                "applied eth0: 6 changed, 2 unchanged; state file /run/numaspread/eth0.json",
                line(new WatchEvent.Applied(ETH0, COUNTS, Path.of("/run/numaspread/eth0.json"))));
        assertEquals(
                "restored eth0: 7 of 8 values put back from /run/numaspread/eth0.json; removed it",
                line(new WatchEvent.Restored(ETH0, 7, 8, Path.of("/run/numaspread/eth0.json"))));
        assertEquals(
                "restore eth0: nothing to put back (no state file /run/numaspread/eth0.json)",
                line(new WatchEvent.NothingToRestore(ETH0, Path.of("/run/numaspread/eth0.json"), false)));
        assertEquals(
                "restore eth0: nothing to put back (the kernel discarded every recorded IRQ)",
                line(new WatchEvent.NothingToRestore(ETH0, Path.of("/run/numaspread/eth0.json"), true)));
        assertEquals("FAILED restore eth0: no privilege", line(new WatchEvent.RestoreFailed(ETH0, "no privilege")));
    }

    @Test
    void aMemberJoiningOrLeavingTheBondFollowed() {
        InterfaceName eth1 = new InterfaceName("eth1");
        KernelEvent bond = new KernelEvent("rtnetlink", "bond0 RTM_NEWLINK", Optional.of("bond0"));
        assertEquals(
                "joined eth1: member of bond0 (bond), via bond0.100 now after rtnetlink bond0 RTM_NEWLINK; watched,"
                        + " planned with the others",
                line(new WatchEvent.Joined(eth1, "member of bond0 (bond), via bond0.100", List.of(bond))));
        assertEquals(
                "left eth1: no longer under bond0.100; no longer watched, restored eth1: 4 of 4 values put back from"
                        + " /run/numaspread/eth1.json; removed it",
                line(new WatchEvent.Left(
                        eth1,
                        "bond0.100",
                        new WatchEvent.Restored(eth1, 4, 4, Path.of("/run/numaspread/eth1.json")),
                        List.of())));
    }

    @Test
    void aChangeNamesEachDifferenceAndTheEventsAfterWhichItCame() {
        NicSnapshot after = new NicSnapshot(
                CpuSet.parse("0-4,6-7"),
                CpuSet.parse("2-3"),
                Map.of(50, "virtio0-input.0", 51, "virtio0-output.0", 52, "virtio0-input.1", 60, "virtio0-output.1"),
                1,
                List.of(CpuSet.parse("4"), CpuSet.parse("6-7")),
                List.of());
        assertEquals(
                "changed eth0: CPUs online 0-7 -> 0-4,6-7, exclusive CPUs none -> 2-3, active queues 2 -> 1,"
                        + " queue IRQs 38-41 -> 50-52,60 after uevent cpu5 online; planned again: 6 changed, 2 unchanged",
                line(new WatchEvent.Changed(ETH0, Optional.of(BEFORE), after, List.of(CPU5_ONLINE), COUNTS)));
        assertEquals(
                "changed eth0: eth0 is back; planned again: 6 changed, 2 unchanged",
                line(new WatchEvent.Changed(ETH0, Optional.empty(), after, List.of(), COUNTS)));
    }

    /** A link going down and up that left every file of the plan as it was (igb keeps its vectors across it). */
    @Test
    void aPlacementTheKernelKeptIsKeptNotDriftOrAReset() {
        KernelEvent down = new KernelEvent("rtnetlink", "eth0 RTM_NEWLINK (down)", Optional.of("eth0"));
        KernelEvent up = new KernelEvent("rtnetlink", "eth0 RTM_NEWLINK (up)", Optional.of("eth0"));
        List<Target> held = List.of(IRQ_51, Target.irq(52, "i40e-eth0-TxRx-2"), Target.xps(ETH0, 1));
        assertEquals(
                "kept eth0: 2 IRQs and 1 xps_cpus still hold the plan after rtnetlink eth0 RTM_NEWLINK (down),"
                        + " rtnetlink eth0 RTM_NEWLINK (up); the kernel kept them, nothing written",
                line(new WatchEvent.Kept(ETH0, held, List.of(down, up))));
        assertEquals("1 IRQ", WatchPrinter.held(List.of(IRQ_51)));
    }

    /** After ethtool -L: one busy-poll NAPI set again (a new one), one pinned again, one the kernel kept. */
    @Test
    void eachBusyPollNapiSaysWhatTheCheckDidToIt() {
        KernelEvent channels = new KernelEvent("uevent", "eth0 queues changed", Optional.of("eth0"));
        assertEquals(
                "busy poll eth0: NAPI 8201 set to threaded 2 (busy-poll), napi/eth0-8201 pinned to CPU 6;"
                        + " NAPI 8194 still threaded 2, napi/eth0-8194 pinned again to CPU 4 (a new thread);"
                        + " NAPI 8195 kept: threaded 2, napi/eth0-8195 on CPU 2, nothing written after uevent eth0"
                        + " queues changed",
                line(new WatchEvent.BusyPoll(
                        ETH0,
                        List.of(
                                new WatchEvent.PolledNapi(8201, 6, WatchEvent.PollAction.SET),
                                new WatchEvent.PolledNapi(8194, 4, WatchEvent.PollAction.PINNED),
                                new WatchEvent.PolledNapi(8195, 2, WatchEvent.PollAction.KEPT)),
                        List.of(channels))));
    }

    @Test
    void aPlanThatChangedAloneOrRenamedVectorsAreNamed() {
        NicSnapshot replanned = new NicSnapshot(
                BEFORE.online(),
                BEFORE.keptFree(),
                VECTORS,
                2,
                List.of(CpuSet.parse("4"), CpuSet.parse("6")),
                List.of());
        assertEquals(List.of("plan [4-5, 6-7] -> [4, 6]"), WatchPrinter.changes(BEFORE, replanned));
        NicSnapshot renamed = new NicSnapshot(
                BEFORE.online(),
                BEFORE.keptFree(),
                Map.of(38, "virtio1-input.0", 39, "virtio1-output.0", 40, "virtio1-input.1", 41, "virtio1-output.1"),
                2,
                BEFORE.plan(),
                List.of());
        assertEquals(List.of("queue vectors renamed"), WatchPrinter.changes(BEFORE, renamed));
        NicSnapshot pollMoved = new NicSnapshot(
                BEFORE.online(),
                BEFORE.keptFree(),
                VECTORS,
                2,
                List.of(CpuSet.parse("4"), CpuSet.parse("5")),
                List.of(6));
        assertEquals(List.of("poll CPUs [] -> [6]"), WatchPrinter.changes(BEFORE, pollMoved));
        assertEquals(List.of(), WatchPrinter.changes(BEFORE, BEFORE));
        assertEquals("none", WatchPrinter.irqs(Map.of()));
        assertEquals("7", WatchPrinter.irqs(Map.of(7, "a")));
    }

    @Test
    void filesPutBackAfterADriftOrAReset() {
        List<WatchEvent.Moved> moved = List.of(
                new WatchEvent.Moved(IRQ_51, "4-7", CpuSet.parse("2-3")),
                new WatchEvent.Moved(Target.xps(ETH0, 1), "f0", CpuSet.parse("2-3")));
        assertEquals(
                "drift eth0: IRQ 51 (i40e-eth0-TxRx-1) was 4-7, plan 2-3; eth0 tx-1 xps_cpus was 4-7, plan 2-3"
                        + " (found by the drift check); put back",
                line(new WatchEvent.DriftPutBack(ETH0, moved)));
        assertEquals(
                "reset eth0: IRQ 51 (i40e-eth0-TxRx-1) was 4-7, plan 2-3 (found on a recheck after events);"
                        + " put back",
                line(new WatchEvent.ResetPutBack(ETH0, moved.subList(0, 1), List.of())));
        List<KernelEvent> five = IntStream.range(0, 5)
                .mapToObj(i -> new KernelEvent("uevent", "eth0 queue rx-" + i + " remove", Optional.of("eth0")))
                .toList();
        assertEquals(
                "reset eth0: IRQ 51 (i40e-eth0-TxRx-1) was 4-7, plan 2-3 after uevent eth0 queue rx-0 remove,"
                        + " uevent eth0 queue rx-1 remove, uevent eth0 queue rx-2 remove and 2 more events; put back",
                line(new WatchEvent.ResetPutBack(ETH0, moved.subList(0, 1), five)));
        assertEquals(Optional.empty(), WatchPrinter.line(new WatchEvent.DriftFound(ETH0, List.of(IRQ_51))));
    }

    @Test
    void aFightNamesTheWritersAndHowToEndIt() {
        assertEquals(
                "FIGHT eth0: IRQ 51 (i40e-eth0-TxRx-1) was moved back to 4-7 3 times in 1.2 s by irqbalance"
                        + " (pid 412); round 1: leaving it alone for 0.6 s (at most 6 s between tries); to end it, stop"
                        + " irqbalance (systemctl stop irqbalance) or ban IRQ 51 (IRQBALANCE_ARGS=--banirq=51)",
                line(fight(1, List.of(Writers.Writer.irqbalance(412)))));
        String loop = "bash -c while true; do echo 4-7 > /proc/irq/51/smp_affinity_list; sleep 0.02; done; echo "
                + "and a long tail";
        assertEquals(
                "FIGHT eth0: IRQ 51 (i40e-eth0-TxRx-1) was moved back again after the plan was retried by pid"
                        + " 977 (" + loop.substring(0, 97) + "...); round 2: leaving it alone for 0.6 s (at most 6 s"
                        + " between tries); to end it, stop that writer, or stop numaspread watch if its placement is the"
                        + " one you want",
                line(fight(2, List.of(Writers.Writer.process(977, loop)))));
        assertEquals(
                "FIGHT eth0: IRQ 51 (i40e-eth0-TxRx-1) was moved back to 4-7 3 times in 1.2 s by an unknown"
                        + " writer (not irqbalance; look for tuned, a vendor's set_irq_affinity script or another"
                        + " numaspread); round 1: leaving it alone for 0.6 s (at most 6 s between tries); to end it, stop"
                        + " that writer, or stop numaspread watch if its placement is the one you want",
                line(fight(1, List.of())));
        assertEquals(
                "fight over eth0: IRQ 51 (i40e-eth0-TxRx-1) has kept the plan for 1.2 s",
                line(new WatchEvent.FightOver(ETH0, IRQ_51, Optional.of(Duration.ofMillis(1200)))));
        assertEquals(
                Optional.empty(),
                WatchPrinter.line(new WatchEvent.FightOver(ETH0, IRQ_51, Optional.empty())),
                "a change ended it, and that change has its line");
    }

    private static WatchEvent.FightRound fight(int round, List<Writers.Writer> writers) {
        return new WatchEvent.FightRound(
                ETH0,
                IRQ_51,
                "4-7",
                round,
                3,
                Duration.ofMillis(1200),
                Duration.ofMillis(600),
                UNTIL,
                Duration.ofSeconds(6),
                writers);
    }

    /** The line scripts/vm-checks-watch-kubelet looks for. */
    @Test
    void anUnreadableKubeletFileSaysWhichCpusAreKeptFree() {
        assertEquals(
                "kubelet: /var/lib/kubelet/cpu_manager_state is not the kubelet's CPU state: not a JSON object;"
                        + " keeping CPUs 2-5,7 free meanwhile",
                line(new WatchEvent.KeptFreeUnreadable(
                        ETH0,
                        "/var/lib/kubelet/cpu_manager_state is not the kubelet's CPU state: not a JSON object",
                        CpuSet.parse("2-5,7"))));
    }

    /** An irqbalance that starts after watch fails its re-applies; the line names the way out, as apply's does. */
    @Test
    void anIrqbalanceThatCameUpIsSaidWithTheWayOut(@TempDir Path proc) {
        NicFixture.process(proc, 412, "irqbalance", "/usr/sbin/irqbalance", "--foreground");
        IrqbalanceConflict conflict = assertThrows(
                IrqbalanceConflict.class, () -> Irqbalance.refuseIfRunning(proc, Map.of(51, CpuSet.of(5))));
        assertEquals(
                "FAILED eth0: irqbalance is running (pid 412) and would move IRQs [51] again: stop it (systemctl stop"
                        + " irqbalance), or keep it off these IRQs (IRQBALANCE_ARGS=\"--banirq=51\" in"
                        + " /etc/default/irqbalance, and IRQBALANCE_BANNED_CPULIST for the planned CPUs to keep other"
                        + " IRQs off them), or pass --force after uevent cpu5 online; trying again at each check",
                line(new WatchEvent.Failed(ETH0, conflict, List.of(CPU5_ONLINE))));
    }

    @Test
    void failuresAndAGoneNicAreSaidWithTheEventsAfterWhichTheyCame() {
        assertEquals(
                "FAILED eth0: cannot write /proc/irq/51/smp_affinity_list after uevent cpu5 online; trying again"
                        + " at each check",
                line(new WatchEvent.Failed(
                        ETH0,
                        NumaspreadException.badInput("cannot write /proc/irq/51/smp_affinity_list"),
                        List.of(CPU5_ONLINE))));
        assertEquals(
                "waiting eth0: the topology could not be read (cpu5 has no topology); reading it again at the"
                        + " next check",
                line(new WatchEvent.TopologyUnreadable(ETH0, "cpu5 has no topology", List.of())));
        assertEquals(
                "gone eth0: no such interface after uevent cpu5 online; waiting for it to come back",
                line(new WatchEvent.Gone(ETH0, UNTIL, true, "no such interface", List.of(CPU5_ONLINE))));
        assertEquals(
                Optional.empty(),
                WatchPrinter.line(new WatchEvent.Gone(ETH0, UNTIL, false, "no such interface", List.of())),
                "said once, when it goes");
    }

    @Test
    void napiThreads() {
        Path threaded = Path.of("/sys/class/net/eth0/threaded");
        assertEquals(
                "threaded eth0: /sys/class/net/eth0/threaded was 0; set to 1 and 4 NAPI threads pinned",
                line(new WatchEvent.ThreadedTurnedOn(ETH0, threaded, List.of(), 4, List.of())));
        assertEquals(
                "threaded eth0: /sys/class/net/eth0/threaded was 0 after uevent cpu5 online; set to 1 and 2 NAPI"
                        + " threads pinned",
                line(new WatchEvent.ThreadedTurnedOn(ETH0, threaded, List.of(), 2, List.of(CPU5_ONLINE))));
        assertEquals(
                "threaded eth0: NAPI 8193, 8195 not threaded; turned on per NAPI with netdev netlink napi-set and 4"
                        + " NAPI threads pinned",
                line(new WatchEvent.ThreadedTurnedOn(ETH0, threaded, List.of(8193, 8195), 4, List.of())));
        assertEquals(
                "NAPI threads of eth0 left as they are: 4 NAPIs cannot be matched to 2 rx queues; the IRQs are"
                        + " kept, the threads pinned again once they can be told apart",
                line(new WatchEvent.NapiThreadsLeft(ETH0, "4 NAPIs cannot be matched to 2 rx queues", List.of())));
        assertEquals(Optional.empty(), WatchPrinter.line(new WatchEvent.NapiThreadsPinned(ETH0, 4)));
    }
}
