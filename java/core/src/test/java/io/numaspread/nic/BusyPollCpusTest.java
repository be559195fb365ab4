// SPDX-License-Identifier: Apache-2.0
package io.numaspread.nic;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.numaspread.CpuSet;
import io.numaspread.NumaspreadException;
import io.numaspread.kernel.InterfaceName;
import io.numaspread.plan.PlanRequest;
import io.numaspread.plan.Planner;
import io.numaspread.plan.PollSibling;
import io.numaspread.testing.MachineShape;
import io.numaspread.testing.Topologies;
import io.numaspread.topology.Topology;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The busy-poll CPUs of a NIC from its NAPIs as napi-get reports them and its threads' affinity. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class BusyPollCpusTest {
    private static final InterfaceName ETH0 = new InterfaceName("eth0");
    private static final Topology MANA = Topologies.of(MachineShape.mana());
    private static final Map<Integer, CpuSet> AFFINITY = Map.of(4242, CpuSet.of(6), 4343, CpuSet.range(0, 7));

    private static NapiInstance napi(int id, int queue, int pid, int threaded) {
        return new NapiInstance(
                id, OptionalInt.of(queue), OptionalInt.empty(), OptionalInt.of(pid), OptionalInt.of(threaded));
    }

    private static BusyPollCpus of(NapiInstance... napis) {
        return BusyPollCpus.of(
                new NapiMap(ETH0, List.of(napis), NapiSource.NETLINK, "stand-in napi-get"), AFFINITY::get);
    }

    @Test
    void aBusyPollThreadOnCpu6ReservesItsCoreOrTheCpuAlone() {
        BusyPollCpus poll = of(napi(8193, 0, 4242, PerNapiThreaded.BUSY_POLL), napi(8194, 1, 4343, 1));
        assertEquals(Map.of(8193, CpuSet.of(6)), poll.byNapi(), "threaded 1 is no busy polling");
        assertEquals(CpuSet.of(6), poll.cpus());
        assertTrue(poll.unreported().isEmpty());
        assertEquals(CpuSet.range(6, 7), poll.reserved(MANA, PollSibling.IDLE));
        assertEquals(CpuSet.of(6), poll.reserved(MANA, PollSibling.SHARED));
        PlanRequest loops = PlanRequest.threads(1, 4);
        CpuSet used = CpuSet.builder().build();
        for (var assignment : Planner.plan(MANA, poll.avoidedBy(MANA, loops, PollSibling.IDLE))
                .assignments()) {
            used = used.union(assignment.cpus());
        }
        assertFalse(used.intersects(CpuSet.range(6, 7)), used.toString());
    }

    @Test
    void noThreadedBusyPollNapiAvoidsNothing() {
        BusyPollCpus poll = of(napi(8193, 0, 4242, 1), napi(8194, 1, 4343, 0));
        assertTrue(poll.byNapi().isEmpty());
        PlanRequest loops = PlanRequest.threads(1, 4);
        assertEquals(loops, poll.avoidedBy(MANA, loops, PollSibling.IDLE));
    }

    @Test
    void aKernelThatCannotSaySaysWhy() {
        BusyPollCpus noNetlink = BusyPollCpus.of(
                new NapiMap(ETH0, List.of(), NapiSource.INTERRUPTS, "kernel 6.1 has no netdev family"), AFFINITY::get);
        assertEquals("kernel 6.1 has no netdev family", noNetlink.unreported().orElseThrow());
        BusyPollCpus noThreaded = BusyPollCpus.of(
                new NapiMap(
                        ETH0,
                        List.of(new NapiInstance(8193, OptionalInt.of(0), OptionalInt.empty(), OptionalInt.of(4242))),
                        NapiSource.NETLINK,
                        "stand-in napi-get of 6.12"),
                AFFINITY::get);
        assertTrue(noThreaded.unreported().orElseThrow().contains("no per-NAPI threaded"));
        assertTrue(noThreaded.byNapi().isEmpty());
    }

    @Test
    void busyPollingOnEveryCpuLeavesNoneForLoopsAndSaysWhich() {
        BusyPollCpus poll = of(napi(8194, 1, 4343, PerNapiThreaded.BUSY_POLL));
        NumaspreadException e = assertThrows(
                NumaspreadException.class, () -> poll.avoidedBy(MANA, PlanRequest.threads(1, 2), PollSibling.SHARED));
        assertEquals(NumaspreadException.Kind.BAD_INPUT, e.kind());
        assertTrue(
                e.getMessage().contains("eth0")
                        && e.getMessage().contains("[8194]")
                        && e.getMessage().contains("CPUs 0-7"),
                e.getMessage());
    }
}
