// SPDX-License-Identifier: Apache-2.0
package io.numaspread.nic;

import io.numaspread.CpuSet;
import io.numaspread.kernel.InterfaceName;
import io.numaspread.plan.Mode;
import io.numaspread.plan.PlanRequest;
import io.numaspread.plan.Purpose;
import io.numaspread.topology.NumaNode;
import io.numaspread.topology.Topology;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * A NIC as the kernel describes it: the PCI function that owns its MSI/MSI-X vectors, where that function sits,
 * and its vectors grouped into queues.
 *
 * @param pciFunction the directory of the PCI function (the one with {@code msi_irqs/})
 * @param numaNode the function's {@code numa_node}; -1 when the firmware does not say
 * @param localCpus the function's {@code local_cpulist}; empty when absent
 * @param txQueues the indices of {@code queues/tx-N}
 */
public record Nic(
        InterfaceName name,
        String driver,
        Path pciFunction,
        int numaNode,
        CpuSet localCpus,
        QueueNaming.Grouping grouping,
        List<Integer> txQueues) {
    public Nic {
        txQueues = List.copyOf(txQueues);
    }

    public String pciAddress() {
        return pciFunction.getFileName().toString();
    }

    public List<NicVector> vectors() {
        return grouping.vectors();
    }

    public List<NicVector> queueVectors() {
        return vectors().stream().filter(NicVector::isQueue).toList();
    }

    /** The distinct queue numbers, ascending; the plan's assignment i belongs to the i-th. */
    public List<Integer> queues() {
        return grouping.queues();
    }

    /** The plan index of driver queue {@code queue}. */
    public int planIndex(int queue) {
        int index = queues().indexOf(queue);
        if (index < 0) {
            throw new IllegalArgumentException(name + " has no queue " + queue);
        }
        return index;
    }

    /**
     * The node the queues should be near: {@code numa_node}, or when that is -1 the one node holding every
     * online CPU of {@code local_cpulist}; empty when neither tells.
     */
    public Optional<Integer> origin(Topology topology) {
        if (numaNode >= 0 && topology.node(numaNode).isPresent()) {
            return Optional.of(numaNode);
        }
        CpuSet local = localCpus.intersect(topology.online());
        if (local.isEmpty()) {
            return Optional.empty();
        }
        List<NumaNode> holding = topology.nodes().stream()
                .filter(n -> n.cpus().intersects(local))
                .toList();
        return holding.size() == 1 ? Optional.of(holding.get(0).id()) : Optional.empty();
    }

    /**
     * What {@code numaspread plan --nic}, {@code apply --nic}, the agent's and Netty's NIC loops all plan: one
     * queue per queue of this NIC, near its {@link #origin} (no origin when it has none), with the kernel
     * policy; callers adjust the rest ({@code withMode}, {@code withCpus}, ...).
     *
     * <p>IRQs get one CPU each ({@link Mode#CPU}), threads the sibling group of that CPU. Given a sibling
     * group, the kernel delivers an IRQ to one CPU of it of its own choosing, and in the guests it chose the
     * same CPU for two queues while the sibling took none; a one-CPU mask leaves it no choice, so the plan's
     * "one queue per CPU" holds in what the kernel does. A loop on the whole group still covers that CPU.
     *
     * @param purpose {@link Purpose#IRQS} for the queue IRQs, {@link Purpose#THREADS} for threads that serve
     *     the queues (within this process's allowed CPUs)
     */
    public PlanRequest planRequest(Topology topology, Purpose purpose) {
        Mode mode = purpose == Purpose.IRQS ? Mode.CPU : Mode.SIBLINGS;
        return new PlanRequest(
                origin(topology).map(List::of).orElse(List.of()),
                queues().size(),
                mode,
                purpose,
                Optional.empty(),
                CpuSet.EMPTY,
                false);
    }

    /** How the origin was found, for people: "numa_node 1" or "numa_node -1, local_cpulist 0-1: node 0". */
    public String originReason(Topology topology) {
        Optional<Integer> origin = origin(topology);
        if (numaNode >= 0 && origin.isPresent() && origin.get() == numaNode) {
            return "numa_node " + numaNode;
        }
        String local = localCpus.isEmpty() ? "no local_cpulist" : "local_cpulist " + localCpus;
        return "numa_node " + numaNode + ", " + local + ": "
                + origin.map(node -> "node " + node).orElse("no origin (all nodes are one level)");
    }
}
