// SPDX-License-Identifier: Apache-2.0
package io.numaspread.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.numaspread.CpuSet;
import io.numaspread.kernel.InterfaceName;
import io.numaspread.kernel.KernelPaths;
import io.numaspread.netlink.NetdevNetlink;
import io.numaspread.netlink.NetdevNetlink.Lease;
import io.numaspread.nic.Nic;
import io.numaspread.nic.NicDiscovery;
import io.numaspread.nic.QueueLeases;
import io.numaspread.plan.LeasePlanner;
import io.numaspread.plan.Planner;
import io.numaspread.plan.Purpose;
import io.numaspread.plan.SpreadPlan;
import io.numaspread.testing.MachineShape;
import io.numaspread.testing.NicFixture;
import io.numaspread.testing.Topologies;
import io.numaspread.topology.Topology;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * irqs' leased-queue lines for a four-queue i40e on the mana machine (one CPU per queue: 0, 2, 1, 3 today) whose
 * rx queues are leased in every way.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class LeaseReportTest {
    private static final int RX = NetdevNetlink.NETDEV_QUEUE_TYPE_RX;

    @Test
    void eachLeasedQueueSaysItsLesseeAndWhereTheLeasePlanPutsIt(@TempDir Path sys, @TempDir Path proc) {
        NicFixture.i40eOnMana(sys, proc);
        Topology mana = Topologies.of(MachineShape.mana());
        Nic nic = NicDiscovery.discover(new InterfaceName("eth0"), new KernelPaths(proc, sys));
        SpreadPlan today = Planner.plan(mana, nic.planRequest(mana, Purpose.IRQS));
        Map<Integer, Lease> leases = Map.of(
                1, new Lease(8, 1, RX, OptionalInt.of(0)),
                2, new Lease(9, 0, RX, OptionalInt.of(1)),
                3, new Lease(10, 0, RX, OptionalInt.empty()),
                7, new Lease(11, 0, RX, OptionalInt.of(0)));
        LeasePlanner.Plan plan = LeasePlanner.plan(
                mana,
                today,
                Map.of(
                        1, new LeasePlanner.Lessee("ifindex 8 (queue 1) in netns 0", CpuSet.parse("4-7")),
                        2, new LeasePlanner.Lessee("ifindex 9 (queue 0) in netns 1", CpuSet.EMPTY)));

        List<LeaseReport.Row> rows = LeaseReport.rows(nic, new QueueLeases.Leased(leases, plan));
        StringWriter text = new StringWriter();
        LeaseReport.print(new PrintWriter(text, true), rows);

        assertEquals("""
                leased rx queues (Linux 7.0+: each on its lessee's CPUs where its processes are found):
                  rx 1 -> ifindex 8 (queue 1) in netns 0: planned on 4, among the lessee's CPUs 4-7
                  rx 2 -> ifindex 9 (queue 0) in netns 1: planned on 1 as without a lease: no process found for \
                ifindex 9 (queue 0) in netns 1
                  rx 3 -> ifindex 10 (queue 0) in the NIC's namespace: planned on 3 as without a lease: no \
                container to follow
                  rx 7 -> ifindex 11 (queue 0) in netns 0: not planned: eth0 has no IRQ for queue 7
                """, text.toString());
        assertEquals(4, LeaseReport.toJson(rows).size());
        assertEquals(
                "planned on 4, among the lessee's CPUs 4-7",
                LeaseReport.toJson(rows).get(0).get("plan").asText());
    }

    @Test
    void noLeasedQueuePrintsNothing() {
        StringWriter text = new StringWriter();
        LeaseReport.print(new PrintWriter(text, true), List.of());
        assertEquals("", text.toString());
    }
}
