// SPDX-License-Identifier: Apache-2.0
package io.numaspread.plan;

import io.numaspread.CpuSet;
import io.numaspread.topology.Topology;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A NIC's IRQ plan with its leased queues (Linux 7.0+) moved onto the CPUs of the container that holds each
 * lessee device. A leased rx queue is filled with the container's memory and read by the container's
 * processes, so its IRQ belongs on their CPUs; the NIC's other queues stay exactly where today's plan puts
 * them. Pure: the lessees' CPUs are read elsewhere ({@code io.numaspread.nic.NamespaceCpus}).
 *
 * <p>The leased queues that share a lessee CPU set are spread over it together, with the NIC's request (its
 * mode, policy and excluded CPUs, and its first origin: near the NIC) less its skipped first slot, which is the
 * host's control IRQ's. A moved queue keeps its index and origin in today's plan.
 */
public final class LeasePlanner {
    private LeasePlanner() {}

    /**
     * The device a queue is leased to and the CPUs the processes that use it may run on.
     *
     * @param device how the report names the lessee ({@code ifindex 8 in netns 0})
     * @param cpus the union of those processes' cpusets; empty when no process was found for it
     */
    public record Lessee(String device, CpuSet cpus) {}

    /**
     * Today's plan with the leased queues moved, and what became of each leased queue.
     *
     * @param plan today's request, with one assignment per plan index of today's plan in its order; a moved
     *     queue's is planned over its lessee's CPUs and keeps its plan index, and its CPUs are among the
     *     candidates
     * @param moved the plan indexes that were moved, each with its lessee
     * @param kept the leased plan indexes left where today's plan puts them, each with why
     */
    public record Plan(SpreadPlan plan, Map<Integer, Lessee> moved, Map<Integer, String> kept) {
        public Plan {
            moved = Map.copyOf(moved);
            kept = Map.copyOf(kept);
        }

        /** Today's plan as it is: no queue of the NIC is leased. */
        public static Plan unleased(SpreadPlan today) {
            return new Plan(today, Map.of(), Map.of());
        }

        public List<Assignment> assignments() {
            return plan.assignments();
        }
    }

    /**
     * Today's plan with each queue of {@code leased} (by plan index) moved onto its lessee's CPUs. With no leased
     * queue it is today's plan unchanged.
     *
     * @throws IllegalArgumentException for a plan index that today's plan does not have
     */
    public static Plan plan(Topology topology, SpreadPlan today, Map<Integer, Lessee> leased) {
        List<Assignment> assignments = new ArrayList<>(today.assignments());
        CpuSet candidates = today.candidates();
        Map<Integer, Lessee> moved = new TreeMap<>();
        Map<Integer, String> kept = new TreeMap<>();
        // in the order of each set's lowest leased plan index
        Map<CpuSet, List<Integer>> byCpus = new LinkedHashMap<>();
        for (Map.Entry<Integer, Lessee> entry : new TreeMap<>(leased).entrySet()) {
            int index = entry.getKey();
            if (index < 0 || index >= assignments.size()) {
                throw new IllegalArgumentException(
                        "plan index " + index + " of a leased queue is not in the plan of " + assignments.size());
            }
            Lessee lessee = entry.getValue();
            if (lessee.cpus().isEmpty()) {
                kept.put(index, "no process found for " + lessee.device());
            } else {
                byCpus.putIfAbsent(lessee.cpus(), new ArrayList<>());
                byCpus.get(lessee.cpus()).add(index);
            }
        }
        PlanRequest nic = today.request();
        PlanRequest base = nic.withOrigins(
                        nic.origins().isEmpty()
                                ? List.of()
                                : List.of(nic.origins().get(0)))
                .withSkipFirst(false);
        for (Map.Entry<CpuSet, List<Integer>> group : byCpus.entrySet()) {
            List<Integer> indexes = group.getValue();
            PlanRequest request = base.withCpus(group.getKey()).withCount(indexes.size());
            if (Planner.candidates(topology, request).isEmpty()) {
                for (int index : indexes) {
                    kept.put(
                            index,
                            "none of " + leased.get(index).device() + "'s CPUs " + group.getKey() + " is online"
                                    + (request.exclude().isEmpty()
                                            ? ""
                                            : " and not excluded (" + request.exclude() + ")"));
                }
                continue;
            }
            SpreadPlan lessees = Planner.plan(topology, request);
            candidates = candidates.union(lessees.candidates());
            for (int position = 0; position < indexes.size(); position++) {
                int index = indexes.get(position);
                Assignment was = assignments.get(index);
                Assignment a = lessees.get(position);
                assignments.set(
                        index,
                        new Assignment(
                                was.index(),
                                a.cpus(),
                                a.cpu(),
                                a.node(),
                                a.distance(),
                                a.level(),
                                a.pass(),
                                was.origin()));
                moved.put(index, leased.get(index));
            }
        }
        return new Plan(new SpreadPlan(today.request(), candidates, assignments), moved, kept);
    }
}
