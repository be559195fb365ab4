// SPDX-License-Identifier: Apache-2.0
package io.numaspread.plan;

import io.numaspread.CpuSet;
import io.numaspread.topology.NumaNode;
import io.numaspread.topology.Topology;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;

/**
 * Test-only ports of the kernel's IRQ placements, to score ours against. Each runs on a kernel whose online
 * CPUs are exactly {@code candidates}: its node masks and {@code topology_sibling_cpumask()} are intersected
 * with them, as the kernel drops offline CPUs from both. Each returns the affinity of IRQ 0 .. len-1.
 */
final class KernelPlacements {
    private KernelPlacements() {}

    /** lib/cpumask.c before 2020: the i-th CPU of the local node, then of the other CPUs in id order. */
    static List<CpuSet> localSpreadBefore2020(Topology topology, CpuSet candidates, int node, int len) {
        List<CpuSet> irqs = new ArrayList<>();
        for (int i = 0; i < len; i++) {
            int index = i % candidates.size();
            int cpu = -1;
            if (node < 0) {
                cpu = candidates.nth(index);
            } else {
                CpuSet local = nodeCpus(topology, node).intersect(candidates);
                cpu = index < local.size()
                        ? local.nth(index)
                        : candidates.minus(local).nth(index - local.size());
            }
            irqs.add(CpuSet.of(cpu));
        }
        return irqs;
    }

    /**
     * lib/cpumask.c since the 2023 hop rework (v6.3): {@code sched_numa_find_nth_cpu()}, the i-th CPU of the
     * list ordered by hop (nodes grouped by distance from {@code node}), in id order within a hop; blind to
     * siblings.
     */
    static List<CpuSet> localSpreadByHops(Topology topology, CpuSet candidates, int node, int len) {
        List<CpuSet> hops = hopMasks(topology, candidates, node);
        List<CpuSet> irqs = new ArrayList<>();
        for (int i = 0; i < len; i++) {
            int index = i % candidates.size();
            CpuSet prev = CpuSet.EMPTY;
            for (CpuSet next : hops) {
                CpuSet fresh = next.minus(prev);
                if (index < fresh.size()) {
                    irqs.add(CpuSet.of(fresh.nth(index)));
                    break;
                }
                index -= fresh.size();
                prev = next;
            }
        }
        return irqs;
    }

    /**
     * mana's {@code irq_setup()} as posted in the patch "net: mana: add a function to spread IRQs per CPUs": every
     * hop runs {@code weight} (its new CPU count) rounds, and every round gives each sibling group in the hop one IRQ.
     * So a hop takes weight × groups IRQs before the next hop starts, and stops when IRQs run out.
     * <pre>
     * for_each_numa_hop_mask(next, node) {
     *     weight = cpumask_weight_andnot(next, prev);
     *     while (weight-- > 0) {
     *         cpumask_andnot(cpus, next, prev);
     *         for_each_cpu(cpu, cpus) {
     *             if (len-- == 0) goto done;
     *             irq_set_affinity_and_hint(*irqs++, topology_sibling_cpumask(cpu));
     *             cpumask_andnot(cpus, cpus, topology_sibling_cpumask(cpu));
     *         }
     *     }
     *     prev = next;
     * }
     * </pre>
     * IRQs beyond what the hops hand out keep no affinity here: the list is shorter than {@code len}.
     */
    static List<CpuSet> irqSetupPosted(Topology topology, CpuSet candidates, int node, int len) {
        return irqSetup(topology, candidates, node, len, false);
    }

    /**
     * mana's {@code irq_setup()} as merged (v6.9, gdma_main.c): the same walk, but {@code weight} counts
     * IRQs, not rounds, and is checked only between rounds, so a hop takes as many IRQs as it has CPUs, except
     * that the last round of a hop finishes even after weight reaches 0: a hop with a one-CPU group hands that
     * CPU a second IRQ while CPUs of the next hop have none.
     * <pre>
     *     while (weight > 0) {
     *         cpumask_andnot(cpus, next, prev);
     *         for_each_cpu(cpu, cpus) {
     *             cpumask_andnot(cpus, cpus, topology_sibling_cpumask(cpu));
     *             --weight;
     *             if (len-- == 0) goto done;
     *             irq_set_affinity_and_hint(*irqs++, topology_sibling_cpumask(cpu));
     *         }
     *     }
     * </pre>
     */
    static List<CpuSet> irqSetupMerged(Topology topology, CpuSet candidates, int node, int len) {
        return irqSetup(topology, candidates, node, len, true);
    }

    private static List<CpuSet> irqSetup(Topology topology, CpuSet candidates, int node, int len, boolean merged) {
        List<CpuSet> irqs = new ArrayList<>();
        CpuSet prev = CpuSet.EMPTY;
        for (CpuSet next : hopMasks(topology, candidates, node)) {
            int weight = next.minus(prev).size();
            while (merged ? weight > 0 : weight-- > 0) {
                CpuSet cpus = next.minus(prev);
                while (!cpus.isEmpty()) {
                    int cpu = cpus.first();
                    CpuSet siblings = topology.siblings(cpu).intersect(candidates);
                    cpus = cpus.minus(siblings);
                    if (merged) {
                        --weight;
                    }
                    if (irqs.size() == len) {
                        return irqs;
                    }
                    irqs.add(siblings);
                }
            }
            prev = next;
        }
        return irqs;
    }

    /**
     * {@code for_each_numa_hop_mask(mask, node)}: the cumulative masks of the CPUs within each distance of
     * {@code node}, nearest first; for no node, the online mask once.
     */
    static List<CpuSet> hopMasks(Topology topology, CpuSet candidates, int node) {
        if (node < 0) {
            return List.of(candidates);
        }
        TreeSet<Integer> distances = new TreeSet<>();
        for (NumaNode other : topology.nodes()) {
            distances.add(topology.distance(node, other.id()).orElse(Integer.MAX_VALUE));
        }
        List<CpuSet> masks = new ArrayList<>();
        for (int distance : distances) {
            CpuSet mask = CpuSet.EMPTY;
            for (NumaNode other : topology.nodes()) {
                if (topology.distance(node, other.id()).orElse(Integer.MAX_VALUE) <= distance) {
                    mask = mask.union(other.cpus().intersect(candidates));
                }
            }
            masks.add(mask);
        }
        return masks;
    }

    private static CpuSet nodeCpus(Topology topology, int node) {
        return topology.node(node).map(NumaNode::cpus).orElse(CpuSet.EMPTY);
    }
}
