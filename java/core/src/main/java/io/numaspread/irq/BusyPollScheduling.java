// SPDX-License-Identifier: Apache-2.0
package io.numaspread.irq;

import io.numaspread.NumaspreadException;
import io.numaspread.kernel.Errno;
import io.numaspread.kernel.InterfaceName;
import io.numaspread.kernel.ThreadScheduling;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.SortedSet;

/**
 * Setting the busy-poll threads' scheduling class with {@code sched_setscheduler} ({@code apply --poll-sched}), the
 * last change of an apply: after their affinity. The classes they had are recorded first ({@link
 * NapiThreadSchedRecord}); a failure puts back the threads already set and every other change of the apply.
 */
final class BusyPollScheduling implements Change {
    private final ChangeContext kernel;
    private final InterfaceName iface;
    private final SortedSet<Integer> napiIds;
    private final ThreadScheduling wanted;
    private final Map<Integer, Integer> pids = new LinkedHashMap<>();
    /** Each thread to set, by NAPI ID, with its class before. */
    private final Map<Integer, ThreadScheduling> before = new LinkedHashMap<>();
    /** The NAPIs whose threads were set, the one whose call failed too: its own class changes nothing. */
    private final List<Integer> set = new ArrayList<>();
    /** The NAPIs whose previous class this change added to the state file. */
    private List<Integer> recorded = List.of();

    BusyPollScheduling(ChangeContext kernel, InterfaceName iface, SortedSet<Integer> napiIds, ThreadScheduling wanted) {
        this.kernel = kernel;
        this.iface = iface;
        this.napiIds = napiIds;
        this.wanted = wanted;
    }

    /** Finds each thread and reads its class: the threads exist once threaded NAPI is on. */
    @Override
    public void read() {
        pids.clear();
        before.clear();
        for (int napiId : napiIds) {
            Target target = Target.napiThread(iface, napiId);
            OptionalInt pid = kernel.threads().find(target);
            if (pid.isEmpty()) {
                throw new Failed("no kernel thread " + target.name() + " to set to " + wanted);
            }
            ThreadScheduling now;
            try {
                now = kernel.threads().scheduler().get(pid.getAsInt());
            } catch (IOException e) {
                throw new Failed("reading the scheduling class of " + target.name() + " (pid " + pid.getAsInt()
                        + ") failed: " + Errno.describe(e));
            }
            if (!now.equals(wanted)) {
                pids.put(napiId, pid.getAsInt());
                before.put(napiId, now);
            }
        }
    }

    @Override
    public boolean changesAnything() {
        return !before.isEmpty();
    }

    /** The threads do not exist before threaded NAPI is on: a refusal is the write's, and is rolled back. */
    @Override
    public void probe() {}

    @Override
    public StateFile.State record(StateFile.State state) {
        recorded = NapiEntries.notIn(
                before.keySet(), state.record(NapiThreadSchedRecord.class).before());
        return state.recording(NapiThreadSchedRecord.of(before));
    }

    @Override
    public void apply() {
        for (int napiId : before.keySet()) {
            int pid = pids.get(napiId);
            set.add(napiId);
            String why;
            boolean refused = false;
            try {
                kernel.threads().scheduler().set(pid, wanted);
                ThreadScheduling back = kernel.threads().scheduler().get(pid);
                if (back.equals(wanted)) {
                    continue;
                }
                why = "it reads back as " + back;
            } catch (IOException e) {
                why = Errno.describe(e);
                if (Errno.of(e) == Errno.EPERM) {
                    refused = true;
                    why += ": a real-time scheduling class, and another user's thread, needs CAP_SYS_NICE (root)";
                }
            }
            throw new Failed(
                    "setting " + Target.napiThreadName(iface, napiId) + " (pid " + pid + ") to " + wanted
                            + " with sched_setscheduler failed: " + why,
                    refused);
        }
    }

    @Override
    public List<String> undo() {
        List<String> stuck = new ArrayList<>();
        for (int i = set.size() - 1; i >= 0; i--) {
            int napiId = set.get(i);
            int pid = pids.get(napiId);
            ThreadScheduling was = before.get(napiId);
            try {
                kernel.threads().scheduler().set(pid, was);
                ThreadScheduling back = kernel.threads().scheduler().get(pid);
                if (!back.equals(was)) {
                    stuck.add("pid " + pid + " (reads back as " + back + ", not " + was + ")");
                }
            } catch (IOException e) {
                stuck.add("pid " + pid + " (sched_setscheduler " + was + ": " + Errno.describe(e) + ")");
            }
        }
        return stuck;
    }

    @Override
    public StateFile.State forget(StateFile.State state) {
        return state.with(state.record(NapiThreadSchedRecord.class).without(recorded));
    }

    @Override
    public int undone() {
        return set.size();
    }

    /** A failure of the feature: an EPERM is a refusal (exit 3), anything else a roll back. */
    @Override
    public NumaspreadException rolledBack(Failed failed, int undone) {
        NapiFeatureFailure back = new NapiFeatureFailure(
                NumaspreadException.Kind.ROLLED_BACK,
                NapiFeatureFailure.Feature.POLL_SCHEDULING,
                failed.getMessage() + "; rolled back: "
                        + (undone == 0 ? "nothing had been changed" : "every change was put back")
                        + ", nothing else was touched");
        return failed.refused
                ? new NapiFeatureFailure(
                        NumaspreadException.Kind.REFUSED,
                        NapiFeatureFailure.Feature.POLL_SCHEDULING,
                        back.getMessage(),
                        back)
                : back;
    }

    /**
     * Puts each recorded busy-poll thread's scheduling class back and reads it back; a thread that no longer exists
     * (threaded NAPI turned off, the queue or device removed) has nothing to put back.
     */
    static PutBack restoring(NapiThreadSchedRecord record, ChangeContext kernel, InterfaceName iface) {
        return new PutBack() {
            /** A thread's class is put back by whoever set it: a failure is reported, not refused ahead. */
            @Override
            public void probe() {}

            @Override
            public List<String> putBack(List<AffinityTransaction.Result> results) {
                List<String> failures = new ArrayList<>();
                record.before().forEach((napiId, was) -> {
                    Target target = Target.napiThread(iface, napiId);
                    OptionalInt pid = kernel.threads().find(target);
                    if (pid.isEmpty()) {
                        return;
                    }
                    String where = target.name() + " (pid " + pid.getAsInt() + ")";
                    try {
                        if (kernel.threads().scheduler().get(pid.getAsInt()).equals(was)) {
                            return;
                        }
                        kernel.threads().scheduler().set(pid.getAsInt(), was);
                        ThreadScheduling back = kernel.threads().scheduler().get(pid.getAsInt());
                        if (!back.equals(was)) {
                            failures.add(where + ": set to " + was + " but it reads back as " + back);
                        }
                    } catch (IOException e) {
                        failures.add(where + ": sched_setscheduler " + was + " failed: " + Errno.describe(e)
                                + (Errno.of(e) == Errno.EPERM ? " (needs CAP_SYS_NICE)" : ""));
                    }
                });
                return failures;
            }

            @Override
            public boolean needsNapiThreads() {
                return true;
            }
        };
    }
}
