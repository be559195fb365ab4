// SPDX-License-Identifier: Apache-2.0
package io.numaspread.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.numaspread.doctor.Doctor;
import io.numaspread.doctor.Finding;
import io.numaspread.doctor.Report;
import io.numaspread.kernel.KernelPaths;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

@Command(
        name = "doctor",
        mixinStandardHelpOptions = true,
        description = {
            "Show what this machine offers numaspread and what stands in its way: kernel features (netdev netlink,"
                    + " napi-set, NAPI threading, IRQ suspension, txq_reselection_ms, ...), the native backends,"
                    + " privileges, this process's CPUs, and other managers of IRQs (irqbalance, systemd .link"
                    + " files, tuned, CRI-O), and who holds which CPU in the CPU lease registry. Each is present,"
                    + " absent or unknown, with how it was found and, where missing, the kernel version or privilege"
                    + " it needs. Changes nothing."
        })
final class DoctorCommand implements Runnable {
    /** The headings of the text report, in the report's order. */
    private static final Map<Finding.Area, String> HEADINGS = Map.of(
            Finding.Area.KERNEL, "kernel features",
            Finding.Area.BACKEND, "backends",
            Finding.Area.PRIVILEGE, "privileges",
            Finding.Area.PROCESS, "this process",
            Finding.Area.MANAGER, "other managers of IRQs",
            Finding.Area.LEASES, "CPU leases");

    @Spec
    CommandSpec spec;

    @Mixin
    MachineOptions machine = new MachineOptions();

    @Mixin
    ProcRootOptions proc = new ProcRootOptions();

    @Mixin
    HostRootOption host = new HostRootOption();

    @Mixin
    NicOption.Checked nic = new NicOption.Checked();

    @Mixin
    JsonOption json = new JsonOption();

    @Mixin
    LeaseDirOption leases = new LeaseDirOption();

    @Override
    public void run() {
        PrintWriter out = spec.commandLine().getOut();
        KernelPaths paths = proc.paths(machine);
        Report examined = Doctor.examine(paths, host.hostRoot, nic.name(), machine.selection());
        List<Finding> findings = new ArrayList<>(examined.findings());
        findings.addAll(CpuLeaseReport.read(leases.directory(paths)).findings());
        Report report = new Report(examined.kernelRelease(), findings);
        if (json.requested) {
            out.println(Json.write(toJson(report)));
        } else {
            print(out, report);
        }
        out.flush();
    }

    /** {"kernel_release", "findings": [{"area", "feature", "state", "evidence", "need"}]}, need null when none. */
    static ObjectNode toJson(Report report) {
        ObjectNode root = Json.object();
        root.put("kernel_release", report.kernelRelease());
        ArrayNode findings = root.putArray("findings");
        for (Finding finding : report.findings()) {
            ObjectNode entry = findings.addObject()
                    .put("area", word(finding.area()))
                    .put("feature", finding.feature())
                    .put("state", word(finding.state()))
                    .put("evidence", finding.evidence());
            if (finding.need().isPresent()) {
                entry.put("need", finding.need().get());
            } else {
                entry.putNull("need");
            }
        }
        return root;
    }

    /** The release, then per area a line per finding: feature, state, evidence, and what it needs when not present. */
    static void print(PrintWriter out, Report report) {
        out.println("kernel " + (report.kernelRelease().isEmpty() ? "(release unknown)" : report.kernelRelease()));
        for (Finding.Area area : Finding.Area.values()) {
            out.println();
            out.println(HEADINGS.get(area) + ":");
            for (Finding finding : report.in(area)) {
                String need = finding.need().isPresent() && finding.state() != Finding.State.PRESENT
                        ? "; needs " + finding.need().get()
                        : finding.need().isPresent()
                                ? "; to hand the IRQs to numaspread: "
                                        + finding.need().get()
                                : "";
                out.printf(
                        Locale.ROOT,
                        "  %-24s %-8s %s%s%n",
                        finding.feature(),
                        word(finding.state()),
                        finding.evidence(),
                        need);
            }
        }
    }

    private static String word(Enum<?> value) {
        return value.name().toLowerCase(Locale.ROOT);
    }
}
