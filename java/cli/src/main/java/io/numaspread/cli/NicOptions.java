// SPDX-License-Identifier: Apache-2.0
package io.numaspread.cli;

import io.numaspread.kernel.InterfaceName;
import io.numaspread.kernel.KernelPaths;
import io.numaspread.nic.NapiDiscovery;
import io.numaspread.nic.NapiMap;
import io.numaspread.nic.Nic;
import io.numaspread.nic.NicDiscovery;
import io.numaspread.plan.Purpose;
import io.numaspread.plan.SpreadPlan;
import io.numaspread.topology.Topology;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** Which NIC, where the kernel's files are, and how its queues are spread. */
final class NicOptions {
    @Option(names = "--nic", paramLabel = "IFACE", required = true,
            description = "The network interface whose queue IRQs are placed (e.g. eth0).")
    String nic;

    @Mixin
    MachineOptions machine = new MachineOptions();

    @Mixin
    ProcRootOptions proc = new ProcRootOptions();

    @Mixin
    PlanOptions planOptions = new PlanOptions();

    /** The NIC, the machine and the plan for the NIC's queues on it. */
    record NicPlan(KernelPaths paths, Topology topology, Nic nic, SpreadPlan plan) {
        NicReport report() {
            return new NicReport(topology, nic, plan, paths);
        }
    }

    NicPlan plan() {
        return plan(proc.paths(machine));
    }

    /** For commands that write: see {@link ProcRootOptions#writablePaths}. */
    NicPlan planToWrite() {
        return plan(proc.writablePaths(machine));
    }

    private NicPlan plan(KernelPaths paths) {
        Nic found = NicDiscovery.discover(new InterfaceName(nic), paths);
        Topology topology = machine.topology();
        return new NicPlan(paths, topology, found, planFor(topology, found, planOptions));
    }

    /** The NIC's NAPI instances, through the backend this command reads the machine with. */
    NapiMap napis(NicPlan plan) {
        return NapiDiscovery.discover(plan.nic().name(), plan.paths(), machine.backend());
    }

    /** {@link Nic#planRequest} for the NIC's queue IRQs, with the plan flags applied. */
    static SpreadPlan planFor(Topology topology, Nic nic, PlanOptions options) {
        return PlanOptions.plan(topology, options.refine(nic.planRequest(topology, Purpose.IRQS)));
    }
}
