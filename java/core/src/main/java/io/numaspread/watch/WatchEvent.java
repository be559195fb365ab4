// SPDX-License-Identifier: Apache-2.0
package io.numaspread.watch;

import io.numaspread.CpuSet;
import io.numaspread.NumaspreadException;
import io.numaspread.irq.AffinityTransaction;
import io.numaspread.irq.Target;
import io.numaspread.kernel.InterfaceName;
import io.numaspread.nic.Nic;
import io.numaspread.plan.SpreadPlan;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * What a {@link Watcher} did or found, as values: the command turns them into its lines and its metrics. Each
 * names the NIC ({@link #nic}). {@code after} is always the kernel events the finding is put down to: those that
 * triggered the check or, when a timed check found it first, those that came meanwhile; empty when none did.
 */
public sealed interface WatchEvent {
    InterfaceName nic();

    /** One file of the plan found holding something else: {@code found} is the file's text. */
    record Moved(Target target, String found, CpuSet planned) {
        static Moved of(AffinityTransaction.Result result) {
            return new Moved(result.target(), result.before(), result.planned());
        }
    }

    /** The plan applied at the start; {@code counts}: how many settings ended in each status, in their order. */
    record Applied(InterfaceName nic, Map<AffinityTransaction.Status, Integer> counts, Path stateFile)
            implements WatchEvent {
        public Applied {
            counts = Collections.unmodifiableSortedMap(new TreeMap<>(counts));
        }
    }

    /**
     * What the plan depends on changed, and the new plan was applied. {@code before} is empty when the NIC came
     * back after it was gone.
     */
    record Changed(
            InterfaceName nic,
            Optional<NicSnapshot> before,
            NicSnapshot now,
            List<KernelEvent> after,
            Map<AffinityTransaction.Status, Integer> counts)
            implements WatchEvent {
        public Changed {
            after = List.copyOf(after);
            counts = Collections.unmodifiableSortedMap(new TreeMap<>(counts));
        }
    }

    /** Files found moved by another writer at a drift check, also those then left alone for a fight. */
    record DriftFound(InterfaceName nic, List<Target> targets) implements WatchEvent {
        public DriftFound {
            targets = List.copyOf(targets);
        }
    }

    /** Files another writer moved, found by the drift check and put back. */
    record DriftPutBack(InterfaceName nic, List<Moved> moved) implements WatchEvent {
        public DriftPutBack {
            moved = List.copyOf(moved);
        }
    }

    /**
     * Files found moved at a check after kernel events (the kernel itself moved them: a reset, a link going up)
     * and put back; {@code after} is empty when a recheck after events found them.
     */
    record ResetPutBack(InterfaceName nic, List<Moved> moved, List<KernelEvent> after) implements WatchEvent {
        public ResetPutBack {
            moved = List.copyOf(moved);
            after = List.copyOf(after);
        }
    }

    /**
     * Kernel events concerned the NIC (a link going down and up, a reset) and every file of the plan still held its
     * CPUs at the recheck after them: the kernel kept the placement, nothing was written. {@code held}: the files,
     * in the plan's order; {@code after}: the events since the last check that found something to write.
     */
    record Kept(InterfaceName nic, List<Target> held, List<KernelEvent> after) implements WatchEvent {
        public Kept {
            held = List.copyOf(held);
            after = List.copyOf(after);
        }
    }

    /**
     * A new round of a fight: {@code target} was moved back to {@code found} by {@code writers} (the likely ones;
     * none known when empty). Round 1 came from {@code drifts} drifts within {@code window}; the target is left
     * alone for {@code leftAlone}, until {@code until}, rounds doubling up to {@code cap}.
     */
    record FightRound(
            InterfaceName nic,
            Target target,
            String found,
            int round,
            int drifts,
            Duration window,
            Duration leftAlone,
            Instant until,
            Duration cap,
            List<Writers.Writer> writers)
            implements WatchEvent {
        public FightRound {
            writers = List.copyOf(writers);
        }
    }

    /**
     * The fight over {@code target} has ended: the plan held for {@code heldFor} (a whole window), or, when
     * empty, a change of the NIC or the CPUs planned everything again.
     */
    record FightOver(InterfaceName nic, Target target, Optional<Duration> heldFor) implements WatchEvent {}

    /**
     * A check failed for a reason other than the NIC going; said once while the same failure lasts. The failure
     * itself, not its message, so that a caller can word its way out (an irqbalance that came up, a state file
     * that cannot be written).
     */
    record Failed(InterfaceName nic, NumaspreadException cause, List<KernelEvent> after) implements WatchEvent {
        public Failed {
            after = List.copyOf(after);
        }
    }

    /** The topology could not be read (the machine changing); said once while it lasts. */
    record TopologyUnreadable(InterfaceName nic, String cause, List<KernelEvent> after) implements WatchEvent {
        public TopologyUnreadable {
            after = List.copyOf(after);
        }
    }

    /**
     * The kubelet's CPU state could not be read ({@code problem}) at a check after the start: {@code keptFree}, the
     * CPUs it last gave, are kept free meanwhile. Said when the file turns bad, not again until it reads well.
     */
    record KeptFreeUnreadable(InterfaceName nic, String problem, CpuSet keptFree) implements WatchEvent {}

    /**
     * The NIC is not there (unbound, removed), at each check while it is gone; {@code justWent} at the first,
     * with why and after what.
     */
    record Gone(InterfaceName nic, Instant at, boolean justWent, String cause, List<KernelEvent> after)
            implements WatchEvent {
        public Gone {
            after = List.copyOf(after);
        }
    }

    /**
     * The check of a NIC after a flood of events that concern it: {@code events} of them in {@code collected}.
     * When not {@code quiet} they were still coming at the bound {@code maxSettle}, and the check plans with what
     * came rather than wait for them to stop; {@code notKept} of them were not kept (the queue was full): the
     * check reads every NIC afresh, as they would have asked. {@code begins} at the first check of a flood,
     * which is said once while it lasts.
     */
    record Flood(
            InterfaceName nic,
            Duration collected,
            long events,
            long notKept,
            boolean quiet,
            Duration maxSettle,
            boolean begins)
            implements WatchEvent {}

    /** A check of a NIC that is present ended: what it read and planned. */
    record Checked(InterfaceName nic, Instant at, Nic read, SpreadPlan plan) implements WatchEvent {}

    /** NAPI threads pinned again: re-created (threaded toggled, {@code ethtool -L}, a reset) or moved. */
    record NapiThreadsPinned(InterfaceName nic, int threads) implements WatchEvent {}

    /**
     * Threaded NAPI was off: it was turned on and {@code pinned} threads pinned.
     *
     * @param threadedFile the device's switch, which held 0 and was set to 1 when {@code napis} is empty
     * @param napis the NAPIs turned on one by one with netdev netlink {@code napi-set} (Linux 6.17), the device's
     *     switch left as it was
     */
    record ThreadedTurnedOn(
            InterfaceName nic, Path threadedFile, List<Integer> napis, long pinned, List<KernelEvent> after)
            implements WatchEvent {
        public ThreadedTurnedOn {
            napis = List.copyOf(napis);
            after = List.copyOf(after);
        }
    }

    /** What a check did to a busy-poll NAPI ({@link BusyPoll}). */
    enum PollAction {
        /** Its {@code threaded} was not 2 (a new NAPI after a reset, or set back): set to 2, its thread pinned. */
        SET,
        /** It still busy-polled, but its thread had left its poll CPU (a new thread after a reset): pinned again. */
        PINNED,
        /** It still busy-polled, its thread on its poll CPU: the kernel kept both, nothing was written. */
        KEPT
    }

    /** A polled queue's NAPI, the CPU its thread spins on, and what the check did to it. */
    record PolledNapi(int napiId, int cpu, PollAction action) {}

    /**
     * The busy-poll NAPIs as an apply left them: at the start, when the plan was made again (a reset, {@code
     * ethtool -L}, a NIC back after an unbind), or when one had stopped busy-polling; in the polled queues' order.
     */
    record BusyPoll(InterfaceName nic, List<PolledNapi> napis, List<KernelEvent> after) implements WatchEvent {
        public BusyPoll {
            napis = List.copyOf(napis);
            after = List.copyOf(after);
        }
    }

    /** The NAPI threads cannot be planned for now ({@code cause}); the IRQs are kept. Said once while it lasts. */
    record NapiThreadsLeft(InterfaceName nic, String cause, List<KernelEvent> after) implements WatchEvent {
        public NapiThreadsLeft {
            after = List.copyOf(after);
        }
    }

    /** At the end, nothing to restore: no state file {@code stateFile}, or the kernel discarded every IRQ in it. */
    record NothingToRestore(InterfaceName nic, Path stateFile, boolean discarded) implements WatchEvent {}

    /** At the end, {@code restored} of {@code recorded} values put back from {@code stateFile}, then removed. */
    record Restored(InterfaceName nic, long restored, int recorded, Path stateFile) implements WatchEvent {}

    /**
     * A NIC came under the upper device followed ({@code relation}: "member of bond0 (bond), via bond0.100") and
     * was held and planned with the others, said after its {@link Applied}.
     */
    record Joined(InterfaceName nic, String relation, List<KernelEvent> after) implements WatchEvent {
        public Joined {
            after = List.copyOf(after);
        }
    }

    /**
     * A NIC is no longer under {@code upper}, the upper device followed, its interface still there: {@code restore}
     * says what putting back its originals did; it is no longer watched and its state file no longer held.
     */
    record Left(InterfaceName nic, String upper, WatchEvent restore, List<KernelEvent> after) implements WatchEvent {
        public Left {
            after = List.copyOf(after);
        }
    }

    /** At the end, the restore failed. */
    record RestoreFailed(InterfaceName nic, String cause) implements WatchEvent {}

    /**
     * A NIC left the upper device followed: a bond closes the member it releases, and a closed NIC's vectors take no
     * value, so its originals go back from {@code stateFile}, kept and no longer held, at the second check in a row
     * that finds it open, or at the end ({@link LeftMembers}).
     */
    record WaitsToRestore(InterfaceName nic, Path stateFile) implements WatchEvent {}
}
