// SPDX-License-Identifier: Apache-2.0
package io.numaspread.cli;

import io.numaspread.NumaspreadException;
import io.numaspread.kernel.InterfaceName;
import io.numaspread.kernel.KernelPaths;
import io.numaspread.nic.Nic;
import io.numaspread.nic.NicDiscovery;
import io.numaspread.plan.Policy;
import io.numaspread.topology.Topology;
import java.io.PrintWriter;
import java.util.Optional;

/** The no-argument view's second half: a dry run of the plan for the default route's NIC. */
final class DefaultRoutePlan {
    private DefaultRoutePlan() {}

    static void print(PrintWriter out) {
        MachineOptions machine = new MachineOptions();
        KernelPaths paths = KernelPaths.LIVE;
        Optional<InterfaceName> iface = NicDiscovery.defaultRouteInterface(paths);
        if (iface.isEmpty()) {
            out.println("No default route in " + paths.defaultRoutes() + ", so no NIC to plan for."
                    + " Name one: numaspread irqs --nic IFACE");
            return;
        }
        out.println("=== DRY RUN: the plan for " + iface.get()
                + " (the default route's interface); nothing is changed ===");
        Nic nic;
        try {
            nic = NicDiscovery.discover(iface.get(), paths);
        } catch (NumaspreadException e) {
            out.println("No plan: " + e.getMessage());
            return;
        }
        Topology topology = machine.topology();
        PlanOptions defaults = new PlanOptions();
        defaults.policy = Policy.KERNEL.id();
        NicReport report = new NicReport(topology, nic, NicPlanOptions.planFor(topology, nic, defaults), paths);
        report.printHeader(out);
        out.println();
        report.printTable(out);
        out.println();
        out.println("To apply it (as root): numaspread apply --nic " + iface.get() + "   (preview: add --dry-run;"
                + " undo: numaspread restore --nic " + iface.get() + ")");
    }
}
