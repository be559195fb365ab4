// SPDX-License-Identifier: Apache-2.0
package io.numaspread.cli;

import io.numaspread.irq.LinkIrqPolicy;
import io.numaspread.kernel.InterfaceName;
import io.numaspread.kernel.KernelPaths;
import io.numaspread.nic.NapiDiscovery;
import io.numaspread.nic.NapiMap;
import io.numaspread.nic.Nic;
import io.numaspread.nic.NicDiscovery;
import io.numaspread.plan.Purpose;
import io.numaspread.plan.SpreadPlan;
import io.numaspread.topology.Topology;
import java.util.List;
import java.util.function.Supplier;
import picocli.CommandLine.Mixin;

/**
 * Where the kernel's files are and how a NIC's queues are spread: the flags of every command that plans for a NIC,
 * whichever way it names the NIC ({@link NicOption}).
 */
class NicPlanOptions {
    @Mixin
    MachineOptions machine = new MachineOptions();

    @Mixin
    ProcRootOptions proc = new ProcRootOptions();

    @Mixin
    PlanOptions planOptions = new PlanOptions();

    @Mixin
    HostRootOption host = new HostRootOption();

    /** The NIC, the machine and the plan for the NIC's queues on it. */
    record NicPlan(KernelPaths paths, Topology topology, Nic nic, SpreadPlan plan) {
        NicReport report() {
            return new NicReport(topology, nic, plan, paths);
        }
    }

    NicPlan plan(InterfaceName nic) {
        return plan(nic, proc.paths(machine), machine::topology);
    }

    /** {@link #plan(InterfaceName)} on the topology the command has read already. */
    NicPlan plan(InterfaceName nic, Topology topology) {
        return plan(nic, proc.paths(machine), () -> topology);
    }

    /** For commands that write: see {@link ProcRootOptions#writablePaths}. */
    NicPlan planToWrite(InterfaceName nic) {
        return plan(nic, proc.writablePaths(machine), machine::topology);
    }

    private NicPlan plan(InterfaceName nic, KernelPaths paths, Supplier<Topology> machineTopology) {
        Nic found = NicDiscovery.discover(nic, paths);
        Topology topology = machineTopology.get();
        return new NicPlan(paths, topology, found, planFor(topology, found, planOptions));
    }

    /** The NIC's NAPI instances, through the backend this command reads the machine with. */
    NapiMap napis(NicPlan plan) {
        return NapiDiscovery.discover(plan.nic().name(), plan.paths(), machine.backend());
    }

    /** The systemd .link files that have udev place the NIC's IRQs too. */
    List<LinkIrqPolicy> linkPolicies(NicPlan plan) {
        return LinkIrqPolicy.find(host.hostRoot, plan.paths(), plan.nic().name());
    }

    /** {@link Nic#planRequest} for the NIC's queue IRQs, with the plan flags applied. */
    static SpreadPlan planFor(Topology topology, Nic nic, PlanOptions options) {
        return PlanOptions.plan(topology, options.refine(nic.planRequest(topology, Purpose.IRQS)));
    }
}
