// SPDX-License-Identifier: Apache-2.0
package io.numaspread.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.numaspread.NumaspreadException;
import io.numaspread.irq.LinkIrqPolicy;
import io.numaspread.nic.NapiMap;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

@Command(
        name = "irqs",
        mixinStandardHelpOptions = true,
        description = {
            "Show a NIC's IRQs (each NIC's in turn with several --nic or --all, beside their joint plan): name, queue, smp_affinity_list, effective_affinity_list, interrupts per"
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
        boolean drawn = picture.target().isPresent();
        PrintWriter out = spec.commandLine().getOut();
        List<NicOptions.NicPlan> nicPlans = nicOptions.plans();
        if (drawn && nicPlans.size() > 1) {
            throw NumaspreadException.badInput(
                    "--svg draws one NIC, and " + nicPlans.size() + " were chosen: give one" + " --nic");
        }
        List<ObjectNode> objects = new ArrayList<>();
        List<NicReport> reports = new ArrayList<>();
        for (NicOptions.NicPlan nicPlan : nicPlans) {
            NicReport report = nicPlan.report();
            reports.add(report);
            NapiMap napis = nicOptions.napis(nicPlan);
            List<LinkIrqPolicy> linkPolicies = nicOptions.linkPolicies(nicPlan);
            if (json.requested) {
                ObjectNode root = report.toJson();
                root.set("napi", NapiReport.toJson(napis));
                LinkPolicyWords.putJson(root, linkPolicies);
                objects.add(root);
            } else {
                if (nicPlan != nicPlans.get(0)) {
                    out.println();
                }
                report.printHeader(out);
                out.println();
                report.printTable(out);
                out.println();
                NapiReport.print(out, napis);
                report.printWarnings(out);
                LinkPolicyWords.lines(nicPlan.nic().name(), linkPolicies).forEach(out::println);
            }
        }
        if (json.requested) {
            // One NIC's object as it always was; several NICs' objects in a list, each with its share of the plan.
            ObjectNode several = Json.object();
            several.putArray("nics").addAll(objects);
            out.println(Json.write(objects.size() == 1 ? objects.get(0) : several));
        }
        out.flush();
        if (drawn) {
            NicOptions.NicPlan nicPlan = nicPlans.get(0);
            picture.draw(
                    "numaspread irqs --nic " + nicPlan.nic().name(),
                    nicPlan.topology(),
                    nicPlan.plan(),
                    nicPlan.nic().name().value(),
                    PictureOptions.vectors(nicPlan.nic(), reports.get(0)),
                    nicPlan.paths().procRoot());
        }
    }
}
