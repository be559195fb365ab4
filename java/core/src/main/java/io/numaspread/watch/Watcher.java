// SPDX-License-Identifier: Apache-2.0
package io.numaspread.watch;

import io.numaspread.NumaspreadException;
import io.numaspread.irq.AffinityTransaction;
import io.numaspread.irq.IrqPlan;
import io.numaspread.irq.NicPlacement;
import io.numaspread.irq.PlacementOptions;
import io.numaspread.irq.Setting;
import io.numaspread.irq.StateFile;
import io.numaspread.kernel.InterfaceName;
import io.numaspread.kernel.KernelFiles;
import io.numaspread.kernel.KernelPaths;
import io.numaspread.nic.NapiSettingsChange;
import io.numaspread.nic.QueueLeases;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * Keeps NICs' queue plans applied: applies each plan, then checks again after every kernel event that concerns
 * the NIC or the CPUs ({@link #post}) and every drift interval. A check reads the machine and the NIC afresh and
 * plans again; when what the plan depends on changed ({@link NicSnapshot}) it applies the new plan, and when only
 * the IRQs' files changed it puts the plan back, unless another writer keeps changing them ({@link Fight}). Files
 * found changed are judged after the NIC and the CPUs are read once more, a settle interval later: drivers move
 * their IRQs before the change they make shows, and such a move is reported as that change, not as drift. All
 * writes go through {@link NicPlacement}, as {@code apply}'s do: the state file, all or nothing, managed IRQs,
 * the irqbalance refusal. What each check does or finds is reported as a {@link WatchEvent}.
 */
public final class Watcher {
    /** Hears what the watcher does, as {@link WatchEvent}s, on the watcher's thread. */
    public interface Listener {
        void heard(WatchEvent event);
    }

    /**
     * @param interval how often the files are compared with the plan when no event comes
     * @param settle how long a burst of events is collected before the check (a channel change sends several)
     * @param placement what every apply chooses, as {@code apply}'s flags give it: force (write even though
     *     irqbalance runs), XPS (also keep each transmit queue's {@code xps_cpus}), NAPI threads
     * @param stateDirectory where each NIC's state file {@code IFACE.json} is ({@code /run/numaspread})
     * @param napi how each NIC's NAPI threads are found and pinned, which keeps them on their queues' CPUs and
     *     threaded NAPI on; present when {@code placement} pins NAPI threads or busy-poll cores are planned
     * @param napiSettings how the restore at the end puts back the NAPI settings a state file records (an
     *     {@code apply --irq-suspend} before watch started): netdev netlink on the running kernel, {@link
     *     NapiSettingsChange.Access#NONE} over a stand-in tree
     * @param leases where each check learns the NIC's leased rx queues, planned on their lessees' CPUs as {@code
     *     apply} plans them
     */
    public record Settings(
            Duration interval,
            Duration settle,
            Backoff backoff,
            PlacementOptions placement,
            Path stateDirectory,
            Optional<Function<InterfaceName, NicPlacement.NapiAccess>> napi,
            NapiSettingsChange.Access napiSettings,
            QueueLeases.Source leases) {
        public Settings {
            if (napi.isEmpty() && placement.napiThreads()) {
                throw new IllegalArgumentException(
                        "NAPI thread access must be given when NAPI threads are pinned (" + placement + ")");
            }
        }

        public Settings(
                Duration interval, Duration settle, Backoff backoff, PlacementOptions placement, Path stateDirectory) {
            this(
                    interval,
                    settle,
                    backoff,
                    placement,
                    stateDirectory,
                    Optional.empty(),
                    NapiSettingsChange.Access.NONE,
                    QueueLeases.Source.NONE);
        }

        boolean xps() {
            return placement.xps();
        }

        NicPlacement.Options placement(boolean dryRun) {
            return new NicPlacement.Options(placement, dryRun);
        }
    }

    private static final Duration AFTER_EVENT_RECHECK = Duration.ofMillis(1500);

    /** The NICs watched now: those given, or the members of the upper device followed ({@link #follow}). */
    private final List<InterfaceName> nics;

    private final Settings settings;
    private final WatchedState stateFiles;
    private final LeftMembers leftMembers;
    private final Listener listener;
    private final Clock clock;
    private final Settler settler;
    private final KernelReader reader;
    private final NapiUpkeep napi;
    private final Reapplier reapplier;
    /** Every apply's: the watched trees, the NICs' NAPI access, a state file per NIC in the state directory. */
    private final NicPlacement placement;
    /** Whether the last burst was a flood (cut short, or events not kept): a flood is said once while it lasts. */
    private boolean flooding;

    private final Map<InterfaceName, Placed> placed = new LinkedHashMap<>();
    private final CountDownLatch finished = new CountDownLatch(1);
    /** The NICs' state files, held from {@link #start} (or a NIC's joining) to the end of {@link #run}. */
    private final Map<InterfaceName, StateFile.Lock> holds = new LinkedHashMap<>();
    /** The upper device whose members are watched, read again at each check; none for a watch of NICs. */
    private volatile Optional<UpperMembers> members = Optional.empty();
    /** Why a NIC that joined could not be watched, said once while it lasts: each check tries again. */
    private final Map<InterfaceName, String> notJoined = new HashMap<>();

    private volatile boolean stopping;

    public Watcher(
            List<InterfaceName> nics,
            KernelPaths paths,
            KernelFiles files,
            WatchPlanning planning,
            Settings settings,
            Listener listener,
            Clock clock) {
        if (planning.poll().isPresent() && settings.napi().isEmpty()) {
            throw new IllegalArgumentException("busy-poll cores need NAPI thread access");
        }
        // Read by the event threads, changed by the watch loop when a member joins or leaves.
        this.nics = new CopyOnWriteArrayList<>(nics);
        this.settings = settings;
        this.listener = listener;
        this.clock = clock;
        this.placement = new NicPlacement(
                paths,
                files,
                settings.napi(),
                NicPlacement.StateLocation.directory(settings.stateDirectory()),
                settings.napiSettings());
        this.stateFiles = new WatchedState(paths, files, settings.stateDirectory(), placement);
        this.leftMembers = new LeftMembers(stateFiles);
        this.settler = new Settler(settings.settle(), clock);
        this.reader = new KernelReader(
                this.nics,
                paths,
                planning,
                iface -> placed.get(iface).snapshot.map(NicSnapshot::plan).orElse(List.of()),
                settings,
                placement,
                listener,
                settler);
        this.napi = new NapiUpkeep(paths, files, settings, placement, listener, settler);
        this.reapplier = new Reapplier(paths, settings, placement, stateFiles, listener, settler, napi);
        nics.forEach(nic -> placed.put(nic, new Placed()));
    }

    /**
     * From any thread: a kernel event to react to. One that concerns none of the watched NICs (another
     * interface's) is dropped here, so that it never holds a check back. When the queue is full the event is not
     * kept, only counted: the next check then reads every NIC afresh.
     *
     * @return whether the event concerns a watched NIC (kept or counted)
     */
    public boolean post(KernelEvent event) {
        if (nics.stream().noneMatch(iface -> concerns(event, iface))) {
            return false;
        }
        settler.offer(event);
        return true;
    }

    /**
     * Watches the members of {@code upper}'s upper devices rather than the NICs the watcher was made with, from the
     * first check after {@link #start}: a NIC that joins is held and planned as at the start, one that leaves is
     * restored and let go. Called before {@link #start}.
     */
    public void follow(UpperMembers upper) {
        members = Optional.of(upper);
    }

    /**
     * Whether {@code event} concerns {@code iface}: it names it, or names none, or names an upper device followed
     * (a member joining changes the bond, whose link message is then the only one of a watched name).
     */
    private boolean concerns(KernelEvent event, InterfaceName iface) {
        return event.concerns(iface.value())
                || members.map(upper -> upper.concerns(event)).orElse(false);
    }

    /** How many events wait now: never more than {@link Settler#EVENT_CAPACITY}, however fast they come. */
    int waiting() {
        return settler.waiting();
    }

    /**
     * Holds every NIC's state file ({@link StateFile#hold}) for as long as the watcher runs, until {@link #run}
     * ends, so that another watch, apply or restore of the NIC is refused, naming this process, rather than fight
     * this one or be undone at its next check; then applies every NIC's plan, as {@code apply} would.
     *
     * @throws NumaspreadException (refused) when another process holds a NIC's state file; as {@link
     *     NicPlacement#apply} does; nothing is left changed or held
     */
    public void start() {
        try {
            for (InterfaceName iface : nics) {
                holds.put(iface, stateFiles.hold(iface));
            }
            for (InterfaceName iface : nics) {
                check(iface, Trigger.START, List.of());
            }
        } catch (RuntimeException e) {
            release();
            throw e;
        }
    }

    /** Lets go of the NICs' state files, the last thing the watcher does. */
    private void release() {
        holds.values().forEach(StateFile.Lock::close);
        holds.clear();
    }

    /**
     * Watches until {@link #stop}; then, with {@code restoreOnExit}, puts back every value it changed. Each turn
     * waits for the first event until a check is due; events are collected for a settle interval (a channel change
     * sends several), then every NIC they concern is checked, and checked again a recheck later (drivers finish
     * some changes after their events); with no event, every NIC is checked at each drift interval.
     */
    public void run(boolean restoreOnExit) {
        try {
            Instant nextDrift = clock.instant().plus(settings.interval());
            Optional<Instant> recheck = Optional.empty();
            while (!stopping) {
                Instant drift = nextDrift;
                KernelEvent first = settler.firstUntil(
                        recheck.filter(at -> at.isBefore(drift)).orElse(drift));
                if (stopping) {
                    break;
                }
                if (first == null) {
                    // Events that came while the last check ran are this wake-up's, whatever woke it: a
                    // drift check must not report their change as found by the timer.
                    first = settler.waitingNow();
                }
                if (first != null) {
                    checkConcerned(settler.settle(first, () -> stopping));
                    recheck = Optional.of(clock.instant().plus(AFTER_EVENT_RECHECK));
                } else if (recheck.isPresent() && !clock.instant().isBefore(recheck.get())) {
                    recheck = Optional.empty();
                    followMembers(List.of());
                    nics.forEach(iface -> check(iface, Trigger.RECHECK, List.of()));
                } else {
                    followMembers(List.of());
                    nics.forEach(iface -> check(iface, Trigger.DRIFT_CHECK, List.of()));
                    nextDrift = clock.instant().plus(settings.interval());
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            try {
                if (restoreOnExit) {
                    nics.forEach(iface -> reapplier.restore(iface, placed.get(iface)));
                }
                leftMembers.putBack(true).forEach(listener::heard);
            } finally {
                release();
                finished.countDown();
            }
        }
    }

    /** From any thread (a shutdown hook): stops {@link #run} and waits until it has finished, restore included. */
    public void stop(Duration wait) throws InterruptedException {
        stopping = true;
        // A full queue wakes the loop as well: it sees stopping.
        settler.wake(new KernelEvent("watch", "stop", Optional.empty()));
        finished.await(wait.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** Checks every NIC that {@code burst}'s events concern, with them, after saying a flood that begins. */
    private void checkConcerned(Settler.Burst burst) {
        boolean begins = !flooding;
        flooding = burst.flood();
        List<InterfaceName> joined = followMembers(burst.events());
        for (InterfaceName iface : nics) {
            List<KernelEvent> concerning = concerning(iface, burst.events());
            if (!concerning.isEmpty() && !joined.contains(iface)) {
                if (burst.flood()) {
                    listener.heard(new WatchEvent.Flood(
                            iface,
                            burst.collected(),
                            burst.count(),
                            burst.notKept(),
                            burst.quiet(),
                            settler.maxSettle(),
                            begins));
                }
                check(iface, Trigger.EVENT, concerning);
            }
        }
    }

    private List<KernelEvent> concerning(InterfaceName iface, List<KernelEvent> events) {
        return events.stream().filter(e -> concerns(e, iface)).toList();
    }

    /**
     * With an upper device followed, reads its members again: a NIC that joined is held and planned as at the
     * start, its originals recorded; one that left, its interface still there, is restored as at the end and let
     * go. Each is said in one line. Without one, nothing: the NICs given are watched as they are.
     *
     * @return the NICs that joined, planned already after {@code events}
     */
    private List<InterfaceName> followMembers(List<KernelEvent> events) {
        if (members.isEmpty()) {
            return List.of();
        }
        leftMembers.putBack(false).forEach(listener::heard);
        UpperMembers.Change change;
        try {
            change = members.get().change(nics);
        } catch (NumaspreadException e) {
            // Sysfs changing while it is read (a lower device's link left as the device goes): the members stay as
            // they are until a check reads it well.
            return List.of();
        }
        for (InterfaceName iface : change.left()) {
            WatchEvent restored = leftMembers.left(iface, placed.get(iface).threads());
            holds.remove(iface).close();
            nics.remove(iface);
            placed.remove(iface);
            listener.heard(new WatchEvent.Left(
                    iface, members.get().followed(), restored, settler.after(iface, concerning(iface, events))));
        }
        List<InterfaceName> joined = new ArrayList<>();
        change.joined().forEach((iface, relation) -> {
            if (join(iface, relation, concerning(iface, events))) {
                joined.add(iface);
            }
        });
        return joined;
    }

    /** Holds {@code iface}'s state file and applies its share of the plan, as {@link #start} does for each NIC. */
    private boolean join(InterfaceName iface, String relation, List<KernelEvent> events) {
        try {
            holds.put(iface, stateFiles.hold(iface));
            placed.put(iface, new Placed());
            nics.add(iface);
            check(iface, Trigger.START, events);
        } catch (NumaspreadException e) {
            // Nothing is left held or watched, as when the start fails; the next check tries again.
            Optional.ofNullable(holds.remove(iface)).ifPresent(StateFile.Lock::close);
            nics.remove(iface);
            placed.remove(iface);
            if (!e.getMessage().equals(notJoined.put(iface, e.getMessage()))) {
                listener.heard(new WatchEvent.Failed(iface, e, events));
            }
            return false;
        }
        notJoined.remove(iface);
        leftMembers.joined(iface);
        listener.heard(new WatchEvent.Joined(iface, relation, events));
        return true;
    }

    private void check(InterfaceName iface, Trigger trigger, List<KernelEvent> events) {
        check(iface, trigger, events, true);
    }

    private void check(InterfaceName iface, Trigger trigger, List<KernelEvent> events, boolean mayCheckAgain) {
        Placed state = placed.get(iface);
        state.busyPoll = List.of();
        state.busyPollSaid = false;
        state.changedFirst = List.of();
        Instant now = clock.instant();
        Optional<Reading> first = reader.read(iface, state, trigger, events, now);
        if (first.isEmpty()) {
            return;
        }
        Reading reading = first.get();
        try {
            List<Setting> wanted = wanted(iface, state, reading, trigger, events);
            if (trigger == Trigger.START) {
                NicPlacement.Outcome outcome = reapplier.apply(state, reading.nic(), wanted);
                listener.heard(new WatchEvent.Applied(iface, Reapplier.counts(state, outcome), outcome.stateFile()));
                napi.sayBusyPoll(iface, state, List.of(), outcome.results(), List.of());
            } else if (KernelReader.changedSince(state, reading)) {
                List<AffinityTransaction.Result> found = KernelReader.cameBackAsItWent(state, reading)
                        ? reader.readBack(state, reading.nic(), wanted)
                        : List.of();
                if (!found.isEmpty() && found.stream().noneMatch(KernelReader::moved) && state.changedFirst.isEmpty()) {
                    // The NIC is back as it went, its files as planned: igb frees its vectors while its link is
                    // down (no handler in /proc/interrupts, so it went) and requests the same ones at up, their
                    // affinity kept by the kernel. Kept, not planned again; said at the recheck after the events,
                    // or now when a timed check found it back.
                    if (trigger == Trigger.EVENT) {
                        state.remember(events);
                    } else {
                        listener.heard(
                                new WatchEvent.Kept(iface, KernelReader.held(found), settler.after(iface, events)));
                    }
                } else {
                    reapplier.planAgain(iface, state, reading, wanted, events);
                }
            } else {
                List<AffinityTransaction.Result> found = reader.readBack(state, reading.nic(), wanted);
                List<AffinityTransaction.Result> moved =
                        found.stream().filter(KernelReader::moved).toList();
                if (moved.stream().allMatch(r -> state.fights.containsKey(r.target()))) {
                    // Nothing moved, or only what a writer has been moving lately (a fight, or one to come): a
                    // driver's change moves every queue IRQ, and waiting for one would slow each check of a fight.
                    reapplier.putBack(iface, state, reading.nic(), wanted, found, trigger, events, now);
                } else {
                    // A driver moves its IRQs as part of a change, before the change shows: virtio_net's
                    // set_channels spreads them again before it changes the active queues (and sends their
                    // uevents), its CPU hotplug callbacks before the CPU's uevent. So IRQs found moved are judged
                    // after the NIC and the CPUs are read again, one settle interval later: a move that came with
                    // a change is that change; one that came with events concerning the NIC is left to the check
                    // those events trigger next, which puts it back and names them. Only a move with nothing else
                    // is drift.
                    settler.pause();
                    Optional<Reading> again = reader.read(iface, state, trigger, events, now);
                    if (again.isEmpty()) {
                        return;
                    }
                    if (KernelReader.changedSince(state, again.get())) {
                        reading = again.get();
                        reapplier.planAgain(
                                iface, state, reading, wanted(iface, state, reading, trigger, events), events);
                    } else if (settler.pending(iface).isEmpty() || flooding) {
                        // While events keep coming, the next check would find them pending too: put back now.
                        reapplier.putBack(iface, state, reading.nic(), wanted, found, trigger, events, now);
                    }
                }
            }
        } catch (NumaspreadException e) {
            if (trigger == Trigger.START) {
                throw e;
            }
            Optional<NumaspreadException> vanished = reader.vanished(iface);
            if (vanished.isPresent()) {
                reader.reportGone(iface, state, vanished.get(), events, now);
                return;
            }
            if (mayCheckAgain && reader.changedUnder(iface, reading.nic())) {
                // A file of the plan went with a change the NIC made while this check ran: ethtool -L removes the
                // queues' tx-N directories, their xps_cpus with them. That is the change, to be planned for.
                check(iface, trigger, events, false);
                return;
            }
            if (!state.failure.equals(Optional.of(e.getMessage()))) {
                listener.heard(new WatchEvent.Failed(iface, e, events));
            }
            state.failure = Optional.of(e.getMessage());
            return;
        }
        state.failure = Optional.empty();
        state.present = true;
        state.snapshot = Optional.of(reading.snapshot());
        listener.heard(new WatchEvent.Checked(iface, now, reading.nic(), reading.plan()));
    }

    /**
     * The settings of {@code reading}'s plan, with the NAPI threads'; at the start, what the IRQs' files hold is
     * recorded first.
     */
    private List<Setting> wanted(
            InterfaceName iface, Placed state, Reading reading, Trigger trigger, List<KernelEvent> events) {
        List<Setting> irqSettings = IrqPlan.settings(reading.nic(), reading.plan(), settings.xps());
        if (trigger == Trigger.START) {
            if (reading.poll().isPresent()) {
                // As apply's refusal, before the state file is written.
                placement.refuseWithoutBusyPoll(
                        settings.napi().orElseThrow().apply(iface).perNapi());
            }
            stateFiles.recordOriginals(iface, irqSettings);
        }
        return napi.withNapiThreads(state, reading, irqSettings, trigger, events);
    }
}
