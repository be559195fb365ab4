// SPDX-License-Identifier: Apache-2.0
package io.numaspread.moduletest;

import io.numaspread.CpuSet;
import io.numaspread.kernel.SysfsTree;
import io.numaspread.nativeaccess.Backends;
import io.numaspread.plan.Planner;
import io.numaspread.plan.PlanRequest;
import io.numaspread.plan.SpreadPlan;
import io.numaspread.topology.Topology;
import io.numaspread.topology.TopologyDiscovery;

/**
 * Discovers this machine, plans one thread per allowed CPU near node 0 and prints what it found, from the
 * module path; then shows that the core module hides its FFM bindings. scripts/module-check reads the lines.
 */
public final class ModulePathApp {
    private ModulePathApp() {
    }

    public static void main(String[] args) throws Exception {
        Backends.Selection selection = Backends.live();
        Topology topology = TopologyDiscovery.discover(selection.backend(), SysfsTree.live());
        SpreadPlan plan = Planner.plan(topology, PlanRequest.threads(topology.nodes().get(0).id(), 1));
        Module core = CpuSet.class.getModule();
        System.out.println("module " + core.getName());
        System.out.println("backend " + selection.backend().kind().id());
        System.out.println("planned " + plan.get(0).cpus());
        System.out.println("exports io.numaspread.plan " + core.isExported("io.numaspread.plan"));
        System.out.println("exports io.numaspread.internal.ffm.gen " + core.isExported("io.numaspread.internal.ffm.gen"));
    }
}
