// SPDX-License-Identifier: Apache-2.0
package io.numaspread.plan;

import io.numaspread.CpuSet;
import io.numaspread.NumaspreadException;
import io.numaspread.topology.NumaNode;
import io.numaspread.topology.Topology;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Spreads queues over CPUs with the priorities of the mana driver's {@code irq_setup()}: at most one queue per
 * CPU while free CPUs remain, then NUMA locality by distance hops, then SMT sibling dislocality. Pure: it reads
 * only its arguments.
 *
 * <p>The default policy, {@link Policy#KERNEL}, for one origin:
 * <ol>
 *   <li>Candidates are the online CPUs ∩ the allowed set (for IRQs every online CPU that is neither isolated
 *       nor nohz_full, for threads this process's CPUs; {@code cpus} replaces it) minus {@code exclude}.
 *   <li>Levels are the nodes with candidates grouped by distance from the origin, ascending; nodes at an equal
 *       distance share a level. With no origin, everything is one level.
 *   <li>Within a level, the sibling groups (siblings ∩ candidates ∩ the node) are ordered by lowest CPU. In
 *       round r every group with more than r candidates takes the next queue on its r-th lowest CPU (its slot).
 *       The level is done when every CPU has a slot; then the next level starts.
 *   <li>When every level is done and queues remain, the same order repeats: every CPU takes a second queue.
 *   <li>A queue's affinity is its group (sibling mode) or its slot CPU ({@link Mode#CPU}).
 *   <li>{@code skipFirst} computes the first slot and gives it no queue.
 * </ol>
 * The plan for k queues is therefore the first k entries of the plan for k + 1. {@link PlanRequest} describes
 * several origins and {@link Policy} the other policies.
 *
 * <p>Cost: one origin takes O(candidate CPUs + queues) time and a few flat arrays; several origins take
 * O(queues × groups in a level) at worst.
 */
public final class Planner {
    private Planner() {}

    /**
     * @throws IllegalArgumentException for an unknown origin node or an empty candidate set, naming it
     */
    public static SpreadPlan plan(Topology topology, PlanRequest request) {
        CpuSet candidates = checkedCandidates(topology, request);
        Layout layout = new Layout(topology, candidates);
        Assignment[] assignments;
        if (request.origins().size() <= 1) {
            assignments = single(
                    layout,
                    request,
                    request.origins().isEmpty() ? -1 : request.origins().get(0));
        } else {
            int[] counts = new int[request.origins().size()];
            Arrays.fill(counts, request.count());
            assignments = Arrays.stream(shared(layout, request, request.origins(), counts, List.of()))
                    .flatMap(Arrays::stream)
                    .toArray(Assignment[]::new);
        }
        return new SpreadPlan(request, candidates, Arrays.asList(assignments));
    }

    /**
     * Several consumers of queues planned together, each with its own count: the joint plan of a host's NICs. It
     * is the several-origin plan of {@link PlanRequest} with a count per origin: the consumers take turns, one
     * queue each in list order while they have queues left, so no CPU gets a second queue while a candidate CPU
     * has none, and each consumer stays as near its origin as the others leave room for. With equal counts it is
     * {@code plan(--node A,B --count K)}; with one consumer it is exactly {@link #plan(Topology, PlanRequest)}.
     *
     * @param consumers one request each, with one origin or none, alike in everything but origin and count
     * @return each consumer's plan, in the order given, each with its own request
     * @throws IllegalArgumentException for no consumers, consumers that differ in more than origin and count, an
     *     unknown origin node or an empty candidate set, naming it
     */
    public static List<SpreadPlan> together(Topology topology, List<PlanRequest> consumers) {
        return together(topology, consumers, List.of());
    }

    /**
     * {@link #together(Topology, List)}, made again where the consumers' queues already sit: at each turn, among the
     * CPUs that the priorities rank alike (the same level, as many queues on their sibling group in this pass, as
     * many of this consumer's), the queue keeps the CPU it sits on. Where the priorities rank a CPU first, it takes
     * that one as the plan made afresh does. So a change of one consumer (a NIC's channel count, a NIC that joins a
     * bond) moves the others' queues only where the priorities make it; the plan made afresh would also move those
     * whose place only the order of equals decided (on the lowest CPU first). One consumer alone is planned as
     * {@link #plan(Topology, PlanRequest)} plans it, wherever it sits.
     *
     * @param sitting each consumer's queues' CPUs now, by queue index, in the consumers' order (a queue beyond
     *     its list, or a list beyond the consumers, sits nowhere); empty for none
     */
    public static List<SpreadPlan> together(
            Topology topology, List<PlanRequest> consumers, List<List<CpuSet>> sitting) {
        if (consumers.isEmpty()) {
            throw new IllegalArgumentException("a joint plan needs one consumer at least");
        }
        PlanRequest first = consumers.get(0);
        long total = 0;
        for (PlanRequest consumer : consumers) {
            if (consumer.origins().size() > 1) {
                throw new IllegalArgumentException(
                        "each consumer of a joint plan has one origin or none, not " + consumer.origins());
            }
            if (!consumer.withOrigins(first.origins()).withCount(first.count()).equals(first)) {
                throw new IllegalArgumentException("consumers planned together differ in more than origin and count: "
                        + first + " and " + consumer);
            }
            total += consumer.count();
        }
        if (consumers.size() == 1) {
            return List.of(plan(topology, first));
        }
        if (total > PlanRequest.MAX_QUEUES) {
            throw new IllegalArgumentException(
                    total + " queues are beyond the " + PlanRequest.MAX_QUEUES + " queues a plan may hold");
        }
        List<Integer> origins = consumers.stream()
                .map(consumer ->
                        consumer.origins().isEmpty() ? -1 : consumer.origins().get(0))
                .toList();
        CpuSet candidates = checkedCandidates(topology, first.withOrigins(origins));
        Assignment[][] assignments = shared(
                new Layout(topology, candidates),
                first,
                origins,
                consumers.stream().mapToInt(PlanRequest::count).toArray(),
                sitting);
        List<SpreadPlan> plans = new ArrayList<>();
        for (int o = 0; o < consumers.size(); o++) {
            plans.add(new SpreadPlan(consumers.get(o), candidates, Arrays.asList(assignments[o])));
        }
        return List.copyOf(plans);
    }

    /**
     * The candidates of {@code request}, after checking that there are some and that its origins exist.
     *
     * @throws IllegalArgumentException for an unknown origin node or an empty candidate set, naming it
     */
    private static CpuSet checkedCandidates(Topology topology, PlanRequest request) {
        CpuSet candidates = candidates(topology, request);
        if (candidates.isEmpty()) {
            throw new IllegalArgumentException("no candidate CPUs: the allowed set " + allowed(topology, request)
                    + " minus the excluded CPUs " + request.exclude() + " leaves none of the online CPUs "
                    + topology.online());
        }
        for (int origin : request.origins()) {
            if (origin >= 0 && topology.node(origin).isEmpty()) {
                throw new IllegalArgumentException("node " + origin + " does not exist; the nodes are "
                        + topology.nodes().stream().map(NumaNode::id).toList());
            }
        }
        return candidates;
    }

    /**
     * Busy-poll cores for {@code poll}'s queues, among the CPUs {@code irqs} plans over (its allowed set minus
     * its excluded CPUs): one core each, the origin's nearest level first, and within a level the highest cores
     * first, so that CPU 0 (where housekeeping runs) and the low CPUs the IRQ plan takes first stay with the IRQs.
     * The poll CPU is its core's lowest candidate. Plan the IRQs and event loops afterwards with
     * {@link PollPlan#avoidedBy}.
     *
     * @throws NumaspreadException (bad input) when the candidates cannot give every polled queue a core and still
     *     leave a CPU for IRQs; it names how many poll cores fit
     * @throws IllegalArgumentException for an unknown origin node
     */
    public static PollPlan poll(Topology topology, PollRequest poll, PlanRequest irqs) {
        int origin = poll.origin();
        if (origin >= 0 && topology.node(origin).isEmpty()) {
            throw new IllegalArgumentException("node " + origin + " does not exist; the nodes are "
                    + topology.nodes().stream().map(NumaNode::id).toList());
        }
        CpuSet candidates = candidates(topology, irqs);
        if (candidates.isEmpty()) {
            throw pollRefused(poll, candidates, 0, 0, 0);
        }
        Layout layout = new Layout(topology, candidates);
        Layout.View view = layout.view(origin);
        List<PollCore> cores = new ArrayList<>();
        CpuSet.Builder reserved = CpuSet.builder();
        CpuSet taken = CpuSet.EMPTY;
        int left = candidates.size();
        for (int level = 0; level < view.levels() && cores.size() < poll.queues(); level++) {
            for (int k = view.levelStart()[level + 1] - 1;
                    k >= view.levelStart()[level] && cores.size() < poll.queues();
                    k--) {
                int g = view.byLevel()[k];
                int dense = layout.member[layout.memberStart[g]];
                int cpu = layout.cpu[dense];
                CpuSet core = topology.siblings(cpu).with(cpu);
                // A core split over two nodes is two groups; it still holds one poll thread.
                if (core.intersects(taken)) {
                    continue;
                }
                CpuSet kept = poll.sibling().keptFree(topology, cpu);
                int cost = kept.intersect(candidates).size();
                if (left - cost < 1) {
                    continue;
                }
                left -= cost;
                taken = taken.union(core);
                reserved.addAll(kept);
                int node = layout.nodeOf(dense);
                cores.add(new PollCore(
                        cores.size(),
                        cpu,
                        node,
                        view.distanceTo(node),
                        view.groupLevel()[g],
                        topology.siblings(cpu).minus(CpuSet.of(cpu))));
            }
        }
        if (cores.size() < poll.queues()) {
            throw pollRefused(
                    poll, candidates, layout.groups, view.levelStart()[Math.min(1, view.levels())], cores.size());
        }
        return new PollPlan(poll, cores, reserved.build());
    }

    /** The refusal of a poll request that leaves no CPU for IRQs, with the cores there are and how many fit. */
    private static NumaspreadException pollRefused(
            PollRequest poll, CpuSet candidates, int cores, int nearest, int fit) {
        int origin = poll.origin();
        return NumaspreadException.badInput(
                (origin >= 0 ? "node " + origin + " and the nodes beyond it" : "the machine")
                        + " cannot give " + poll.queues() + " busy-poll core" + (poll.queues() == 1 ? "" : "s")
                        + " and still leave a CPU for IRQs: the CPUs planned over, "
                        + (candidates.isEmpty() ? "none" : candidates.toString()) + ", hold " + cores + " core"
                        + (cores == 1 ? "" : "s") + (origin >= 0 ? " (" + nearest + " on the nearest level)" : "")
                        + (poll.sibling() == PollSibling.IDLE ? " with their siblings kept free" : "") + ", so at most "
                        + fit
                        + " poll core" + (fit == 1 ? "" : "s") + " fit");
    }

    static CpuSet allowed(Topology topology, PlanRequest request) {
        // No lambda here: the agent runs this before main, where each new lambda spins a class.
        if (request.cpus().isPresent()) {
            return request.cpus().get();
        }
        return switch (request.purpose()) {
            case IRQS -> topology.online().minus(topology.isolated()).minus(topology.nohzFull());
            case THREADS -> topology.allowed();
        };
    }

    /** The CPUs {@code request} plans over: the online ones of its allowed set, less those it excludes. */
    public static CpuSet candidates(Topology topology, PlanRequest request) {
        return topology.online().intersect(allowed(topology, request)).minus(request.exclude());
    }

    /** One origin: lay out one pass of slots in order, then deal the queues over it, pass after pass. */
    private static Assignment[] single(Layout layout, PlanRequest request, int origin) {
        Layout.View view = layout.view(origin);
        int[] order = onePass(layout, view, request.policy());
        int first = request.skipFirst() ? 1 : 0;
        Assignment[] assignments = new Assignment[request.count()];
        for (int index = 0; index < assignments.length; index++) {
            int position = index + first;
            assignments[index] = assignment(
                    layout, view, request.mode(), index, order[position % order.length], position / order.length);
        }
        return assignments;
    }

    /**
     * Every eligible CPU once, in the order queues take them: level by level, round by round within a level
     * ({@link Policy#KERNEL}, and {@link Policy#LOCAL} on the nearest level alone), or round by round across
     * all levels ({@link Policy#CORES}). Each round keeps only the groups that still have CPUs, so the whole
     * pass costs O(CPUs).
     */
    static int[] onePass(Layout layout, Layout.View view, Policy policy) {
        int levels = policy == Policy.LOCAL ? 1 : view.levels();
        int end = view.levelStart()[levels];
        int slots = 0;
        for (int k = 0; k < end; k++) {
            slots += layout.groupSize(view.byLevel()[k]);
        }
        int[] order = new int[slots];
        int[] active = new int[end];
        int out = 0;
        if (policy == Policy.CORES) {
            out = rounds(layout, view.byLevel(), 0, end, active, order, out);
        } else {
            for (int level = 0; level < levels; level++) {
                out = rounds(
                        layout,
                        view.byLevel(),
                        view.levelStart()[level],
                        view.levelStart()[level + 1],
                        active,
                        order,
                        out);
            }
        }
        return order;
    }

    private static int rounds(Layout layout, int[] groups, int from, int to, int[] active, int[] order, int out) {
        int count = to - from;
        System.arraycopy(groups, from, active, 0, count);
        for (int round = 0; count > 0; round++) {
            int kept = 0;
            for (int k = 0; k < count; k++) {
                int g = active[k];
                order[out++] = layout.member[layout.memberStart[g] + round];
                if (layout.groupSize(g) > round + 1) {
                    active[kept++] = g;
                }
            }
            count = kept;
        }
        return out;
    }

    /**
     * Several origins share the CPUs: they take turns in list order while they have queues left (each origin's
     * first turn is a phantom with {@code skipFirst}), and each turn takes, among the origin's eligible CPUs with
     * the fewest queues, the one its policy ranks first. Also valid for one origin, where it yields exactly
     * {@link #onePass}'s order.
     *
     * @param request the mode, policy and {@code skipFirst} of every origin
     * @param counts how many queues each of {@code origins} gets
     * @param sitting where each origin's queues sit now, by index, kept among the CPUs its turn ranks alike
     * @return each origin's assignments, in index order
     */
    static Assignment[][] shared(
            Layout layout, PlanRequest request, List<Integer> origins, int[] counts, List<List<CpuSet>> sitting) {
        List<Integer> turnTakers = origins.isEmpty() ? List.of(-1) : origins;
        boolean[] claimed = new boolean[layout.size];
        for (int o = 0; o < Math.min(sitting.size(), counts.length); o++) {
            for (int index = 0; index < Math.min(sitting.get(o).size(), counts[o]); index++) {
                CpuSet seat = sitting.get(o).get(index);
                for (int id = seat.next(0); id >= 0; id = seat.next(id + 1)) {
                    int dense = layout.dense(id);
                    if (dense >= 0) {
                        claimed[dense] = true;
                    }
                }
            }
        }
        Turns turns = new Turns(layout, turnTakers, request.policy(), claimed);
        int skip = request.skipFirst() ? 1 : 0;
        int most = Arrays.stream(counts).max().orElse(0);
        Assignment[][] assignments = new Assignment[turnTakers.size()][];
        for (int o = 0; o < turnTakers.size(); o++) {
            assignments[o] = new Assignment[counts[o]];
        }
        for (int turn = 0; turn < most + skip; turn++) {
            for (int o = 0; o < turnTakers.size(); o++) {
                if (turn >= counts[o] + skip) {
                    continue; // this origin has all its queues
                }
                int pass = turns.pass(o);
                int queue = turn - skip;
                int cpu = turns.take(o, queue >= 0 ? sits(sitting, o, queue) : CpuSet.EMPTY);
                if (turn >= skip) {
                    assignments[o][turn - skip] =
                            assignment(layout, turns.views[o], request.mode(), turn - skip, cpu, pass);
                }
            }
        }
        return assignments;
    }

    /** Where queue {@code index} of origin {@code o} sits now; nowhere when {@code sitting} does not say. */
    private static CpuSet sits(List<List<CpuSet>> sitting, int o, int index) {
        if (o >= sitting.size() || index >= sitting.get(o).size()) {
            return CpuSet.EMPTY;
        }
        return sitting.get(o).get(index);
    }

    private static Assignment assignment(Layout layout, Layout.View view, Mode mode, int index, int cpu, int pass) {
        int g = layout.group[cpu];
        int node = layout.nodeOf(cpu);
        CpuSet cpus = mode == Mode.SIBLINGS ? layout.groupCpus(g) : CpuSet.of(layout.cpu[cpu]);
        return new Assignment(
                index,
                cpus,
                layout.cpu[cpu],
                node,
                view.distanceTo(node),
                view.groupLevel()[g],
                pass,
                view.originNode());
    }
}
