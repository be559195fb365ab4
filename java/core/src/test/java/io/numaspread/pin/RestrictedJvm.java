// SPDX-License-Identifier: Apache-2.0
package io.numaspread.pin;

import io.numaspread.CpuSet;
import io.numaspread.kernel.SysfsTree;
import io.numaspread.plan.Assignment;
import io.numaspread.plan.PlanRequest;
import io.numaspread.plan.Planner;
import io.numaspread.plan.SpreadPlan;
import io.numaspread.testing.ProcStatus;
import io.numaspread.topology.Topology;
import io.numaspread.topology.TopologyDiscovery;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/** The child JVM of {@link PinnedThreadFactoryTest}: prints what it may use, what it planned, where it pinned. */
public final class RestrictedJvm {
    private RestrictedJvm() {}

    public static void main(String[] args) throws Exception {
        ThreadPinner pinner = ThreadPinner.live();
        Topology topology = TopologyDiscovery.discover(pinner.backend(), SysfsTree.live());
        SpreadPlan plan = Planner.plan(topology, PlanRequest.threads(0, 3));
        PinnedThreadFactory factory = PinnedThreadFactory.builder(plan, pinner).build();
        List<String> pinned = new ArrayList<>();
        for (int k = 0; k < 3; k++) {
            Thread thread = factory.newThread(() -> {
                synchronized (pinned) {
                    pinned.add(ProcStatus.cpusAllowed(pinner.currentTid()).toString());
                }
            });
            thread.start();
            thread.join();
        }
        System.out.println("allowed " + topology.allowed());
        System.out.println("plan "
                + plan.assignments().stream()
                        .map(Assignment::cpus)
                        .map(CpuSet::toString)
                        .collect(Collectors.joining(",")));
        System.out.println("pinned " + String.join(",", pinned));
    }
}
