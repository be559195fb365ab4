// SPDX-License-Identifier: Apache-2.0
package io.numaspread.watch;

import io.numaspread.CpuSet;
import io.numaspread.nic.Nic;
import io.numaspread.nic.NicVector;
import io.numaspread.plan.Assignment;
import io.numaspread.plan.SpreadPlan;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What a NIC's plan depends on, as one check saw it: the online CPUs, the CPUs kept free (the kubelet's
 * exclusive CPUs), the queue vectors with their IRQ numbers, the active transmit queues, and the plan made from
 * them. Two snapshots that differ mean the plan had to be made again; {@link #differences} says why, in words.
 */
public record NicSnapshot(CpuSet online, CpuSet keptFree, Map<Integer, String> queueVectors, int txQueues,
        List<CpuSet> plan) {
    public NicSnapshot {
        queueVectors = Map.copyOf(queueVectors);
        plan = List.copyOf(plan);
    }

    public static NicSnapshot of(CpuSet online, CpuSet keptFree, Nic nic, SpreadPlan plan) {
        Map<Integer, String> vectors = new TreeMap<>();
        for (NicVector vector : nic.queueVectors()) {
            vectors.put(vector.irq(), vector.name());
        }
        return new NicSnapshot(online, keptFree, vectors, nic.txQueues().size(),
                plan.assignments().stream().map(Assignment::cpus).toList());
    }

    /** What changed since {@code before}, one phrase each ("CPUs online 0-7 -> 0-4,6-7"); empty when nothing did. */
    public List<String> differences(NicSnapshot before) {
        List<String> changes = new ArrayList<>();
        if (!online.equals(before.online)) {
            changes.add("CPUs online " + before.online + " -> " + online);
        }
        if (!keptFree.equals(before.keptFree)) {
            changes.add("exclusive CPUs " + describe(before.keptFree) + " -> " + describe(keptFree));
        }
        if (txQueues != before.txQueues) {
            changes.add("active queues " + before.txQueues + " -> " + txQueues);
        }
        if (!queueVectors.equals(before.queueVectors)) {
            changes.add(queueVectors.keySet().equals(before.queueVectors.keySet())
                    ? "queue vectors renamed" : "queue IRQs " + irqs(before.queueVectors) + " -> " + irqs(queueVectors));
        }
        if (changes.isEmpty() && !plan.equals(before.plan)) {
            changes.add("plan " + before.plan + " -> " + plan);
        }
        return changes;
    }

    private static String describe(CpuSet cpus) {
        return cpus.isEmpty() ? "none" : cpus.toString();
    }

    /** IRQ numbers as ranges, ascending: "37-44,50". */
    static String irqs(Map<Integer, String> vectors) {
        if (vectors.isEmpty()) {
            return "none";
        }
        List<String> ranges = new ArrayList<>();
        int start = -1;
        int previous = -1;
        for (int irq : new TreeMap<>(vectors).keySet()) {
            if (start >= 0 && irq != previous + 1) {
                ranges.add(start == previous ? Integer.toString(start) : start + "-" + previous);
                start = -1;
            }
            if (start < 0) {
                start = irq;
            }
            previous = irq;
        }
        ranges.add(start == previous ? Integer.toString(start) : start + "-" + previous);
        return String.join(",", ranges);
    }
}
