package io.numaspread.agent;

import io.numaspread.CpuSet;
import io.numaspread.irq.AffinityApplier;
import io.numaspread.irq.Irqbalance;
import io.numaspread.irq.IrqPlan;
import io.numaspread.irq.KernelFiles;
import io.numaspread.irq.KernelPaths;
import io.numaspread.irq.Nic;
import io.numaspread.irq.NicVector;
import io.numaspread.irq.StateFile;
import io.numaspread.plan.Mode;
import io.numaspread.plan.PlanRequest;
import io.numaspread.plan.Planner;
import io.numaspread.plan.Purpose;
import io.numaspread.topology.Topology;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * {@code irqs=apply}: the NIC's queue IRQs placed as {@code numaspread apply --nic IFACE} places them (with
 * {@code --per-cpu} for {@code mode=cpu}), through the same engine: irqbalance refused, the previous values in
 * the same state file first, all or nothing. {@code numaspread restore --nic IFACE} undoes it.
 */
final class NicIrqs {
    private NicIrqs() {
    }

    /** The queue plan's request: the CLI's defaults, one assignment per queue, near the NIC. */
    static PlanRequest request(Nic nic, Topology topology, Mode mode, Purpose purpose, int count) {
        return new PlanRequest(nic.origin(topology).map(List::of).orElse(List.of()), count, mode, purpose,
                Optional.empty(), CpuSet.EMPTY, false);
    }

    /**
     * @return one line saying what changed and how to undo it
     * @throws io.numaspread.irq.IrqException when it refused or rolled back; nothing is left changed
     */
    static String apply(Nic nic, Topology topology, Mode mode, int maskBits) {
        var plan = Planner.plan(topology, request(nic, topology, mode, Purpose.IRQS, nic.queues().size()));
        Irqbalance.refuseIfRunning(KernelPaths.LIVE.procRoot(), nic.queueVectors().stream().map(NicVector::irq).toList());
        Path state = StateFile.defaultPath(nic.name());
        List<AffinityApplier.Result> results = new AffinityApplier(KernelPaths.LIVE, KernelFiles.DIRECT, maskBits)
                .apply(nic.name(), IrqPlan.settings(nic, plan, false), state, false);
        Map<AffinityApplier.Status, Integer> counts = new TreeMap<>();
        results.forEach(result -> counts.merge(result.status(), 1, Integer::sum));
        StringBuilder line = new StringBuilder("applied the IRQ plan of " + nic.name() + ":");
        counts.forEach((status, count) -> line.append(' ').append(count).append(' ')
                .append(status.name().toLowerCase().replace('_', ' ')));
        return line + " (previous values in " + state + "; undo: numaspread restore --nic " + nic.name() + ")";
    }
}
