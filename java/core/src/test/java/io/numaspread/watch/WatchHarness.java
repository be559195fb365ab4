// SPDX-License-Identifier: Apache-2.0
package io.numaspread.watch;

import io.numaspread.plan.Mode;
import io.numaspread.plan.PlanFlags;
import io.numaspread.plan.Policy;
import io.numaspread.testing.MachineShape;
import io.numaspread.testing.SysfsFixture;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/** What the watcher tests share: the mana machine read from a fake tree, and waiting for a reported event. */
final class WatchHarness {
    private WatchHarness() {}

    /**
     * The mana machine written under {@code sys}, planned as {@code --siblings} plans it (each queue its sibling
     * group; a NIC's IRQs are planned one CPU per queue by default, {@code Nic#planRequest}); nothing kept free.
     */
    static Watcher.Planning mana(Path sys) {
        SysfsFixture.write(MachineShape.mana(), sys);
        return asWritten();
    }

    /** Planned as {@link #mana}'s, on the machine as the tree shows it at each read (a test takes CPUs offline). */
    static Watcher.Planning asWritten() {
        return new Watcher.Planning(
                new PlanFlags(Optional.of(Mode.SIBLINGS), Policy.KERNEL, false, Optional.empty(), Optional.empty()),
                Optional.empty(),
                Optional.empty());
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
