// SPDX-License-Identifier: Apache-2.0
package io.numaspread.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.numaspread.irq.LinkIrqPolicy;
import io.numaspread.kernel.KernelPaths;
import io.numaspread.nic.LowerDevices;
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
            "Show a NIC's IRQs: name, queue, smp_affinity_list, effective_affinity_list, interrupts per"
                    + " CPU, the planned CPUs, and whether each matches the plan; warn where the kernel delivers them"
                    + " against the plan; and each queue's NAPI instance (ID, IRQ, thread), with the source that named it.",
            "For an upper device (a bond, team, VLAN, macvlan or bridge, or a VLAN on a bond), a section for each NIC"
                    + " under it, saying how it is under the device, with its share of the NICs' plan together.",
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
        KernelPaths paths = nicOptions.proc.paths(nicOptions.machine);
        LowerDevices lower = LowerDevices.resolve(nicOptions.nic.name(), paths);
        boolean upper = lower.kind() != LowerDevices.Kind.NIC;
        if (upper && drawn) {
            UpperDeviceIrqs.requireOneToDraw(lower);
        }
        List<NicOptions.NicPlan> nicPlans = upper
                ? UpperDeviceIrqs.plans(lower, paths, nicOptions.machine.topology(), nicOptions.planOptions)
                : List.of(nicOptions.plan());
        if (upper && !json.requested) {
            out.println(UpperDeviceIrqs.heading(lower));
        }
        List<ObjectNode> objects = new ArrayList<>();
        List<NicReport> reports = new ArrayList<>();
        for (int m = 0; m < nicPlans.size(); m++) {
            NicOptions.NicPlan nicPlan = nicPlans.get(m);
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
                if (upper) {
                    out.println();
                    out.println("== " + nicPlan.nic().name() + ", "
                            + lower.nics().get(m).relation());
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
            out.println(Json.write(upper ? UpperDeviceIrqs.toJson(lower, objects) : objects.get(0)));
        }
        out.flush();
        NicOptions.NicPlan nicPlan = nicPlans.get(0);
        picture.draw(
                "numaspread irqs --nic " + nicOptions.nic.name(),
                nicPlan.topology(),
                nicPlan.plan(),
                nicPlan.nic().name().value(),
                PictureOptions.vectors(nicPlan.nic(), reports.get(0)),
                nicPlan.paths().procRoot());
    }
}
