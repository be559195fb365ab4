// SPDX-License-Identifier: Apache-2.0
package io.numaspread.watch;

import io.numaspread.CpuSet;
import io.numaspread.NumaspreadException;
import io.numaspread.irq.AffinityTransaction;
import io.numaspread.irq.IrqPlan;
import io.numaspread.irq.NapiThreadPlan;
import io.numaspread.irq.NapiThreads;
import io.numaspread.irq.NicPlacement;
import io.numaspread.irq.PlacementOptions;
import io.numaspread.irq.Setting;
import io.numaspread.irq.StateFile;
import io.numaspread.irq.Target;
import io.numaspread.kernel.InterfaceName;
import io.numaspread.kernel.KernelFiles;
import io.numaspread.kernel.KernelPaths;
import io.numaspread.kernel.KernelText;
import io.numaspread.kernel.SysfsTree;
import io.numaspread.nativeaccess.SysfsBackend;
import io.numaspread.nic.NapiInstance;
import io.numaspread.nic.NapiMap;
import io.numaspread.nic.NapiSettingsChange;
import io.numaspread.nic.Nic;
import io.numaspread.nic.NicDiscovery;
import io.numaspread.nic.PerNapiThreaded;
import io.numaspread.plan.PlanFlags;
import io.numaspread.plan.PlanRequest;
import io.numaspread.plan.Planner;
import io.numaspread.plan.PollFlags;
import io.numaspread.plan.PollPlan;
import io.numaspread.plan.Purpose;
import io.numaspread.plan.SpreadPlan;
import io.numaspread.topology.Topology;
import io.numaspread.topology.TopologyDiscovery;
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
import java.util.OptionalInt;
import java.util.TreeMap;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
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
    /**
     * What each check plans with, besides the machine and the NIC it reads: the plan flags, parsed once by the
     * command, the kubelet's CPU state file, whose exclusive CPUs are kept free of queues beyond the flags' own
     * (they change while watch runs: the file is read at every check, {@link KubeletCpuState}), and the busy-poll
     * cores asked for, around which every plan is made as {@code apply --poll-queues} makes it.
     */
    public record Planning(PlanFlags flags, Optional<Path> kubeletCpuState, Optional<PollFlags> poll) {
        /**
         * {@code nic}'s queue IRQs planned on {@code topology}, off {@code keptFree}, with the poll cores when asked
         * for (chosen off {@code keptFree} too), the IRQs off the CPUs those reserve.
         */
        Planned plan(Topology topology, Nic nic, CpuSet keptFree) {
            PlanRequest request = request(topology, nic, keptFree);
            if (poll.isPresent()) {
                PollFlags.Around around = poll.get().plan(topology, request);
                return new Planned(around.irqs(), Optional.of(around.poll()));
            }
            try {
                return new Planned(Planner.plan(topology, request), Optional.empty());
            } catch (IllegalArgumentException e) {
                throw NumaspreadException.badInput(e.getMessage());
            }
        }

        /**
         * {@code nic}'s share of the plan of every watched NIC that is present ({@code watched}, {@code nic} among
         * them), planned together as {@code apply --nic A --nic B} plans them ({@link Planner#together}): no CPU gets a
         * second queue IRQ while one they may use has none. A NIC alone, or busy-poll cores (planned around one NIC's
         * queues), is planned as {@link #plan(Topology, Nic, CpuSet)} plans it.
         */
        Planned plan(Topology topology, Nic nic, List<Nic> watched, CpuSet keptFree) {
            if (poll.isPresent() || watched.size() < 2) {
                return plan(topology, nic, keptFree);
            }
            int index = watched.indexOf(nic);
            if (index < 0) {
                throw new IllegalArgumentException(nic.name() + " is not among the watched NICs " + watched);
            }
            try {
                List<SpreadPlan> shares = Planner.together(
                        topology,
                        watched.stream()
                                .map(n -> request(topology, n, keptFree))
                                .toList());
                return new Planned(shares.get(index), Optional.empty());
            } catch (IllegalArgumentException e) {
                throw NumaspreadException.badInput(e.getMessage());
            }
        }

        private PlanRequest request(Topology topology, Nic nic, CpuSet keptFree) {
            PlanRequest request = flags.applyTo(nic.planRequest(topology, Purpose.IRQS));
            return keptFree.isEmpty()
                    ? request
                    : request.withExclude(request.exclude().union(keptFree));
        }
    }

    /** One check's plan: the queue IRQs', and the busy-poll cores when asked for. */
    record Planned(SpreadPlan irqs, Optional<PollPlan> poll) {}

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
     */
    public record Settings(
            Duration interval,
            Duration settle,
            Backoff backoff,
            PlacementOptions placement,
            Path stateDirectory,
            Optional<Function<InterfaceName, NicPlacement.NapiAccess>> napi,
            NapiSettingsChange.Access napiSettings) {
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
                    NapiSettingsChange.Access.NONE);
        }

        boolean xps() {
            return placement.xps();
        }

        NicPlacement.Options placement(boolean dryRun) {
            return new NicPlacement.Options(placement, dryRun);
        }
    }

    private static final Duration AFTER_EVENT_RECHECK = Duration.ofMillis(1500);
    /**
     * How many events wait at most, and how many a burst keeps: a flood beyond them is not kept event by event
     * but counted, and every NIC is read afresh, which is what the events would have asked for.
     */
    static final int EVENT_CAPACITY = 1024;
    /** How many settle intervals a burst is collected for at most, while its events keep coming. */
    static final int MAX_SETTLE_INTERVALS = 8;

    private static final int TOPOLOGY_ATTEMPTS = 3;
    private static final Duration TOPOLOGY_RETRY = Duration.ofMillis(100);

    private final List<InterfaceName> nics;
    private final KernelPaths paths;
    private final KernelFiles files;
    private final Planning planning;
    private final Settings settings;
    private final WatchedState stateFiles;
    private final Listener listener;
    private final Clock clock;
    private final BlockingQueue<KernelEvent> events = new ArrayBlockingQueue<>(EVENT_CAPACITY);
    /** Events that concerned a NIC but found the queue full, since the last burst took them into account. */
    private final AtomicLong notQueued = new AtomicLong();
    /** Whether the last burst was a flood (cut short, or events not kept): a flood is said once while it lasts. */
    private boolean flooding;

    private final Map<InterfaceName, Placed> placed = new LinkedHashMap<>();
    private final CountDownLatch finished = new CountDownLatch(1);
    /** The NICs' state files, held from {@link #start} to the end of {@link #run}. */
    private final List<StateFile.Lock> holds = new ArrayList<>();
    /** The kubelet's exclusive CPUs last read well: kept while the file cannot be read. */
    private CpuSet lastKeptFree = CpuSet.EMPTY;
    /** Why the kubelet's file could not be read, said when it turns bad and not again until it reads well. */
    private Optional<String> keptFreeProblem = Optional.empty();

    private volatile boolean stopping;

    /** What the watcher last did for one NIC. */
    private static final class Placed {
        Optional<NicSnapshot> snapshot = Optional.empty();
        boolean present = true;
        /** The last failure reported, so that one that lasts is said once, not at every check. */
        Optional<String> failure = Optional.empty();

        Map<Target, Fight> fights = new HashMap<>();
        /** The NIC's NAPI threads, found by name, with the PIDs netlink gave at the last check. */
        Optional<NapiThreads> threads = Optional.empty();
        /** Why the NAPI threads could not be planned at the last check, said once. */
        Optional<String> napiProblem = Optional.empty();
        /** This check's busy-poll threads, each on its poll CPU; none without poll cores. */
        List<Setting> busyPoll = List.of();
        /** Whether this check has said what it did to the busy-poll NAPIs. */
        boolean busyPollSaid;
        /**
         * The settings this check already changed while setting threaded NAPI or busy polling again (that apply
         * writes the whole plan): nothing of the check is then said as kept by the kernel.
         */
        List<Target> changedFirst = List.of();
        /**
         * Events after which a check found the plan held, with nothing to write: said as kept at the recheck after
         * them, if it still holds then (a driver finishes some changes after their events).
         */
        List<KernelEvent> heldAfter = new ArrayList<>();

        /**
         * Adds {@code events} to {@link #heldAfter}, each once and at most {@link #EVENT_CAPACITY} of them: events
         * that keep coming (a flood) never reach the recheck that would say and clear them.
         */
        void remember(List<KernelEvent> events) {
            for (KernelEvent event : events) {
                if (heldAfter.size() < EVENT_CAPACITY && !heldAfter.contains(event)) {
                    heldAfter.add(event);
                }
            }
        }
    }

    public Watcher(
            List<InterfaceName> nics,
            KernelPaths paths,
            KernelFiles files,
            Planning planning,
            Settings settings,
            Listener listener,
            Clock clock) {
        if (planning.poll().isPresent() && settings.napi().isEmpty()) {
            throw new IllegalArgumentException("busy-poll cores need NAPI thread access");
        }
        this.nics = List.copyOf(nics);
        this.paths = paths;
        this.files = files;
        this.planning = planning;
        this.settings = settings;
        this.stateFiles = new WatchedState(paths, files, settings.stateDirectory(), settings.napiSettings());
        this.listener = listener;
        this.clock = clock;
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
        if (nics.stream().noneMatch(iface -> event.concerns(iface.value()))) {
            return false;
        }
        if (!events.offer(event)) {
            notQueued.incrementAndGet();
        }
        return true;
    }

    /** How many events wait now: never more than {@link #EVENT_CAPACITY}, however fast they come. */
    int waiting() {
        return events.size();
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
                holds.add(stateFiles.hold(iface));
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
        holds.forEach(StateFile.Lock::close);
        holds.clear();
    }

    /** Watches until {@link #stop}; then, with {@code restoreOnExit}, puts back every value it changed. */
    public void run(boolean restoreOnExit) {
        try {
            Instant nextDrift = clock.instant().plus(settings.interval());
            Optional<Instant> recheck = Optional.empty();
            while (!stopping) {
                Instant drift = nextDrift;
                Instant due = recheck.filter(at -> at.isBefore(drift)).orElse(drift);
                KernelEvent first = events.poll(
                        Math.max(0, Duration.between(clock.instant(), due).toMillis()), TimeUnit.MILLISECONDS);
                if (stopping) {
                    break;
                }
                if (first == null) {
                    // Events that came while the last check ran are this wake-up's, whatever woke it: a
                    // drift check must not report their change as found by the timer.
                    first = events.poll();
                }
                if (first != null) {
                    Burst burst = settle(first);
                    boolean begins = !flooding;
                    flooding = burst.flood();
                    for (InterfaceName iface : nics) {
                        List<KernelEvent> concerning = burst.events().stream()
                                .filter(e -> e.concerns(iface.value()))
                                .toList();
                        if (!concerning.isEmpty()) {
                            if (burst.flood()) {
                                listener.heard(new WatchEvent.Flood(
                                        iface,
                                        burst.collected(),
                                        burst.count(),
                                        burst.notKept(),
                                        burst.quiet(),
                                        maxSettle(),
                                        begins));
                            }
                            check(iface, Trigger.EVENT, concerning);
                        }
                    }
                    recheck = Optional.of(clock.instant().plus(AFTER_EVENT_RECHECK));
                } else if (recheck.isPresent() && !clock.instant().isBefore(recheck.get())) {
                    recheck = Optional.empty();
                    nics.forEach(iface -> check(iface, Trigger.RECHECK, List.of()));
                } else {
                    nics.forEach(iface -> check(iface, Trigger.DRIFT_CHECK, List.of()));
                    nextDrift = clock.instant().plus(settings.interval());
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            try {
                if (restoreOnExit) {
                    nics.forEach(this::restore);
                }
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
        events.offer(new KernelEvent("watch", "stop", Optional.empty()));
        finished.await(wait.toMillis(), TimeUnit.MILLISECONDS);
    }

    /**
     * The events of one burst, those kept (at most {@link #EVENT_CAPACITY}, and then one that says how many were
     * not, which concerns every NIC), {@code count} of them in all over {@code collected}; {@code quiet} when
     * they stopped for a settle interval before the bound.
     */
    private record Burst(List<KernelEvent> events, long count, long notKept, Duration collected, boolean quiet) {
        /** Cut short while events kept coming, or too many to keep: said, and counted. */
        boolean flood() {
            return !quiet || notKept > 0;
        }
    }

    /** At most this long a burst is collected ({@link #MAX_SETTLE_INTERVALS} settle intervals). */
    private Duration maxSettle() {
        return settings.settle().multipliedBy(MAX_SETTLE_INTERVALS);
    }

    /**
     * Collects the events that follow {@code first} until none came for a settle interval, or for at most
     * {@link #maxSettle}: a steady stream would otherwise hold the check back for as long as it lasts.
     */
    private Burst settle(KernelEvent first) throws InterruptedException {
        Instant start = clock.instant();
        Instant latest = start.plus(maxSettle());
        List<KernelEvent> kept = new ArrayList<>(List.of(first));
        long count = 1;
        long notKept = 0;
        boolean quiet = false;
        while (!stopping) {
            long left = Duration.between(clock.instant(), latest).toMillis();
            long wait = Math.min(settings.settle().toMillis(), left);
            if (wait <= 0) {
                break;
            }
            KernelEvent next = events.poll(wait, TimeUnit.MILLISECONDS);
            if (next == null) {
                quiet = wait == settings.settle().toMillis();
                break;
            }
            count++;
            if (kept.size() < EVENT_CAPACITY) {
                kept.add(next);
            } else {
                notKept++;
            }
        }
        long dropped = notQueued.getAndSet(0);
        notKept += dropped;
        count += dropped;
        if (notKept > 0) {
            kept.add(
                    0,
                    new KernelEvent(
                            "watch",
                            notKept + " events not kept (more than " + EVENT_CAPACITY + " at once)",
                            Optional.empty()));
        }
        return new Burst(kept, count, notKept, Duration.between(start, clock.instant()), quiet);
    }

    private enum Trigger {
        START,
        EVENT,
        RECHECK,
        DRIFT_CHECK
    }

    /** What one check read: the NIC, the plan made for it, and what that plan depends on. */
    private record Reading(Nic nic, SpreadPlan plan, Optional<PollPlan> poll, NicSnapshot snapshot) {}

    private void check(InterfaceName iface, Trigger trigger, List<KernelEvent> events) {
        check(iface, trigger, events, true);
    }

    /** {@code mayCheckAgain}: a check that failed because the NIC changed under it checks once more. */
    private void check(InterfaceName iface, Trigger trigger, List<KernelEvent> events, boolean mayCheckAgain) {
        Placed state = placed.get(iface);
        state.busyPoll = List.of();
        state.busyPollSaid = false;
        state.changedFirst = List.of();
        Instant now = clock.instant();
        Optional<Reading> first = read(iface, state, trigger, events, now);
        if (first.isEmpty()) {
            return;
        }
        Reading reading = first.get();
        try {
            List<Setting> wanted = wanted(iface, state, reading, trigger, events);
            if (trigger == Trigger.START) {
                NicPlacement.Outcome outcome = apply(state, reading.nic(), wanted);
                listener.heard(new WatchEvent.Applied(iface, counts(state, outcome), outcome.stateFile()));
                sayBusyPoll(iface, state, List.of(), outcome.results(), List.of());
            } else if (changedSince(state, reading)) {
                List<AffinityTransaction.Result> found =
                        cameBackAsItWent(state, reading) ? readBack(iface, state, reading.nic(), wanted) : List.of();
                if (!found.isEmpty() && found.stream().noneMatch(Watcher::moved) && state.changedFirst.isEmpty()) {
                    // The NIC is back as it went, its files as planned: igb frees its vectors while its link is
                    // down (no handler in /proc/interrupts, so it went) and requests the same ones at up, their
                    // affinity kept by the kernel. Kept, not planned again; said at the recheck after the events,
                    // or now when a timed check found it back.
                    if (trigger == Trigger.EVENT) {
                        state.remember(events);
                    } else {
                        listener.heard(new WatchEvent.Kept(iface, held(found), after(iface, events)));
                    }
                } else {
                    planAgain(iface, state, reading, wanted, events);
                }
            } else {
                List<AffinityTransaction.Result> found = readBack(iface, state, reading.nic(), wanted);
                List<AffinityTransaction.Result> moved =
                        found.stream().filter(Watcher::moved).toList();
                if (moved.stream().allMatch(r -> state.fights.containsKey(r.target()))) {
                    // Nothing moved, or only what a writer has been moving lately (a fight, or one to come): a
                    // driver's change moves every queue IRQ, and waiting for one would slow each check of a fight.
                    putBack(iface, state, reading.nic(), wanted, found, trigger, events, now);
                } else {
                    // A driver moves its IRQs as part of a change, before the change shows: virtio_net's
                    // set_channels spreads them again before it changes the active queues (and sends their
                    // uevents), its CPU hotplug callbacks before the CPU's uevent. So IRQs found moved are judged
                    // after the NIC and the CPUs are read again, one settle interval later: a move that came with
                    // a change is that change; one that came with events concerning the NIC is left to the check
                    // those events trigger next, which puts it back and names them. Only a move with nothing else
                    // is drift.
                    pause(settings.settle());
                    Optional<Reading> again = read(iface, state, trigger, events, now);
                    if (again.isEmpty()) {
                        return;
                    }
                    if (changedSince(state, again.get())) {
                        reading = again.get();
                        planAgain(iface, state, reading, wanted(iface, state, reading, trigger, events), events);
                    } else if (pending(iface).isEmpty() || flooding) {
                        // While events keep coming, the next check would find them pending too: put back now.
                        putBack(iface, state, reading.nic(), wanted, found, trigger, events, now);
                    }
                }
            }
        } catch (NumaspreadException e) {
            if (trigger == Trigger.START) {
                throw e;
            }
            Optional<NumaspreadException> vanished = vanished(iface);
            if (vanished.isPresent()) {
                reportGone(iface, state, vanished.get(), events, now);
                return;
            }
            if (mayCheckAgain && changedUnder(iface, reading.nic())) {
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
     * The kubelet's exclusive CPUs, read afresh; none without its file. A file that turns bad after the start keeps
     * the last good CPUs, said once, rather than stopping watch; at the start it throws.
     */
    private CpuSet keptFree(InterfaceName iface, Trigger trigger) {
        if (planning.kubeletCpuState().isEmpty()) {
            return CpuSet.EMPTY;
        }
        try {
            lastKeptFree =
                    KubeletCpuState.exclusiveCpus(planning.kubeletCpuState().get());
            keptFreeProblem = Optional.empty();
        } catch (NumaspreadException e) {
            if (trigger == Trigger.START) {
                throw e;
            }
            if (keptFreeProblem.isEmpty()) {
                listener.heard(new WatchEvent.KeptFreeUnreadable(iface, e.getMessage(), lastKeptFree));
            }
            keptFreeProblem = Optional.of(e.getMessage());
        }
        return lastKeptFree;
    }

    /**
     * Reads the machine and the NIC and plans; empty, once said why, when either cannot be read (the machine
     * changing, or the NIC gone). At the start, throws instead.
     */
    private Optional<Reading> read(
            InterfaceName iface, Placed state, Trigger trigger, List<KernelEvent> events, Instant now) {
        CpuSet keptFree = keptFree(iface, trigger);
        Topology topology;
        try {
            topology = currentTopology(trigger);
        } catch (NumaspreadException e) {
            if (trigger == Trigger.START) {
                throw e;
            }
            // The machine is changing, not the NIC: the next check (a recheck follows every event) reads it again.
            // Told apart from a failed check's message, so that each is said once while it lasts.
            String failure = "topology: " + e.getMessage();
            if (!state.failure.equals(Optional.of(failure))) {
                listener.heard(new WatchEvent.TopologyUnreadable(iface, e.getMessage(), after(iface, events)));
            }
            state.failure = Optional.of(failure);
            return Optional.empty();
        }
        try {
            Nic nic = NicDiscovery.discover(iface, paths);
            Planned plan = planning.plan(topology, nic, watchedPresent(nic), keptFree);
            return Optional.of(new Reading(
                    nic,
                    plan.irqs(),
                    plan.poll(),
                    NicSnapshot.of(topology.online(), keptFree, nic, plan.irqs(), plan.poll())));
        } catch (NumaspreadException e) {
            if (trigger == Trigger.START) {
                throw e;
            }
            reportGone(iface, state, e, events, now);
            return Optional.empty();
        }
    }

    /**
     * Every watched NIC that is there now, in the order given, {@code read} among them: the NICs planned together.
     * One that cannot be read is gone (its own check says so), and its CPUs are the others' to use.
     */
    private List<Nic> watchedPresent(Nic read) {
        List<Nic> present = new ArrayList<>();
        for (InterfaceName other : nics) {
            if (other.equals(read.name())) {
                present.add(read);
            } else {
                try {
                    present.add(NicDiscovery.discover(other, paths));
                } catch (NumaspreadException e) {
                    // Gone or going: its own check reports it.
                }
            }
        }
        return present;
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
                placement()
                        .refuseWithoutBusyPoll(
                                settings.napi().orElseThrow().apply(iface).perNapi());
            }
            stateFiles.recordOriginals(iface, irqSettings);
        }
        return withNapiThreads(state, reading, irqSettings, trigger, events);
    }

    /** Whether what the plan depends on changed since the last check (or the NIC came back). */
    private static boolean changedSince(Placed state, Reading reading) {
        return !state.present
                || state.snapshot.map(s -> !s.equals(reading.snapshot())).orElse(true);
    }

    /** Whether the NIC was gone and is back with the vectors, queues, CPUs and plan it had before it went. */
    private static boolean cameBackAsItWent(Placed state, Reading reading) {
        return !state.present && state.snapshot.equals(Optional.of(reading.snapshot()));
    }

    /** The files that hold their planned CPUs, in the plan's order. */
    private static List<Target> held(List<AffinityTransaction.Result> found) {
        return found.stream()
                .filter(r -> r.status() == AffinityTransaction.Status.UNCHANGED)
                .map(AffinityTransaction.Result::target)
                .toList();
    }

    /** Applies the plan made again after a change, and tells what changed. */
    private void planAgain(
            InterfaceName iface, Placed state, Reading reading, List<Setting> wanted, List<KernelEvent> events) {
        Optional<NicSnapshot> before = state.present ? Optional.of(state.snapshot.orElseThrow()) : Optional.empty();
        state.heldAfter.clear();
        stateFiles.pruneStale(iface);
        state.fights.forEach((target, fight) -> {
            if (fight.fighting()) {
                listener.heard(new WatchEvent.FightOver(iface, target, Optional.empty()));
            }
        });
        state.fights.clear();
        NicPlacement.Outcome outcome = apply(state, reading.nic(), wanted);
        countNapiThreads(iface, outcome.results());
        listener.heard(new WatchEvent.Changed(
                iface, before, reading.snapshot(), after(iface, events), counts(state, outcome)));
        sayBusyPoll(iface, state, List.of(), outcome.results(), after(iface, events));
    }

    /** What each file of the plan holds now, as a dry run of the apply reads it. */
    private List<AffinityTransaction.Result> readBack(
            InterfaceName iface, Placed state, Nic nic, List<Setting> wanted) {
        return placement()
                .apply(nic, NicPlacement.Wanted.only(wanted, threadsOf(state)), settings.placement(true))
                .results();
    }

    private static boolean moved(AffinityTransaction.Result result) {
        return result.status() == AffinityTransaction.Status.WOULD_CHANGE;
    }

    /** Sleeps {@code duration}; an interrupt is kept for the watch loop, which stops on it. */
    private static void pause(Duration duration) {
        try {
            Thread.sleep(duration.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Why {@code iface} is no longer there, when it went away between its discovery and the writes: an unbind
     * removes the interface and then frees its IRQs, so a check that found the NIC can then find its IRQ files
     * gone. That is the NIC going, not a failure to report.
     */
    private Optional<NumaspreadException> vanished(InterfaceName iface) {
        try {
            NicDiscovery.discover(iface, paths);
            return Optional.empty();
        } catch (NumaspreadException gone) {
            return Optional.of(gone);
        }
    }

    /** Whether {@code iface}, still there, is no longer the NIC that {@code read} describes. */
    private boolean changedUnder(InterfaceName iface, Nic read) {
        try {
            return !NicDiscovery.discover(iface, paths).equals(read);
        } catch (NumaspreadException gone) {
            return false;
        }
    }

    private void reportGone(
            InterfaceName iface, Placed state, NumaspreadException why, List<KernelEvent> events, Instant now) {
        boolean justWent = state.present;
        state.present = false;
        state.heldAfter.clear();
        state.failure = Optional.empty();
        listener.heard(new WatchEvent.Gone(
                iface, now, justWent, why.getMessage(), justWent ? after(iface, events) : List.of()));
    }

    /**
     * The topology as it is now (online CPUs change), read again a few times when a read fails after an event: a
     * CPU going offline removes its {@code topology/} directory while {@code online} may still list it, for a few
     * milliseconds. It comes from sysfs every time, whatever the backend: libnuma reads each node's CPUs once per
     * process, and a CPU that comes online later would never be planned.
     */
    private Topology currentTopology(Trigger trigger) {
        SysfsTree sysfs = SysfsTree.at(paths.sysfsRoot());
        for (int attempt = 1; ; attempt++) {
            try {
                return TopologyDiscovery.discover(new SysfsBackend(sysfs, paths.procRoot()), sysfs);
            } catch (NumaspreadException e) {
                if (trigger == Trigger.START || attempt == TOPOLOGY_ATTEMPTS) {
                    throw e;
                }
                try {
                    Thread.sleep(TOPOLOGY_RETRY.toMillis());
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    throw e;
                }
            }
        }
    }

    /**
     * Nothing the plan depends on changed: files that differ from the plan ({@code reading}, from
     * {@link #readBack}) were changed by someone. {@code events}: those that triggered the check; none for a
     * timed check.
     */
    private void putBack(
            InterfaceName iface,
            Placed state,
            Nic nic,
            List<Setting> wanted,
            List<AffinityTransaction.Result> reading,
            Trigger trigger,
            List<KernelEvent> events,
            Instant now) {
        List<AffinityTransaction.Result> moved =
                reading.stream().filter(Watcher::moved).toList();
        for (AffinityTransaction.Result held : reading) {
            if (!moved(held)) {
                state.fights.computeIfPresent(held.target(), (target, fight) -> {
                    Fight next = fight.held(now, settings.backoff());
                    if (fight.fighting() && !next.fighting()) {
                        listener.heard(new WatchEvent.FightOver(
                                iface, target, Optional.of(settings.backoff().window())));
                    }
                    return next == Fight.NONE ? null : next;
                });
            }
        }
        if (moved.isEmpty()) {
            if (state.changedFirst.isEmpty()) {
                heldAcross(iface, state, reading, trigger, events);
            } else {
                state.heldAfter.clear();
            }
            return;
        }
        state.heldAfter.clear();
        boolean byWriter = trigger == Trigger.DRIFT_CHECK;
        List<Target> leftAlone = new ArrayList<>();
        if (byWriter) {
            listener.heard(new WatchEvent.DriftFound(
                    iface,
                    moved.stream().map(AffinityTransaction.Result::target).toList()));
            for (AffinityTransaction.Result result : moved) {
                Fight before = state.fights.getOrDefault(result.target(), Fight.NONE);
                Fight next = before.drifted(now, settings.backoff());
                state.fights.put(result.target(), next);
                if (next.round() > before.round()) {
                    listener.heard(fightRound(iface, result, next, now));
                }
                if (next.backingOff(now)) {
                    leftAlone.add(result.target());
                }
            }
        }
        List<Setting> toWrite =
                wanted.stream().filter(s -> !leftAlone.contains(s.target())).toList();
        List<AffinityTransaction.Result> rewritten =
                moved.stream().filter(r -> !leftAlone.contains(r.target())).toList();
        if (rewritten.isEmpty()) {
            return;
        }
        countNapiThreads(iface, apply(state, nic, toWrite).results());
        List<WatchEvent.Moved> putBack =
                rewritten.stream().map(WatchEvent.Moved::of).toList();
        listener.heard(
                byWriter
                        ? new WatchEvent.DriftPutBack(iface, putBack)
                        : new WatchEvent.ResetPutBack(iface, putBack, events));
    }

    /**
     * Every file of the plan holds its CPUs ({@code reading}): after events, remembered; at the recheck that follows
     * them, said as kept (the kernel kept the placement across them), once for all the events since the last write.
     */
    private void heldAcross(
            InterfaceName iface,
            Placed state,
            List<AffinityTransaction.Result> reading,
            Trigger trigger,
            List<KernelEvent> events) {
        if (trigger == Trigger.EVENT) {
            state.remember(events);
        } else if (trigger == Trigger.RECHECK && !state.heldAfter.isEmpty()) {
            listener.heard(new WatchEvent.Kept(iface, held(reading), state.heldAfter));
            state.heldAfter.clear();
        }
    }

    /** The new round {@code fight} of the fight over {@code result}'s target, found at {@code now}. */
    private WatchEvent.FightRound fightRound(
            InterfaceName iface, AffinityTransaction.Result result, Fight fight, Instant now) {
        List<Writers.Writer> suspects = result.target().kind() == Target.Kind.IRQ
                ? Writers.suspects(paths.procRoot(), result.target().number())
                : List.of();
        Instant until = fight.leaveAloneUntil().orElseThrow();
        return new WatchEvent.FightRound(
                iface,
                result.target(),
                result.before(),
                fight.round(),
                fight.drifts().size(),
                settings.backoff().window(),
                Duration.between(now, until),
                until,
                settings.backoff().cap(),
                suspects);
    }

    private NicPlacement.Outcome apply(Placed state, Nic nic, List<Setting> wanted) {
        return placement().apply(nic, NicPlacement.Wanted.only(wanted, threadsOf(state)), settings.placement(false));
    }

    /** Every apply's: the watched trees, the NICs' NAPI access, a state file per NIC in the state directory. */
    private NicPlacement placement() {
        return new NicPlacement(
                paths, files, settings.napi(), NicPlacement.StateLocation.directory(settings.stateDirectory()));
    }

    private static NapiThreads threadsOf(Placed state) {
        return state.threads.orElse(NapiThreads.NONE);
    }

    /**
     * With {@code --napi-threads}, the plan's settings plus one per NAPI thread, as the kernel names them now; with
     * busy-poll cores, plus each polled queue's thread on its poll CPU. When threaded NAPI is off (someone turned it
     * off, or at the start), or a polled queue's NAPI does not busy-poll (a reset gave the queue a new NAPI, or the
     * kernel forgot its {@code threaded}), it is set again and the threads pinned in one apply, which records
     * {@code threaded}'s previous value; that says one line.
     */
    private List<Setting> withNapiThreads(
            Placed state, Reading reading, List<Setting> wanted, Trigger trigger, List<KernelEvent> events) {
        boolean pinAll = settings.placement().napiThreads();
        Optional<PollPlan> poll = reading.poll();
        if (!pinAll && poll.isEmpty()) {
            return wanted;
        }
        Nic nic = reading.nic();
        SpreadPlan plan = reading.plan();
        NicPlacement.NapiAccess napi = settings.napi().orElseThrow().apply(nic.name());
        Path threadedFile = NicPlacement.threadedFile(paths, nic.name());
        NapiMap map = napi.discover().get();
        List<Setting> threadSettings;
        List<Setting> busyPoll;
        try {
            threadSettings = pinAll ? NapiThreadPlan.settings(nic, plan, map) : List.of();
            busyPoll = poll.map(p -> NapiThreadPlan.busyPoll(nic, p, map)).orElse(List.of());
        } catch (NumaspreadException e) {
            // While the kernel's map cannot tell the threads apart (virtio_net with fewer channels than NAPIs, or
            // no NAPI listed while the link is down), the IRQs are still kept; the threads are pinned again once
            // it can.
            if (trigger == Trigger.START || e.kind() != NumaspreadException.Kind.REFUSED) {
                throw e;
            }
            if (!state.napiProblem.equals(Optional.of(e.getMessage()))) {
                listener.heard(new WatchEvent.NapiThreadsLeft(nic.name(), e.getMessage(), after(nic.name(), events)));
            }
            state.napiProblem = Optional.of(e.getMessage());
            return wanted;
        }
        state.napiProblem = Optional.empty();
        state.busyPoll = busyPoll;
        boolean threadedOff = pinAll && threadedOff(threadedFile, threadSettings, map);
        List<Integer> notPolling = notPolling(busyPoll, map);
        if (threadedOff || !notPolling.isEmpty()) {
            NicPlacement.Outcome outcome = placement()
                    .apply(
                            nic,
                            poll.map(p -> NicPlacement.Wanted.polled(plan, p))
                                    .orElseGet(() -> NicPlacement.Wanted.plan(plan)),
                            settings.placement(false));
            state.changedFirst = outcome.results().stream()
                    .filter(r -> r.status() == AffinityTransaction.Status.CHANGED)
                    .map(AffinityTransaction.Result::target)
                    .toList();
            long pinned = countNapiThreads(nic.name(), outcome.results());
            List<KernelEvent> after = trigger == Trigger.START ? List.of() : after(nic.name(), events);
            if (threadedOff) {
                listener.heard(new WatchEvent.ThreadedTurnedOn(
                        nic.name(),
                        threadedFile,
                        outcome.threading()
                                .filter(way -> way.way() == NicPlacement.ThreadingWay.PER_NAPI)
                                .map(threading -> threading.turnedOn().stream()
                                        .filter(id -> !threading.busyPolled().containsKey(id))
                                        .toList())
                                .orElse(List.of()),
                        pinned,
                        after));
            }
            sayBusyPoll(nic.name(), state, notPolling, outcome.results(), after);
        }
        NapiThreads threads = state.threads.orElseGet(() -> napi.threads(paths, files));
        threads.useNetlinkPids(map);
        state.threads = Optional.of(threads);
        List<Setting> all = new ArrayList<>(wanted);
        all.addAll(NapiThreadPlan.withBusyPoll(threadSettings, busyPoll));
        return all;
    }

    /**
     * How many settings of {@code outcome} ended in each status, those the check changed first ({@link
     * Placed#changedFirst}) counted as changed: the apply that follows found them as that one left them.
     */
    private static Map<AffinityTransaction.Status, Integer> counts(Placed state, NicPlacement.Outcome outcome) {
        Map<AffinityTransaction.Status, Integer> counts = new TreeMap<>();
        for (AffinityTransaction.Result result : outcome.results()) {
            AffinityTransaction.Status status = result.status() == AffinityTransaction.Status.UNCHANGED
                            && state.changedFirst.contains(result.target())
                    ? AffinityTransaction.Status.CHANGED
                    : result.status();
            counts.merge(status, 1, Integer::sum);
        }
        return counts;
    }

    /** The polled queues' NAPIs that do not busy-poll now, as napi-get reports their {@code threaded}. */
    private static List<Integer> notPolling(List<Setting> busyPoll, NapiMap map) {
        return busyPoll.stream()
                .map(setting -> setting.target().number())
                .filter(napiId -> map.byId(napiId)
                        .map(NapiInstance::threaded)
                        .filter(OptionalInt::isPresent)
                        .map(OptionalInt::getAsInt)
                        .map(threaded -> threaded != PerNapiThreaded.BUSY_POLL)
                        .orElse(true))
                .toList();
    }

    /**
     * Says, once per check, what an apply did to the busy-poll NAPIs: {@code switched} were set to busy-poll, the
     * others' threads pinned ({@code results} changed them) or found on their poll CPU, kept.
     */
    private void sayBusyPoll(
            InterfaceName iface,
            Placed state,
            List<Integer> switched,
            List<AffinityTransaction.Result> results,
            List<KernelEvent> after) {
        if (state.busyPoll.isEmpty() || state.busyPollSaid) {
            return;
        }
        state.busyPollSaid = true;
        List<WatchEvent.PolledNapi> napis = new ArrayList<>();
        for (Setting setting : state.busyPoll) {
            int napiId = setting.target().number();
            boolean pinned = results.stream()
                    .anyMatch(r ->
                            r.target().equals(setting.target()) && r.status() == AffinityTransaction.Status.CHANGED);
            napis.add(new WatchEvent.PolledNapi(
                    napiId,
                    setting.cpus().first(),
                    switched.contains(napiId)
                            ? WatchEvent.PollAction.SET
                            : pinned ? WatchEvent.PollAction.PINNED : WatchEvent.PollAction.KEPT));
        }
        listener.heard(new WatchEvent.BusyPoll(iface, napis, after));
    }

    /**
     * Whether threaded NAPI is off for a planned NAPI: as the NAPI's own {@code threaded} says where napi-get
     * reports it (Linux 6.17, where apply turns only the planned NAPIs on and the device's file stays 0),
     * otherwise as the device's file says.
     */
    private static boolean threadedOff(Path threadedFile, List<Setting> threadSettings, NapiMap map) {
        List<OptionalInt> own = threadSettings.stream()
                .map(setting -> map.byId(setting.target().number())
                        .map(NapiInstance::threaded)
                        .orElse(OptionalInt.empty()))
                .toList();
        if (own.stream().allMatch(OptionalInt::isPresent)) {
            return own.stream().anyMatch(value -> value.getAsInt() == 0);
        }
        return KernelText.readOptional(threadedFile).map("0"::equals).orElse(false);
    }

    /** Tells the listener how many NAPI threads {@code results} pinned, and returns it. */
    private long countNapiThreads(InterfaceName iface, List<AffinityTransaction.Result> results) {
        long pinned = results.stream()
                .filter(r -> r.target().kind() == Target.Kind.NAPI_THREAD
                        && r.status() == AffinityTransaction.Status.CHANGED)
                .count();
        if (pinned > 0) {
            listener.heard(new WatchEvent.NapiThreadsPinned(iface, (int) pinned));
        }
        return pinned;
    }

    /**
     * The events a change is put down to: those that triggered the check, or when a timed check found the change
     * first, those that came meanwhile and concern the NIC (left in the queue: the check they trigger finds this
     * change done, and anything newer); empty when none did.
     */
    private List<KernelEvent> after(InterfaceName iface, List<KernelEvent> triggering) {
        return triggering.isEmpty() ? pending(iface) : triggering;
    }

    /** The kernel events waiting in the queue that concern {@code iface}. */
    private List<KernelEvent> pending(InterfaceName iface) {
        return new ArrayList<>(this.events)
                .stream()
                        .filter(event ->
                                event.concerns(iface.value()) && !event.source().equals("watch"))
                        .toList();
    }

    private void restore(InterfaceName iface) {
        listener.heard(stateFiles.restore(iface, threadsOf(placed.get(iface))));
    }
}
