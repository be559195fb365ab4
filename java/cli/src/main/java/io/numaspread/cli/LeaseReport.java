// SPDX-License-Identifier: Apache-2.0
package io.numaspread.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.numaspread.netlink.NetdevNetlink;
import io.numaspread.nic.Nic;
import io.numaspread.nic.QueueLeases;
import io.numaspread.plan.Assignment;
import io.numaspread.plan.LeasePlanner;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A NIC's leased rx queues (Linux 7.0+) as {@code irqs} shows them: each one's lessee and where the lease plan
 * puts its IRQ, which is where {@code apply} and {@code watch} put it. Shown only where the kernel names a lease.
 */
final class LeaseReport {
    private LeaseReport() {}

    /** One leased rx queue: its lessee as the NIC's namespace sees it, and what the lease plan does with it. */
    record Row(int queue, String lessee, String outcome) {}

    /** A row per leased queue, by queue. Pure. */
    static List<Row> rows(Nic nic, QueueLeases.Leased leased) {
        LeasePlanner.Plan plan = leased.plan();
        List<Row> rows = new ArrayList<>();
        for (Map.Entry<Integer, NetdevNetlink.Lease> entry : leased.leases().entrySet()) {
            int queue = entry.getKey();
            NetdevNetlink.Lease lease = entry.getValue();
            String lessee = "ifindex " + lease.ifindex() + " (queue " + lease.queue() + ")"
                    + (lease.netnsId().isPresent()
                            ? " in netns " + lease.netnsId().getAsInt()
                            : " in the NIC's namespace");
            String outcome;
            if (!nic.queues().contains(queue)) {
                outcome = "not planned: " + nic.name() + " has no IRQ for queue " + queue;
            } else {
                int index = nic.planIndex(queue);
                Assignment planned = plan.assignments().get(index);
                if (plan.moved().containsKey(index)) {
                    outcome = "planned on " + planned.cpus() + ", among the lessee's CPUs "
                            + plan.moved().get(index).cpus();
                } else if (plan.kept().containsKey(index)) {
                    outcome = "planned on " + planned.cpus() + " as without a lease: "
                            + plan.kept().get(index);
                } else {
                    outcome = "planned on " + planned.cpus() + " as without a lease: no container to follow";
                }
            }
            rows.add(new Row(queue, lessee, outcome));
        }
        return List.copyOf(rows);
    }

    static void print(PrintWriter out, List<Row> rows) {
        if (rows.isEmpty()) {
            return;
        }
        out.println("leased rx queues (Linux 7.0+: each on its lessee's CPUs where its processes are found):");
        for (Row row : rows) {
            out.println("  rx " + row.queue() + " -> " + row.lessee() + ": " + row.outcome());
        }
    }

    /** [{"queue", "lessee", "plan"}]. */
    static ArrayNode toJson(List<Row> rows) {
        ArrayNode array = Json.object().arrayNode();
        for (Row row : rows) {
            ObjectNode entry = array.addObject();
            entry.put("queue", row.queue());
            entry.put("lessee", row.lessee());
            entry.put("plan", row.outcome());
        }
        return array;
    }
}
