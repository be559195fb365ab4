// SPDX-License-Identifier: Apache-2.0
package io.numaspread.cli.containers;

import io.numaspread.kernel.SysfsTree;
import io.numaspread.nativeaccess.Backends;
import io.numaspread.pin.PinnedThreadFactory;
import io.numaspread.pin.ThreadPinner;
import io.numaspread.plan.PlanRequest;
import io.numaspread.plan.Planner;
import io.numaspread.plan.SpreadPlan;
import io.numaspread.topology.Topology;
import io.numaspread.topology.TopologyDiscovery;

/**
 * Runs inside a container: plans {@code count} threads near node 0 over this process's allowed CPUs, prints
 * "plan CPULIST" for every assignment, then starts the threads from a {@link PinnedThreadFactory}; each prints
 * "NAME CPULIST", its own Cpus_allowed_list, as the first thing its task does; last, "pinned NAME CPULIST" for
 * each pin the factory itself did (a thread in a one-CPU cpuset is on that CPU whether pinned or not).
 */
public final class PinnedFactoryProbe {
    private PinnedFactoryProbe() {}

    public static void main(String[] args) throws Exception {
        int count = Integer.parseInt(args[0]);
        Topology topology = TopologyDiscovery.discover(Backends.live().backend(), SysfsTree.live());
        SpreadPlan plan = Planner.plan(topology, PlanRequest.threads(0, count));
        plan.assignments().forEach(assignment -> System.out.println("plan " + assignment.cpus()));
        PinnedThreadFactory factory = PinnedThreadFactory.builder(plan, ThreadPinner.live())
                .names("worker-%d")
                .build();
        for (int i = 0; i < count; i++) {
            Thread thread = factory.newThread(ThreadAffinityProbe::report);
            thread.start();
            thread.join();
        }
        factory.pins()
                .forEach(pin -> System.out.println((pin.pinned() ? "pinned " : "failed ") + pin.threadName() + " "
                        + pin.assignment().cpus()));
    }
}
