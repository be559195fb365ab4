// SPDX-License-Identifier: Apache-2.0
package io.numaspread.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.numaspread.NumaspreadException;
import io.numaspread.irq.LinkIrqPolicy;
import io.numaspread.nic.LowerDevices;
import io.numaspread.nic.NapiMap;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

@Command(
        name = "irqs",
        mixinStandardHelpOptions = true,
        description = {
            "Show a NIC's IRQs (each NIC's in turn with several --nic or --all, beside their joint plan): name,"
                    + " queue, smp_affinity_list, effective_affinity_list, interrupts per CPU, the planned CPUs, and"
                    + " whether each matches the plan; warn where the kernel delivers them against the plan; and each"
                    + " queue's NAPI instance (ID, IRQ, thread), with the source that named it; and who holds which"
                    + " CPU in the CPU lease registry (pid, command, what it pins).",
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

    @Mixin
    LeaseDirOption leases = new LeaseDirOption();

    @Override
    public void run() {
        boolean drawn = picture.target().isPresent();
        PrintWriter out = spec.commandLine().getOut();
        Optional<LowerDevices> upper = nicOptions.upperDevice();
        if (upper.isPresent() && drawn) {
            UpperDeviceIrqs.requireOneToDraw(upper.get());
        }
        List<NicOptions.NicPlan> nicPlans = upper.isPresent() ? nicOptions.plans(upper.get()) : nicOptions.plans();
        if (drawn && nicPlans.size() > 1) {
            throw NumaspreadException.badInput(
                    "--svg draws one NIC, and " + nicPlans.size() + " were chosen: give one" + " --nic");
        }
        if (upper.isPresent() && !json.requested) {
            out.println(UpperDeviceIrqs.heading(upper.get()));
        }
        List<ObjectNode> objects = new ArrayList<>();
        List<NicReport> reports = new ArrayList<>();
        for (int m = 0; m < nicPlans.size(); m++) {
            NicOptions.NicPlan nicPlan = nicPlans.get(m);
            NicReport report = nicPlan.report();
            reports.add(report);
            NapiMap napis = nicOptions.napis(nicPlan);
            List<LinkIrqPolicy> linkPolicies = nicOptions.linkPolicies(nicPlan);
            List<LeaseReport.Row> leases = LeaseReport.rows(nicPlan.nic(), nicPlan.leases());
            if (json.requested) {
                ObjectNode root = report.toJson();
                root.set("napi", NapiReport.toJson(napis));
                if (!leases.isEmpty()) {
                    root.set("leases", LeaseReport.toJson(leases));
                }
                LinkPolicyWords.putJson(root, linkPolicies);
                objects.add(root);
            } else {
                if (upper.isPresent()) {
                    out.println();
                    out.println("== " + nicPlan.nic().name() + ", "
                            + upper.get().nics().get(m).relation());
                } else if (m > 0) {
                    out.println();
                }
                report.printHeader(out);
                out.println();
                report.printTable(out);
                out.println();
                NapiReport.print(out, napis);
                LeaseReport.print(out, leases);
                report.printWarnings(out);
                LinkPolicyWords.lines(nicPlan.nic().name(), linkPolicies).forEach(out::println);
            }
        }
        CpuLeaseReport leaseReport =
                CpuLeaseReport.read(leases.directory(nicPlans.get(0).paths()));
        if (!json.requested) {
            out.println();
            leaseReport.print(out);
        }
        if (json.requested) {
            // One NIC's object as it always was; several NICs' objects in a list, each with its share of the plan;
            // an upper device's with its kind and how each NIC is under it.
            ObjectNode several = Json.object();
            several.putArray("nics").addAll(objects);
            ObjectNode root = upper.isPresent()
                    ? UpperDeviceIrqs.toJson(upper.get(), objects)
                    : objects.size() == 1 ? objects.get(0) : several;
            root.set("cpu_leases", leaseReport.toJson());
            out.println(Json.write(root));
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
