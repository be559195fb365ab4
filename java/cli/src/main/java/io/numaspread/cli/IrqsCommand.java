// SPDX-License-Identifier: Apache-2.0
package io.numaspread.cli;

import java.io.PrintWriter;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(name = "irqs", mixinStandardHelpOptions = true,
        description = "Show a NIC's IRQs: name, queue, smp_affinity_list, effective_affinity_list, interrupts per"
                + " CPU, the planned CPUs, and whether each matches the plan; warn where the kernel delivers them"
                + " against the plan.")
final class IrqsCommand implements Runnable {
    @Spec
    CommandSpec spec;

    @Mixin
    NicOptions nicOptions = new NicOptions();

    @Option(names = "--json", description = "Print one JSON object.")
    boolean json;

    @Override
    public void run() {
        PrintWriter out = spec.commandLine().getOut();
        NicReport report = nicOptions.plan().report();
        if (json) {
            out.println(Json.write(report.toJson()));
        } else {
            report.printHeader(out);
            out.println();
            report.printTable(out);
            report.printWarnings(out);
        }
        out.flush();
    }
}
