package io.numaspread.cli;

import io.numaspread.irq.InterfaceName;
import io.numaspread.irq.KernelPaths;
import io.numaspread.irq.Nic;
import io.numaspread.irq.NicDiscovery;
import io.numaspread.plan.Purpose;
import io.numaspread.plan.SpreadPlan;
import io.numaspread.topology.Topology;
import java.util.List;
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

    /** One queue per NIC queue, starting from the node of the NIC's PCI function (none when it has none). */
    static SpreadPlan planFor(Topology topology, Nic nic, PlanOptions options) {
        List<Integer> origin = nic.origin(topology).map(List::of).orElse(List.of());
        return PlanOptions.plan(topology, options.request(origin, nic.queues().size(), Purpose.IRQS));
    }
}
