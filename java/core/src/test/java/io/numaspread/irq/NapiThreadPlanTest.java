// SPDX-License-Identifier: Apache-2.0
package io.numaspread.irq;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.numaspread.CpuSet;
import io.numaspread.NumaspreadException;
import io.numaspread.kernel.InterfaceName;
import io.numaspread.kernel.KernelPaths;
import io.numaspread.nic.NapiInstance;
import io.numaspread.nic.NapiMap;
import io.numaspread.nic.NapiSource;
import io.numaspread.nic.Nic;
import io.numaspread.nic.NicDiscovery;
import io.numaspread.plan.Mode;
import io.numaspread.plan.Planner;
import io.numaspread.plan.PollCore;
import io.numaspread.plan.PollPlan;
import io.numaspread.plan.PollRequest;
import io.numaspread.plan.Purpose;
import io.numaspread.plan.SpreadPlan;
import io.numaspread.testing.MachineShape;
import io.numaspread.testing.NicFixture;
import io.numaspread.testing.SysfsFixture;
import io.numaspread.topology.Topology;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Which CPUs each NAPI thread is planned on: its queue's, the same as the queue's IRQ. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class NapiThreadPlanTest {
    private static final InterfaceName ETH0 = new InterfaceName("eth0");

    @TempDir
    Path sys;

    @TempDir
    Path proc;

    private Nic nic;
    private SpreadPlan plan;

    @BeforeEach
    void nic() {
        NicFixture.i40eOnMana(sys, proc);
        Topology mana = SysfsFixture.topology(MachineShape.mana(), sys);
        nic = NicDiscovery.discover(ETH0, new KernelPaths(proc, sys));
        plan = Planner.plan(mana, nic.planRequest(mana, Purpose.IRQS).withMode(Mode.CPU));
    }

    private static NapiInstance napi(int id, int queue) {
        return new NapiInstance(
                id, queue < 0 ? OptionalInt.empty() : OptionalInt.of(queue), OptionalInt.empty(), OptionalInt.empty());
    }

    @Test
    void eachThreadGetsItsQueuesCpusWhateverOrderTheIdsAreIn() {
        // Queues linked out of ID order, and a transmit-only NAPI linked to no queue.
        NapiMap map = new NapiMap(
                ETH0,
                List.of(napi(8193, 2), napi(8194, 0), napi(8195, 3), napi(8196, 1), napi(8197, -1)),
                NapiSource.NETLINK,
                "netlink");
        List<Setting> settings = NapiThreadPlan.settings(nic, plan, map);
        List<Setting> irqs = IrqPlan.settings(nic, plan, false);
        assertEquals(
                List.of(8194, 8196, 8193, 8195),
                settings.stream().map(s -> s.target().number()).toList());
        for (int queue = 0; queue < 4; queue++) {
            assertEquals(irqs.get(queue).cpus(), settings.get(queue).cpus(), "queue " + queue);
            assertEquals(Target.Kind.NAPI_THREAD, settings.get(queue).target().kind());
        }
        assertEquals("napi/eth0-8194", settings.get(0).target().name());
        assertFalse(settings.stream().anyMatch(s -> s.target().number() == 8197));
        assertTrue(settings.stream().map(Setting::cpus).distinct().count() > 1, "the plan spreads: " + settings);
    }

    @Test
    void aMapThatLinksNoQueueIsRefusedSayingWhy() {
        NapiFeatureFailure unlinked = assertThrows(
                NapiFeatureFailure.class,
                () -> NapiThreadPlan.settings(
                        nic,
                        plan,
                        new NapiMap(
                                ETH0, List.of(napi(8193, -1)), NapiSource.NETLINK_DERIVED, "derived from nothing")));
        assertEquals(NumaspreadException.Kind.REFUSED, unlinked.kind());
        assertEquals(NapiFeatureFailure.Feature.NAPI_THREADS, unlinked.feature());
        assertTrue(
                unlinked.getMessage().contains("links none of its 1 NAPI instances")
                        && unlinked.getMessage().contains("derived from nothing"),
                unlinked.getMessage());
        NumaspreadException down = assertThrows(
                NumaspreadException.class,
                () -> NapiThreadPlan.settings(
                        nic, plan, new NapiMap(ETH0, List.of(), NapiSource.NETLINK_DERIVED, "napi-get gives 0 NAPIs")));
        assertTrue(
                down.getMessage()
                        .contains(
                                "lists no NAPI of it (the kernel lists an interface's NAPIs only while" + " it is up)"),
                down.getMessage());
        NumaspreadException old = assertThrows(
                NumaspreadException.class,
                () -> NapiThreadPlan.settings(
                        nic, plan, new NapiMap(ETH0, List.of(), NapiSource.INTERRUPTS, "/proc/interrupts")));
        assertTrue(old.getMessage().contains("napi-get (Linux 6.8 or later)"), old.getMessage());
    }

    /** Polling on CPUs 10, 11, ... the first {@code queues} queues. */
    private static PollPlan polling(int queues) {
        List<PollCore> cores = new ArrayList<>();
        for (int queue = 0; queue < queues; queue++) {
            cores.add(new PollCore(queue, 10 + queue, 0, OptionalInt.empty(), 0, CpuSet.of(10 + queue)));
        }
        return new PollPlan(PollRequest.of(0, queues), cores, CpuSet.range(10, 9 + queues));
    }

    @Test
    void busyPollingMoreQueuesThanTheNicHasOrAQueueWithoutANapiIsRefusedNamingTheQueue() {
        NapiMap map = new NapiMap(ETH0, List.of(napi(8193, 0), napi(8195, 2)), NapiSource.NETLINK, "napi-get");
        assertEquals(
                List.of(new Setting(Target.napiThread(ETH0, 8193), CpuSet.of(10))),
                NapiThreadPlan.busyPoll(nic, polling(1), map));
        NapiFeatureFailure tooMany =
                assertThrows(NapiFeatureFailure.class, () -> NapiThreadPlan.busyPoll(nic, polling(5), map));
        assertEquals(NumaspreadException.Kind.BAD_INPUT, tooMany.kind());
        assertEquals(NapiFeatureFailure.Feature.BUSY_POLL, tooMany.feature());
        assertEquals("5 queues to busy-poll, but eth0 has 4 queues", tooMany.getMessage());
        NapiFeatureFailure unlinked =
                assertThrows(NapiFeatureFailure.class, () -> NapiThreadPlan.busyPoll(nic, polling(2), map));
        assertEquals(NumaspreadException.Kind.REFUSED, unlinked.kind());
        assertEquals(NapiFeatureFailure.Feature.BUSY_POLL, unlinked.feature());
        assertEquals(
                "cannot tell which NAPI polls queue 1 of eth0 (napi-get; the kernel lists an interface's NAPIs only"
                        + " while it is up); nothing was changed",
                unlinked.getMessage());
    }

    @Test
    void aKernelThreadIsToldByItsFlagsEvenWithParenthesesInItsName() {
        assertTrue(NapiThreads.isKernelThread("712 (napi/eth0-8193) S 2 0 0 0 -1 2129984 0 0"));
        assertFalse(NapiThreads.isKernelThread("4242 (napi/eth0-8193) S 1 4242 4242 0 -1 4194560 0 0"));
        assertFalse(NapiThreads.isKernelThread("4243 (x) 2 0 0 0 -1 2129984) S 1 1 1 0 -1 4194560 0 0"));
        assertFalse(NapiThreads.isKernelThread("garbage"));
        assertEquals(CpuSet.of(1), CpuSet.parse("1"));
    }
}
