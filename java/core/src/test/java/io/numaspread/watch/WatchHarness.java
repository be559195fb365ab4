// SPDX-License-Identifier: Apache-2.0
package io.numaspread.watch;

import io.numaspread.CpuSet;
import io.numaspread.nic.Nic;
import io.numaspread.plan.Mode;
import io.numaspread.plan.Planner;
import io.numaspread.plan.Purpose;
import io.numaspread.plan.SpreadPlan;
import io.numaspread.testing.MachineShape;
import io.numaspread.testing.SysfsFixture;
import io.numaspread.topology.Topology;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.function.Supplier;

/** What the watcher tests share: the mana machine read from a fake tree, and waiting for a reported event. */
final class WatchHarness {
    private WatchHarness() {
    }

    /**
     * The mana machine under {@code sys}, planned as {@code --siblings} plans it (each queue its sibling group; a
     * NIC's IRQs are planned one CPU per queue by default, {@code Nic#planRequest}); nothing kept free.
     */
    static Watcher.Machine mana(Path sys) {
        return machine(() -> SysfsFixture.topology(MachineShape.mana(), sys));
    }

    /** The machine as the tree under {@code sys} shows it at each read (a test takes CPUs offline and online). */
    static Watcher.Machine asWritten(Path sys) {
        return machine(() -> SysfsFixture.read(sys));
    }

    private static Watcher.Machine machine(Supplier<Topology> topology) {
        return new Watcher.Machine() {
            @Override
            public Topology topology() {
                return topology.get();
            }

            @Override
            public CpuSet keptFree() {
                return CpuSet.EMPTY;
            }

            @Override
            public SpreadPlan plan(Topology topology, Nic nic, CpuSet keptFree) {
                return Planner.plan(topology, nic.planRequest(topology, Purpose.IRQS).withMode(Mode.SIBLINGS));
            }
        };
    }

    /** The first of {@code events} (a synchronized list) that is {@code wanted}, waiting up to 20 s for it. */
    static WatchEvent awaitEvent(List<WatchEvent> events, Predicate<WatchEvent> wanted) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (System.nanoTime() < deadline) {
            synchronized (events) {
                for (WatchEvent event : events) {
                    if (wanted.test(event)) {
                        return event;
                    }
                }
            }
            Thread.sleep(20);
        }
        throw new AssertionError("no such event in " + events);
    }
}
