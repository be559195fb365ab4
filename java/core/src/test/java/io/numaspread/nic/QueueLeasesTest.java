// SPDX-License-Identifier: Apache-2.0
package io.numaspread.nic;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.numaspread.CpuSet;
import io.numaspread.kernel.InterfaceName;
import io.numaspread.kernel.KernelPaths;
import io.numaspread.netlink.NetdevNetlink;
import io.numaspread.plan.Assignment;
import io.numaspread.plan.Planner;
import io.numaspread.plan.Purpose;
import io.numaspread.plan.SpreadPlan;
import io.numaspread.testing.MachineShape;
import io.numaspread.testing.RecordedLeases;
import io.numaspread.testing.StandInNicTest;
import io.numaspread.testing.Topologies;
import io.numaspread.topology.Topology;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The lease plan's edge over the stand-in i40e eth0 on mana (today: one CPU per queue on node 0) with a leasing
 * kernel's recorded answers ({@link RecordedLeases}): which leased queues move, where, and which stay, with the
 * lessee's CPUs read from a stand-in pod's cpuset cgroup.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class QueueLeasesTest extends StandInNicTest {
    private static final Topology MANA = Topologies.of(MachineShape.mana());

    private Nic nic() {
        return NicDiscovery.discover(new InterfaceName("eth0"), paths);
    }

    private SpreadPlan today(Nic nic) {
        return Planner.plan(MANA, nic.planRequest(MANA, Purpose.IRQS));
    }

    @Test
    void theQueueLeasedIntoAPodGoesToThePodsCpusAndEveryOtherQueueStaysWhereTodaysPlanPutsIt() {
        RecordedLeases.pod(paths, "5-6");
        Nic nic = nic();
        SpreadPlan today = today(nic);

        QueueLeases.Leased leased = QueueLeases.asking(new RecordedLeases()).leased(paths, MANA, nic, today);

        assertEquals(Set.of(1), leased.leases().keySet(), "the dump leases rx 1, and no tx queue");
        int index = nic.planIndex(RecordedLeases.LEASED_QUEUE);
        assertEquals(Set.of(index), leased.plan().moved().keySet());
        assertEquals(Map.of(), leased.plan().kept());
        Assignment moved = leased.plan().assignments().get(index);
        assertTrue(CpuSet.parse("5-6").containsAll(moved.cpus()), "on the pod's CPUs: " + moved);
        assertEquals(index, moved.index());
        for (int i = 0; i < today.size(); i++) {
            if (i != index) {
                assertEquals(today.get(i), leased.plan().assignments().get(i), "plan index " + i);
            }
        }
        assertTrue(leased.plan().plan().candidates().containsAll(moved.cpus()));
        assertEquals(today.request(), leased.plan().plan().request());
    }

    @Test
    void aPodWithoutProcessesKeepsItsQueueWhereTodaysPlanPutsItSayingWhy() {
        Nic nic = nic();
        SpreadPlan today = today(nic);

        QueueLeases.Leased leased = QueueLeases.asking(new RecordedLeases()).leased(paths, MANA, nic, today);

        int index = nic.planIndex(RecordedLeases.LEASED_QUEUE);
        assertEquals(today.assignments(), leased.plan().assignments());
        assertEquals(
                Map.of(index, "no process found for ifindex 4 (queue 1) in netns 5"),
                leased.plan().kept());
    }

    @Test
    void theLiveKernelIsNotAskedOverStandInTrees() {
        Nic nic = nic();
        SpreadPlan today = today(nic);

        QueueLeases.Leased leased = QueueLeases.live(() -> {
                    throw new AssertionError("the backend was asked for stand-in trees");
                })
                .leased(paths, MANA, nic, today);

        assertEquals(Map.of(), leased.leases());
        assertEquals(today, leased.plan().plan());
    }

    @Test
    void aKernelThatCannotLeaseLeavesTodaysPlan() {
        Nic nic = nic();
        SpreadPlan today = today(nic);
        QueueLeases.Kernel unleasing = new QueueLeases.Kernel() {
            @Override
            public List<NetdevNetlink.Queue> queues(KernelPaths trees, InterfaceName iface) {
                return List.of();
            }

            @Override
            public Map<Integer, Long> namespaceIds(KernelPaths trees) {
                throw new AssertionError("namespace ids asked without a lease");
            }
        };

        QueueLeases.Leased leased = QueueLeases.asking(unleasing).leased(paths, MANA, nic, today);

        assertEquals(QueueLeases.Leased.none(today), leased);
    }
}
