// SPDX-License-Identifier: Apache-2.0
package io.numaspread.pin;

import io.numaspread.CpuSet;
import io.numaspread.plan.Assignment;
import io.numaspread.plan.SpreadPlan;
import java.lang.System.Logger.Level;
import java.util.IllegalFormatException;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Creates threads that pin themselves, as their first action, to the plan's assignments: the k-th thread
 * created takes assignment k mod n. Each pin is logged through {@link System.Logger} and emitted as a JFR
 * {@code io.numaspread.ThreadPin} event.
 *
 * <p>Every CPU of the plan is checked against the process's allowed CPUs when the factory is built, so a bad
 * plan fails there, in the caller's thread. A pin that still fails at run time (the thread's affinity was
 * changed from outside, a CPU went offline) is logged as a warning and recorded in {@link #pins()}; the thread
 * then runs unpinned rather than dying, because an executor whose thread died is worse than one that is not
 * local.
 */
public final class PinnedThreadFactory implements ThreadFactory {
    private static final System.Logger LOG = System.getLogger(PinnedThreadFactory.class.getName());

    private final SpreadPlan plan;
    private final ThreadPinner pinner;
    private final String nameFormat;
    private final ThreadFactory delegate;
    private final AtomicInteger created = new AtomicInteger();
    private final List<ThreadPin> pins = new CopyOnWriteArrayList<>();

    private PinnedThreadFactory(Builder builder) {
        this.plan = builder.plan;
        this.pinner = builder.pinner;
        this.nameFormat = builder.nameFormat;
        this.delegate = builder.delegate;
    }

    public static Builder builder(SpreadPlan plan, ThreadPinner pinner) {
        return new Builder(plan, pinner);
    }

    @Override
    public Thread newThread(Runnable task) {
        int index = created.getAndIncrement();
        Assignment assignment = plan.get(index % plan.size());
        String name = String.format(Locale.ROOT, nameFormat, index);
        Thread thread = delegate.newThread(() -> {
            pinSelf(index, name, assignment);
            task.run();
        });
        thread.setName(name);
        return thread;
    }

    /** The pins done so far, in the order the threads started. */
    public List<ThreadPin> pins() {
        return List.copyOf(pins);
    }

    public SpreadPlan plan() {
        return plan;
    }

    private void pinSelf(int index, String name, Assignment assignment) {
        int tid = pinner.currentTid();
        try {
            pinner.pinCurrentThread(assignment.cpus());
            pins.add(new ThreadPin(index, name, tid, assignment, null));
            LOG.log(
                    Level.INFO,
                    "thread {0} (tid {1}) pinned to CPUs {2}: assignment {3}, node {4}",
                    name,
                    Integer.toString(tid),
                    assignment.cpus(),
                    assignment.index(),
                    assignment.node());
        } catch (RuntimeException e) {
            pins.add(new ThreadPin(index, name, tid, assignment, e.getMessage()));
            LOG.log(
                    Level.WARNING,
                    "thread {0} (tid {1}) runs unpinned: {2}",
                    name,
                    Integer.toString(tid),
                    e.getMessage());
        }
    }

    /**
     * Where one thread went.
     *
     * @param threadIndex k: the thread was the k-th this factory created
     * @param failure why the pin failed, or null when the thread is pinned to the assignment's CPUs
     */
    public record ThreadPin(int threadIndex, String threadName, int tid, Assignment assignment, String failure) {
        public boolean pinned() {
            return failure == null;
        }
    }

    /** Configures a {@link PinnedThreadFactory}. */
    public static final class Builder {
        private final SpreadPlan plan;
        private final ThreadPinner pinner;
        private String nameFormat = "numaspread-pinned-%d";
        private ThreadFactory delegate = Thread::new;

        private Builder(SpreadPlan plan, ThreadPinner pinner) {
            this.plan = Objects.requireNonNull(plan);
            this.pinner = Objects.requireNonNull(pinner);
        }

        /** A {@link String#format} pattern for thread names, given the thread's index k. */
        public Builder names(String format) {
            try {
                String.format(Locale.ROOT, format, 0);
            } catch (IllegalFormatException e) {
                throw new IllegalArgumentException(
                        "thread name pattern \"" + format + "\" is not a format for one " + "int: " + e.getMessage(),
                        e);
            }
            this.nameFormat = format;
            return this;
        }

        /** Creates the threads, for instance Netty's {@code DefaultThreadFactory}; the name is set afterwards. */
        public Builder delegate(ThreadFactory threadFactory) {
            this.delegate = Objects.requireNonNull(threadFactory);
            return this;
        }

        /**
         * @throws CpusNotAllowedException when an assignment holds a CPU this process may not use
         */
        public PinnedThreadFactory build() {
            CpuSet planned = CpuSet.EMPTY;
            for (Assignment assignment : plan.assignments()) {
                planned = planned.union(assignment.cpus());
            }
            pinner.requireAllowed(planned);
            return new PinnedThreadFactory(this);
        }
    }
}
