// SPDX-License-Identifier: Apache-2.0
package io.numaspread.watch;

import io.numaspread.irq.PlacementOptions;
import io.numaspread.kernel.InterfaceName;
import io.numaspread.kernel.KernelFiles;
import io.numaspread.kernel.KernelPaths;
import io.numaspread.nic.NapiSettingsChange;
import io.numaspread.nic.QueueLeases;
import io.numaspread.plan.Mode;
import io.numaspread.plan.PlanFlags;
import io.numaspread.plan.Policy;
import io.numaspread.testing.MachineShape;
import io.numaspread.testing.SysfsFixture;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.stream.Collectors;

/** What the watcher tests share: the mana machine read from a fake tree, and waiting for a reported event. */
final class WatchHarness {
    /** eth0's link going down and coming up, as rtnetlink reports them. */
    static final KernelEvent LINK_DOWN = new KernelEvent("rtnetlink", "eth0 RTM_NEWLINK (down)", Optional.of("eth0"));

    static final KernelEvent LINK_UP = new KernelEvent("rtnetlink", "eth0 RTM_NEWLINK (up)", Optional.of("eth0"));

    private WatchHarness() {}

    /**
     * The mana machine written under {@code sys}, planned as {@code --siblings} plans it (each queue its sibling
     * group; a NIC's IRQs are planned one CPU per queue by default, {@code Nic#planRequest}); nothing kept free.
     */
    static WatchPlanning mana(Path sys) {
        SysfsFixture.write(MachineShape.mana(), sys);
        return asWritten();
    }

    /** Planned as {@link #mana}'s, on the machine as the tree shows it at each read (a test takes CPUs offline). */
    static WatchPlanning asWritten() {
        return new WatchPlanning(
                new PlanFlags(Optional.of(Mode.SIBLINGS), Policy.KERNEL, false, Optional.empty(), Optional.empty()),
                Optional.empty(),
                Optional.empty());
    }

    /**
     * {@code watch --per-cpu} of {@code nics}, checking every 100 ms (mana's 8 CPUs are 4 sibling groups, one per
     * queue otherwise), each NIC's state file in {@code states}; what it says goes to {@code events}.
     */
    static Watcher perCpu(List<InterfaceName> nics, KernelPaths paths, Path states, List<WatchEvent> events) {
        return perCpu(nics, paths, states, events, QueueLeases.Source.NONE);
    }

    /** As {@link #perCpu(List, KernelPaths, Path, List)}, each check learning the leased queues from {@code leases}. */
    static Watcher perCpu(
            List<InterfaceName> nics,
            KernelPaths paths,
            Path states,
            List<WatchEvent> events,
            QueueLeases.Source leases) {
        return new Watcher(
                nics,
                paths,
                KernelFiles.DIRECT,
                new WatchPlanning(
                        new PlanFlags(Optional.of(Mode.CPU), Policy.KERNEL, false, Optional.empty(), Optional.empty()),
                        Optional.empty(),
                        Optional.empty()),
                new Watcher.Settings(
                        Duration.ofMillis(100),
                        Duration.ofMillis(10),
                        Backoff.forInterval(Duration.ofMillis(100)),
                        new PlacementOptions(false, false, false),
                        states,
                        Optional.empty(),
                        NapiSettingsChange.Access.NONE,
                        leases),
                events::add,
                Clock.systemUTC());
    }

    /** {@code watcher}'s loop, running on a thread of its own. */
    static Thread running(Watcher watcher) {
        Thread running = new Thread(() -> watcher.run(false));
        running.start();
        return running;
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

    /**
     * The mana NIC's vectors (49-53) leave {@code paths}' /proc/interrupts with a link-down event, until {@code
     * watcher} says it went; then {@code meanwhile} runs and they come back with a link-up event.
     */
    static void linkDownAndUp(KernelPaths paths, Watcher watcher, List<WatchEvent> events, Runnable meanwhile)
            throws Exception {
        String interrupts = Files.readString(paths.interrupts());
        Files.writeString(
                paths.interrupts(),
                Arrays.stream(interrupts.split("\n", -1))
                        .filter(line -> !line.matches(" *(49|5[0-3]):.*"))
                        .collect(Collectors.joining("\n")));
        watcher.post(LINK_DOWN);
        awaitEvent(events, WatchEvent.Gone.class::isInstance);
        meanwhile.run();
        Files.writeString(paths.interrupts(), interrupts);
        watcher.post(LINK_UP);
    }

    /** The {@code kind} events of {@code events} (a synchronized list), in order. */
    static <T extends WatchEvent> List<T> reported(List<WatchEvent> events, Class<T> kind) {
        synchronized (events) {
            return events.stream().filter(kind::isInstance).map(kind::cast).toList();
        }
    }
}
