// SPDX-License-Identifier: Apache-2.0
package io.numaspread.irq;

import io.numaspread.kernel.ThreadScheduling;
import io.numaspread.nic.NapiSettings;
import io.numaspread.nic.Nic;
import io.numaspread.plan.PollPlan;
import io.numaspread.plan.SpreadPlan;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * What one apply writes. Each kind knows which way of applying it takes ({@code NapiThreadsApply}, {@code
 * NapiSettingsApply} or the plain transaction), so that {@link NicPlacement#apply} is the one entry for all of them.
 */
public abstract sealed class Wanted permits Wanted.Plan, Wanted.Only, Wanted.Suspended {
    private Wanted() {}

    /**
     * Everything the plan places: each queue's IRQ, with {@link NicPlacement.Options#xps} its XPS mask, and with
     * {@link NicPlacement.Options#napiThreads} its NAPI thread, in the same transaction ({@code threaded} is set to
     * 1 when it is 0, recorded so that restore puts back 0).
     *
     * @param plan one assignment per queue of the NIC, as planned from {@link Nic#planRequest}
     */
    public static Wanted plan(SpreadPlan plan) {
        return new Plan(plan, Optional.empty(), Optional.empty());
    }

    /**
     * As {@link #plan(SpreadPlan)}, and each polled queue's NAPI set to busy-poll ({@code threaded} 2, Linux
     * 6.19) with its thread pinned to its poll CPU, recorded so that restore puts {@code threaded} back.
     *
     * @param plan the IRQ plan, planned with {@link PollPlan#avoidedBy} so that it stays off the poll cores
     */
    public static Wanted polled(SpreadPlan plan, PollPlan poll) {
        return new Plan(plan, Optional.of(poll), Optional.empty());
    }

    /**
     * As {@link #polled(SpreadPlan, PollPlan)}, and each busy-poll thread set to {@code scheduling} with {@code
     * sched_setscheduler} once pinned, its class before recorded so that restore puts it back.
     */
    public static Wanted polled(SpreadPlan plan, PollPlan poll, ThreadScheduling scheduling) {
        return new Plan(plan, Optional.of(poll), Optional.of(scheduling));
    }

    /**
     * As {@link #plan(SpreadPlan)}, and {@code settings} written to the NAPI of each planned queue with {@code
     * napi-set} (IRQ suspension's per-NAPI half), all or nothing with the rest: each NAPI's settings are read
     * (a kernel without them, before Linux 6.13, is refused here), recorded in the NIC's state file ({@link
     * RecordedNapiSettings}, which {@code restore} puts back) and written before the IRQs; a failed {@code
     * napi-set} puts back those already written, and a failed IRQ transaction puts back every NAPI's settings.
     * The outcome's {@link NicPlacement.Outcome#napiSettings} says what each NAPI had.
     */
    public static Wanted suspended(SpreadPlan plan, NapiSettings settings, NicPlacement.NapiSettingsAccess access) {
        return new Suspended(plan, settings, access);
    }

    /**
     * These settings and no others ({@code watch} leaves IRQs that another writer fights over alone for a
     * while), with threaded NAPI as it is.
     *
     * @param settings from {@link IrqPlan#settings}, or some of them, maybe with settings of NAPI threads
     * @param threads how the NAPI threads of {@code settings} are found and pinned
     */
    public static Wanted only(List<Setting> settings, NapiThreads threads) {
        return new Only(settings, threads);
    }

    abstract NicPlacement.Outcome applyBy(
            NicPlacement placement, Nic nic, NicPlacement.Options options, Path stateFile);

    /** The whole plan, with busy-poll cores or without, and their threads' scheduling class if one is asked. */
    public static final class Plan extends Wanted {
        private final SpreadPlan plan;
        private final Optional<PollPlan> poll;
        private final Optional<ThreadScheduling> pollScheduling;

        private Plan(SpreadPlan plan, Optional<PollPlan> poll, Optional<ThreadScheduling> pollScheduling) {
            if (pollScheduling.isPresent() && poll.isEmpty()) {
                throw new IllegalArgumentException("a busy-poll threads' scheduling class without busy polling");
            }
            this.plan = plan;
            this.poll = poll;
            this.pollScheduling = pollScheduling;
        }

        public SpreadPlan plan() {
            return plan;
        }

        public Optional<PollPlan> poll() {
            return poll;
        }

        public Optional<ThreadScheduling> pollScheduling() {
            return pollScheduling;
        }

        @Override
        NicPlacement.Outcome applyBy(NicPlacement placement, Nic nic, NicPlacement.Options options, Path stateFile) {
            if (!options.napiThreads() && poll.isEmpty()) {
                return placement.applyPlain(
                        nic, IrqPlan.settings(nic, plan, options.xps()), NapiThreads.NONE, options, stateFile);
            }
            return new NapiThreadsApply(placement, placement.napiAccess(nic.name()))
                    .apply(nic, this, options, stateFile);
        }
    }

    /** The whole plan and IRQ suspension's NAPI settings. */
    public static final class Suspended extends Wanted {
        private final SpreadPlan plan;
        private final NapiSettings settings;
        private final NicPlacement.NapiSettingsAccess access;

        private Suspended(SpreadPlan plan, NapiSettings settings, NicPlacement.NapiSettingsAccess access) {
            this.plan = plan;
            this.settings = settings;
            this.access = access;
        }

        public SpreadPlan plan() {
            return plan;
        }

        /** What each planned NAPI gets. */
        public NapiSettings settings() {
            return settings;
        }

        @Override
        NicPlacement.Outcome applyBy(NicPlacement placement, Nic nic, NicPlacement.Options options, Path stateFile) {
            return new NapiSettingsApply(placement).apply(nic, plan, options, settings, access, stateFile);
        }
    }

    /** Some settings. */
    public static final class Only extends Wanted {
        private final List<Setting> settings;
        private final NapiThreads threads;

        private Only(List<Setting> settings, NapiThreads threads) {
            this.settings = List.copyOf(settings);
            this.threads = threads;
        }

        public List<Setting> settings() {
            return settings;
        }

        @Override
        NicPlacement.Outcome applyBy(NicPlacement placement, Nic nic, NicPlacement.Options options, Path stateFile) {
            return placement.applyPlain(nic, settings, threads, options, stateFile);
        }
    }
}
