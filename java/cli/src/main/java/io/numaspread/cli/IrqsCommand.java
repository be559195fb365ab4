package io.numaspread.cli;

import io.numaspread.irq.KernelPaths;
import io.numaspread.irq.Nic;
import io.numaspread.topology.Topology;
import java.io.PrintWriter;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(name = "irqs", mixinStandardHelpOptions = true,
        description = "Show a NIC's IRQs: name, queue, smp_affinity_list, effective_affinity_list, interrupts per"
                + " CPU, the planned CPUs, and whether each matches the plan.")
final class IrqsCommand implements Runnable {
    @Spec
    CommandSpec spec;

    @Mixin
    MachineOptions machine = new MachineOptions();

    @Mixin
    NicOptions nicOptions = new NicOptions();

    @Mixin
    QueuePlanOptions planOptions = new QueuePlanOptions();

    @Option(names = "--json", description = "Print one JSON object.")
    boolean json;

    @Override
    public void run() {
        PrintWriter out = spec.commandLine().getOut();
        KernelPaths paths = nicOptions.paths(machine);
        Nic nic = nicOptions.discover(machine);
        Topology topology = machine.topology();
        NicReport report = new NicReport(topology, nic, planOptions.plan(topology, nic), paths);
        if (json) {
            out.println(Json.write(report.toJson()));
        } else {
            report.printHeader(out);
            out.println();
            report.printTable(out);
        }
        out.flush();
    }
}
