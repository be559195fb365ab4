// SPDX-License-Identifier: Apache-2.0
package io.numaspread.plan;

import io.numaspread.CpuSet;
import io.numaspread.plan.PriorityCheck.Priority;
import io.numaspread.plan.PriorityCheck.Status;
import io.numaspread.topology.Topology;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Set;

/**
 * Checks a placement against the three priorities. It judges any placement whose queue affinities are single
 * CPUs or whole sibling groups (ours, or the kernel's), so the same code reports on plans and scores the
 * kernel's placements in the quality report.
 *
 * <p>A queue on a group of m CPUs counts as 1/m on each, as the kernel's effective-affinity choice spreads
 * them: q queues on a group load its CPUs with ⌈q/m⌉ or ⌊q/m⌋ queues. The checks over these loads:
 * <ol>
 *   <li>One queue per CPU: no CPU carries two queues more than another candidate CPU (with at most as many
 *       queues as CPUs: none carries two).
 *   <li>NUMA locality: no queue's CPU carries more queues than a CPU nearer its origin.
 *   <li>Sibling dislocality: within a level of a queue's origin and within a pass (the p-th queue of each CPU),
 *       no sibling group has two more CPUs in use than a group that still has a free CPU.
 * </ol>
 */
public final class Priorities {
    private Priorities() {}

    /** One queue of a placement: its origin node (empty for none) and its affinity. */
    public record Queue(OptionalInt origin, CpuSet cpus) {}

    /** The checks of a plan, most important first. */
    public static List<PriorityCheck> check(Topology topology, SpreadPlan plan) {
        return check(topology, List.of(plan), List.of(Set.of()));
    }

    /**
     * The checks of plans made together ({@link Planner#together}), judged over all their queues as one, but those
     * another rule places: {@code elsewhere} holds, for each plan, the plan indexes of its queues that are on their
     * lessee's CPUs ({@link LeasePlanner.Plan#moved}), which the NIC's priorities do not rank.
     */
    public static List<PriorityCheck> check(
            Topology topology, List<SpreadPlan> together, List<Set<Integer>> elsewhere) {
        if (together.size() != elsewhere.size()) {
            throw new IllegalArgumentException(
                    together.size() + " plans, and queues placed elsewhere for " + elsewhere.size());
        }
        List<Queue> queues = new ArrayList<>();
        for (int p = 0; p < together.size(); p++) {
            List<Assignment> assignments = together.get(p).assignments();
            for (int i = 0; i < assignments.size(); i++) {
                if (!elsewhere.get(p).contains(i)) {
                    queues.add(new Queue(
                            assignments.get(i).origin(), assignments.get(i).cpus()));
                }
            }
        }
        SpreadPlan first = together.get(0);
        return check(topology, first.candidates(), queues, first.request().policy());
    }

    /**
     * @param candidates the CPUs the placement could use
     * @param policy which priorities the placement may waive
     * @throws IllegalArgumentException if a queue's CPUs are not all candidates, or two queues' CPUs overlap
     *     without being equal
     */
    public static List<PriorityCheck> check(Topology topology, CpuSet candidates, List<Queue> queues, Policy policy) {
        Layout layout = new Layout(topology, candidates);
        int[][] queueCpus = new int[queues.size()][];
        int[] load = loads(layout, queues, queueCpus);
        return List.of(
                onePerCpu(layout, load, queues.size(), policy),
                locality(layout, load, queues, queueCpus, policy),
                dislocality(layout, load, queues, queueCpus));
    }

    private static int[] loads(Layout layout, List<Queue> queues, int[][] queueCpus) {
        Map<CpuSet, List<Integer>> byMask = new LinkedHashMap<>();
        for (int q = 0; q < queues.size(); q++) {
            byMask.computeIfAbsent(queues.get(q).cpus(), mask -> new ArrayList<>())
                    .add(q);
        }
        int[] load = new int[layout.size];
        CpuSet[] owner = new CpuSet[layout.size];
        for (Map.Entry<CpuSet, List<Integer>> entry : byMask.entrySet()) {
            CpuSet mask = entry.getKey();
            int[] cpus = mask.stream().map(cpu -> dense(layout, cpu)).toArray();
            for (int i = 0; i < cpus.length; i++) {
                if (cpus[i] < 0) {
                    throw new IllegalArgumentException(
                            "queue " + entry.getValue().get(0) + " has CPU " + mask.nth(i) + ", which is no candidate ("
                                    + layout.candidates + ")");
                }
                if (owner[cpus[i]] != null) {
                    throw new IllegalArgumentException(
                            "queue affinities " + owner[cpus[i]] + " and " + mask + " overlap without being equal");
                }
                owner[cpus[i]] = mask;
            }
            if (cpus.length == 0) {
                throw new IllegalArgumentException("queue " + entry.getValue().get(0) + " has no CPU");
            }
            int count = entry.getValue().size();
            for (int i = 0; i < cpus.length; i++) {
                load[cpus[i]] = count / cpus.length + (i < count % cpus.length ? 1 : 0);
            }
            for (int q : entry.getValue()) {
                queueCpus[q] = cpus;
            }
        }
        return load;
    }

    private static int dense(Layout layout, int cpu) {
        int index = Arrays.binarySearch(layout.cpu, 0, layout.size, cpu);
        return index >= 0 ? index : -1;
    }

    private static PriorityCheck onePerCpu(Layout layout, int[] load, int queues, Policy policy) {
        int most = 0;
        int least = 0;
        for (int cpu = 0; cpu < layout.size; cpu++) {
            most = load[cpu] > load[most] ? cpu : most;
            least = load[cpu] < load[least] ? cpu : least;
        }
        Priority priority = Priority.ONE_QUEUE_PER_CPU;
        if (load[most] - load[least] > 1) {
            String detail = "CPU " + layout.cpu[most] + " carries " + load[most] + " queues while CPU "
                    + layout.cpu[least] + " carries " + load[least];
            return policy == Policy.LOCAL
                    ? new PriorityCheck(priority, Status.WAIVED, "policy local stays on the nearest level: " + detail)
                    : new PriorityCheck(priority, Status.BROKEN, detail);
        }
        if (load[most] > 1) {
            return new PriorityCheck(
                    priority,
                    Status.NOT_POSSIBLE,
                    queues + " queues for " + layout.size
                            + " candidate CPUs: each CPU carries "
                            + (load[least] == load[most] ? "" : load[least] + " or ")
                            + load[most]);
        }
        return new PriorityCheck(
                priority, Status.HELD, queues + " queues on " + layout.size + " candidate CPUs, none carries two");
    }

    private static PriorityCheck locality(
            Layout layout, int[] load, List<Queue> queues, int[][] queueCpus, Policy policy) {
        Priority priority = Priority.NUMA_LOCALITY;
        Set<Integer> origins = origins(queues);
        if (origins.isEmpty()) {
            return new PriorityCheck(priority, Status.HELD, "no origin: every candidate CPU is one level");
        }
        List<String> reach = new ArrayList<>();
        for (int origin : origins) {
            Layout.View view = layout.view(origin);
            int[] fewestBefore = fewestBeforeLevel(layout, view, load);
            int farthest = 0;
            for (int q = 0; q < queues.size(); q++) {
                if (queues.get(q).origin().orElse(-1) != origin) {
                    continue;
                }
                for (int cpu : queueCpus[q]) {
                    int level = view.groupLevel()[layout.group[cpu]];
                    farthest = Math.max(farthest, level);
                    if (fewestBefore[level] < load[cpu]) {
                        String detail = "queue " + q + " of node " + origin + " is on " + where(layout, view, cpu)
                                + " while "
                                + where(layout, view, nearestWithFewer(layout, view, load, level, load[cpu]))
                                + " carries fewer queues";
                        if (policy == Policy.CORES) {
                            return new PriorityCheck(
                                    priority, Status.WAIVED, "policy cores ranks sibling dislocality first: " + detail);
                        }
                        return origins.size() > 1 && load[cpu] > 1
                                ? new PriorityCheck(
                                        priority,
                                        Status.NOT_POSSIBLE,
                                        "origins sharing more queues "
                                                + "than CPUs keep locality within each pass, not across passes: "
                                                + detail)
                                : new PriorityCheck(priority, Status.BROKEN, detail);
                    }
                }
            }
            reach.add("node " + origin + " reaches hop level " + farthest + " of 0-" + (view.levels() - 1));
        }
        return new PriorityCheck(
                priority, Status.HELD, "every queue is on the nearest CPUs with room; " + String.join(", ", reach));
    }

    /** For each level, the fewest queues on any CPU of a nearer level ({@code MAX_VALUE} for level 0). */
    private static int[] fewestBeforeLevel(Layout layout, Layout.View view, int[] load) {
        int[] fewestIn = new int[view.levels()];
        Arrays.fill(fewestIn, Integer.MAX_VALUE);
        for (int cpu = 0; cpu < layout.size; cpu++) {
            int level = view.groupLevel()[layout.group[cpu]];
            fewestIn[level] = Math.min(fewestIn[level], load[cpu]);
        }
        int[] before = new int[view.levels()];
        int fewest = Integer.MAX_VALUE;
        for (int level = 0; level < view.levels(); level++) {
            before[level] = fewest;
            fewest = Math.min(fewest, fewestIn[level]);
        }
        return before;
    }

    private static int nearestWithFewer(Layout layout, Layout.View view, int[] load, int level, int than) {
        int nearest = -1;
        for (int cpu = 0; cpu < layout.size; cpu++) {
            int at = view.groupLevel()[layout.group[cpu]];
            if (at < level && load[cpu] < than && (nearest < 0 || at < view.groupLevel()[layout.group[nearest]])) {
                nearest = cpu;
            }
        }
        return nearest;
    }

    private static String where(Layout layout, Layout.View view, int cpu) {
        int node = layout.nodeOf(cpu);
        OptionalInt distance = view.distanceTo(node);
        return "CPU " + layout.cpu[cpu] + " (node " + node + ", distance "
                + (distance.isPresent() ? Integer.toString(distance.getAsInt()) : "unknown") + ")";
    }

    private static PriorityCheck dislocality(Layout layout, int[] load, List<Queue> queues, int[][] queueCpus) {
        Priority priority = Priority.SIBLING_DISLOCALITY;
        Set<Integer> origins = origins(queues);
        if (origins.isEmpty() || queues.stream().anyMatch(q -> q.origin().isEmpty())) {
            origins.add(-1);
        }
        int passes = Arrays.stream(load).max().orElse(0);
        String shared = null;
        for (int origin : origins) {
            Layout.View view = layout.view(origin);
            boolean[] used = new boolean[view.levels()];
            for (int q = 0; q < queues.size(); q++) {
                if (queues.get(q).origin().orElse(-1) == origin) {
                    used[view.groupLevel()[layout.group[queueCpus[q][0]]]] = true;
                }
            }
            for (int level = 0; level < view.levels(); level++) {
                for (int pass = 0; used[level] && pass < passes; pass++) {
                    int fullest = -1;
                    int emptiest = -1;
                    int fullestFilled = -1;
                    int emptiestFilled = Integer.MAX_VALUE;
                    for (int k = view.levelStart()[level]; k < view.levelStart()[level + 1]; k++) {
                        int g = view.byLevel()[k];
                        int filled = filled(layout, load, g, pass);
                        if (filled > fullestFilled) {
                            fullest = g;
                            fullestFilled = filled;
                        }
                        if (filled < layout.groupSize(g) && filled < emptiestFilled) {
                            emptiest = g;
                            emptiestFilled = filled;
                        }
                    }
                    if (emptiest >= 0 && fullestFilled >= emptiestFilled + 2) {
                        String detail = "siblings " + layout.groupCpus(fullest) + " carry " + fullestFilled
                                + " queues" + (pass > 0 ? " of pass " + pass : "") + " while siblings "
                                + layout.groupCpus(emptiest) + " of the same level carry " + emptiestFilled;
                        return origins.size() > 1
                                ? new PriorityCheck(
                                        priority,
                                        Status.NOT_POSSIBLE,
                                        "several origins fill one "
                                                + "another's levels nearest first, so a level of one can be uneven: "
                                                + detail)
                                : new PriorityCheck(priority, Status.BROKEN, detail);
                    }
                    if (fullestFilled >= 2 && shared == null) {
                        shared = "siblings " + layout.groupCpus(fullest) + " share " + fullestFilled
                                + " queues: level " + level + (origin >= 0 ? " of node " + origin : "")
                                + " has more queues than cores, and NUMA locality ranks first";
                    }
                }
            }
        }
        return shared == null
                ? new PriorityCheck(priority, Status.HELD, "no two queues on siblings of one core")
                : new PriorityCheck(priority, Status.NOT_POSSIBLE, shared);
    }

    /** How many CPUs of group {@code g} carry a queue of pass {@code pass}. */
    private static int filled(Layout layout, int[] load, int g, int pass) {
        int filled = 0;
        for (int m = layout.memberStart[g]; m < layout.memberStart[g + 1]; m++) {
            filled += load[layout.member[m]] > pass ? 1 : 0;
        }
        return filled;
    }

    private static Set<Integer> origins(List<Queue> queues) {
        Set<Integer> origins = new LinkedHashSet<>();
        for (Queue queue : queues) {
            queue.origin().ifPresent(origins::add);
        }
        return origins;
    }
}
