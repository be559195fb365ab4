// SPDX-License-Identifier: Apache-2.0
package io.numaspread.watch;

import io.numaspread.CpuSet;
import io.numaspread.nic.Nic;
import io.numaspread.nic.NicVector;
import io.numaspread.plan.Assignment;
import io.numaspread.plan.PollCore;
import io.numaspread.plan.PollPlan;
import io.numaspread.plan.SpreadPlan;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * What a NIC's plan depends on, as one check saw it: the online CPUs, the CPUs kept free (the kubelet's
 * exclusive CPUs), the queue vectors with their IRQ numbers, the active transmit queues, and the plan made from
 * them, with the busy-poll CPUs in queue order (none without poll cores). Two snapshots that differ mean the plan
 * had to be made again.
 */
public record NicSnapshot(
        CpuSet online,
        CpuSet keptFree,
        Map<Integer, String> queueVectors,
        int txQueues,
        List<CpuSet> plan,
        List<Integer> pollCpus) {
    public NicSnapshot {
        queueVectors = Map.copyOf(queueVectors);
        plan = List.copyOf(plan);
        pollCpus = List.copyOf(pollCpus);
    }

    public static NicSnapshot of(CpuSet online, CpuSet keptFree, Nic nic, SpreadPlan plan, Optional<PollPlan> poll) {
        Map<Integer, String> vectors = new TreeMap<>();
        for (NicVector vector : nic.queueVectors()) {
            vectors.put(vector.irq(), vector.name());
        }
        return new NicSnapshot(
                online,
                keptFree,
                vectors,
                nic.txQueues().size(),
                plan.assignments().stream().map(Assignment::cpus).toList(),
                poll.map(p -> p.cores().stream().map(PollCore::cpu).toList()).orElse(List.of()));
    }
}
