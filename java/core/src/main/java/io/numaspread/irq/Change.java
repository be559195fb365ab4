// SPDX-License-Identifier: Apache-2.0
package io.numaspread.irq;

import io.numaspread.NumaspreadException;
import io.numaspread.kernel.InterfaceName;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * One kind of change an apply makes to the kernel, made all or nothing by {@link AffinityTransaction}: it reads what
 * it is to change, records the values it replaces in the state file before the first write, writes, verifies each
 * write by reading it back, and undoes what it wrote when it or a later change fails. What it records is its kind's
 * {@link StateRecord}, whose {@link Restorer} makes the {@link PutBack} that {@code restore} runs from the file. The
 * kinds: IRQ, XPS and NAPI thread affinity ({@link AffinityChange}), threaded NAPI for the device ({@link
 * DeviceThreadedSwitch}) or NAPI by NAPI ({@link NapiThreadedSwitch}), and the busy-poll threads' scheduling class
 * ({@link BusyPollScheduling}), and Receive Packet Steering off ({@link RpsOff}); NAPI settings are made by {@link
 * RecordedNapiSettings} and put back by {@link NapiSettingsPutBack}. The kinds are a closed set: a new one is a class
 * named in {@code permits} here, and a {@link StateRecord} for what it records.
 */
sealed interface Change permits AffinityChange, BusyPollScheduling, DeviceThreadedSwitch, NapiThreadedSwitch, RpsOff {
    /** Reads the values it is to change, under the state file's lock: what is then to be done is decided. */
    void read();

    /** Whether it has anything to write, once read. */
    boolean changesAnything();

    /**
     * Refuses (REFUSED, "nothing was changed") when this process lacks the privilege to make it, before anything is
     * changed; any other failure is the write's to report, and to roll back.
     */
    void probe();

    /**
     * Refuses a state file whose records this change would be wrong to add to (an IRQ renumbered since it was
     * written), before the first record.
     */
    default void check(StateFile.State existing, Path stateFile) {}

    /** {@code state} recording the values it replaces, keeping any earlier value recorded: written ahead. */
    StateFile.State record(StateFile.State state);

    /**
     * Writes and reads back.
     *
     * @throws Failed when a write of it, or its read-back, failed: it words the failure once everything is undone
     * @throws NumaspreadException when it could not start: the failure stands, followed by what was undone
     */
    void apply();

    /** Puts back what it wrote (also a part of it), newest first; what could not be, each named with why. */
    List<String> undo();

    /** {@code state} without what {@link #record} added, once it is undone. */
    StateFile.State forget(StateFile.State state);

    /** How many changes {@link #undo} puts back, for the roll back's message. */
    int undone();

    /** What its undo did, in words for a failure that nothing else had changed: "threaded is 0 again". */
    default Optional<String> undoneWords() {
        return Optional.empty();
    }

    /** The results of the settings it made, or would make in a dry run. */
    default List<AffinityTransaction.Result> results(boolean dryRun) {
        return List.of();
    }

    /**
     * The failure to throw for {@code failed} when every change, this one's included, was put back.
     *
     * @param undone how many changes were put back, this one's and the earlier ones'
     */
    default NumaspreadException rolledBack(Failed failed, int undone) {
        return failed;
    }

    /** A write of a change or its read-back failed, in words; {@link #rolledBack} says what then became of it. */
    final class Failed extends NumaspreadException {
        private static final long serialVersionUID = 1L;

        /** Whether the kernel refused it for want of privilege (an EPERM). */
        final boolean refused;

        Failed(String message, boolean refused) {
            super(Kind.ROLLED_BACK, message);
            this.refused = refused;
        }

        Failed(String message) {
            this(message, false);
        }
    }

    /** What {@code restore} does with one kind's record: puts back what it holds. */
    interface PutBack {
        /** Refuses, before anything is written, what this process lacks the privilege to put back. */
        void probe();

        /**
         * Puts back each recorded value that is not as recorded and reads it back; what no longer exists has
         * nothing to put back. Adds what it did to {@code results}.
         *
         * @return the failures, each naming what failed
         */
        List<String> putBack(List<AffinityTransaction.Result> results);

        /**
         * Whether it acts on NAPI threads: then it is put back before threaded NAPI is turned off, which stops the
         * threads.
         */
        default boolean needsNapiThreads() {
            return false;
        }
    }

    /**
     * A kind of change that an apply is asked for beside its settings, by a flag that {@code apply} and {@code
     * watch} share ({@link PlacementOptions#asked}): made for the applied interface, after the others.
     */
    interface Asked {
        Change of(ChangeContext kernel, InterfaceName iface);
    }

    /** The {@link PutBack} of a kind's record. */
    interface Restorer<R> {
        PutBack restoring(R record, ChangeContext kernel, InterfaceName iface);
    }
}
