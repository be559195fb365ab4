package io.numaspread.plan;

import io.numaspread.CpuSet;
import io.numaspread.topology.NumaNode;
import io.numaspread.topology.Topology;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import java.util.TreeMap;

/**
 * Spreads queues over CPUs with the priorities of the mana driver's {@code irq_setup()}: at most one queue per
 * CPU while free CPUs remain, then NUMA locality by distance hops, then SMT sibling dislocality. Pure: it reads
 * only its arguments.
 */
public final class Planner {
    private Planner() {
    }

    /**
     * @throws IllegalArgumentException for an unknown origin node or an empty candidate set, naming it
     */
    public static SpreadPlan plan(Topology topology, PlanRequest request) {
        CpuSet candidates = candidates(topology, request);
        if (candidates.isEmpty()) {
            throw new IllegalArgumentException("no candidate CPUs: the allowed set " + allowed(topology, request)
                    + " minus --exclude " + request.exclude() + " leaves none of the online CPUs "
                    + topology.online());
        }
        Integer origin = request.origins().isEmpty() ? null : request.origins().get(0);
        if (origin != null && topology.node(origin).isEmpty()) {
            throw new IllegalArgumentException("node " + origin + " does not exist; the nodes are "
                    + topology.nodes().stream().map(n -> Integer.toString(n.id())).toList());
        }
        List<Slot> slots = onePass(topology, candidates, origin);
        int first = request.skipFirst() ? 1 : 0;
        List<Assignment> assignments = new ArrayList<>(request.count());
        for (int index = 0; index < request.count(); index++) {
            int position = index + first;
            Slot slot = slots.get(position % slots.size());
            CpuSet cpus = request.mode() == Mode.SIBLINGS ? slot.group() : CpuSet.of(slot.cpu());
            int node = topology.cpu(slot.cpu()).map(c -> c.node()).orElse(-1);
            OptionalInt distance = origin == null ? OptionalInt.empty() : topology.distance(origin, node);
            assignments.add(new Assignment(index, cpus, slot.cpu(), node, distance, slot.level(),
                    position / slots.size()));
        }
        return new SpreadPlan(request, candidates, assignments);
    }

    static CpuSet allowed(Topology topology, PlanRequest request) {
        return request.cpus().orElseGet(() -> switch (request.purpose()) {
            case IRQS -> topology.online().minus(topology.isolated()).minus(topology.nohzFull());
            case THREADS -> topology.allowed();
        });
    }

    static CpuSet candidates(Topology topology, PlanRequest request) {
        return topology.online().intersect(allowed(topology, request)).minus(request.exclude());
    }

    /** Every candidate CPU once, in the order queues take them. */
    private static List<Slot> onePass(Topology topology, CpuSet candidates, Integer origin) {
        List<Slot> slots = new ArrayList<>(candidates.size());
        List<CpuSet> levels = levels(topology, candidates, origin);
        for (int level = 0; level < levels.size(); level++) {
            List<CpuSet> groups = siblingGroups(topology, levels.get(level));
            for (int round = 0; ; round++) {
                boolean assigned = false;
                for (CpuSet group : groups) {
                    if (group.size() > round) {
                        slots.add(new Slot(group.nth(round), group, level));
                        assigned = true;
                    }
                }
                if (!assigned) {
                    break;
                }
            }
        }
        return slots;
    }

    /**
     * The candidate CPUs grouped by hop: nodes at an equal distance from the origin share a level, nearest
     * first, as the kernel's {@code for_each_numa_hop_mask()} yields them. Nodes at an unknown distance, and
     * CPUs in no node, come last.
     */
    private static List<CpuSet> levels(Topology topology, CpuSet candidates, Integer origin) {
        if (origin == null) {
            return List.of(candidates);
        }
        TreeMap<Integer, CpuSet> byDistance = new TreeMap<>();
        CpuSet placed = CpuSet.EMPTY;
        for (NumaNode node : topology.nodes()) {
            CpuSet cpus = node.cpus().intersect(candidates);
            if (!cpus.isEmpty()) {
                int distance = topology.distance(origin, node.id()).orElse(Integer.MAX_VALUE);
                byDistance.merge(distance, cpus, CpuSet::union);
                placed = placed.union(cpus);
            }
        }
        CpuSet homeless = candidates.minus(placed);
        if (!homeless.isEmpty()) {
            byDistance.merge(Integer.MAX_VALUE, homeless, CpuSet::union);
        }
        return List.copyOf(byDistance.values());
    }

    /** The level's CPUs grouped by SMT sibling group, ordered by each group's lowest CPU. */
    private static List<CpuSet> siblingGroups(Topology topology, CpuSet levelCpus) {
        List<CpuSet> groups = new ArrayList<>();
        CpuSet remaining = levelCpus;
        while (!remaining.isEmpty()) {
            int lowest = remaining.first();
            CpuSet group = topology.siblings(lowest).intersect(levelCpus).with(lowest);
            groups.add(group);
            remaining = remaining.minus(group);
        }
        return groups;
    }

    private record Slot(int cpu, CpuSet group, int level) {
    }
}
