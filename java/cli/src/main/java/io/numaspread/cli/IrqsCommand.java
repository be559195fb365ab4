// SPDX-License-Identifier: Apache-2.0
package io.numaspread.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.numaspread.irq.LinkIrqPolicy;
import io.numaspread.nic.NapiMap;
import java.io.PrintWriter;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

@Command(
        name = "irqs",
        mixinStandardHelpOptions = true,
        description = {
            "Show a NIC's IRQs: name, queue, smp_affinity_list, effective_affinity_list, interrupts per"
                    + " CPU, the planned CPUs, and whether each matches the plan; warn where the kernel delivers them"
                    + " against the plan; and each queue's NAPI instance (ID, IRQ, thread), with the source that named it.",
            "--svg FILE also draws them: each queue on its planned CPUs, each vector on the CPU the kernel delivers"
                    + " it to, in red where that is outside the plan."
        })
final class IrqsCommand implements Runnable {
    @Spec
    CommandSpec spec;

    @Mixin
    NicOptions nicOptions = new NicOptions();

    @Mixin
    JsonOption json = new JsonOption();

    @Mixin
    PictureOptions picture = new PictureOptions();

    @Override
    public void run() {
        picture.target();
        PrintWriter out = spec.commandLine().getOut();
        NicOptions.NicPlan nicPlan = nicOptions.plan();
        NicReport report = nicPlan.report();
        NapiMap napis = nicOptions.napis(nicPlan);
        List<LinkIrqPolicy> linkPolicies = nicOptions.linkPolicies(nicPlan);
        if (json.requested) {
            ObjectNode root = report.toJson();
            root.set("napi", NapiReport.toJson(napis));
            LinkPolicyWords.putJson(root, linkPolicies);
            out.println(Json.write(root));
        } else {
            report.printHeader(out);
            out.println();
            report.printTable(out);
            out.println();
            NapiReport.print(out, napis);
            report.printWarnings(out);
            LinkPolicyWords.lines(nicPlan.nic().name(), linkPolicies).forEach(out::println);
        }
        out.flush();
        picture.draw(
                "numaspread irqs --nic " + nicPlan.nic().name(),
                nicPlan.topology(),
                nicPlan.plan(),
                nicPlan.nic().name().value(),
                PictureOptions.vectors(nicPlan.nic(), report),
                nicPlan.paths().procRoot());
    }
}
