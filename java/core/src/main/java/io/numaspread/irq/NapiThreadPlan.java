// SPDX-License-Identifier: Apache-2.0
package io.numaspread.irq;

import io.numaspread.CpuSet;
import io.numaspread.NumaspreadException;
import io.numaspread.nic.NapiInstance;
import io.numaspread.nic.NapiMap;
import io.numaspread.nic.NapiSource;
import io.numaspread.nic.Nic;
import io.numaspread.plan.PollCore;
import io.numaspread.plan.PollPlan;
import io.numaspread.plan.SpreadPlan;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Where each queue's threaded NAPI kernel thread goes: on its queue's planned CPUs, the same the queue's IRQ
 * gets, since the thread does the receive work the IRQ only schedules. Pure.
 */
public final class NapiThreadPlan {
    private NapiThreadPlan() {}

    /**
     * One setting per NAPI instance that {@code map} links to a queue of {@code nic}, in queue order. Instances
     * linked to no queue of the plan (a transmit-only NAPI) get none.
     *
     * @throws NapiFeatureFailure ({@link NapiFeatureFailure.Feature#NAPI_THREADS}, refused) when {@code map} links
     *     no NAPI to any queue, saying what it came from
     * @throws IllegalArgumentException if the plan does not have one assignment per queue
     */
    public static List<Setting> settings(Nic nic, SpreadPlan plan, NapiMap map) {
        if (plan.size() != nic.queues().size()) {
            throw new IllegalArgumentException("the plan has " + plan.size() + " assignments for "
                    + nic.queues().size() + " queues of " + nic.name());
        }
        List<Setting> settings = new ArrayList<>();
        for (int queue : nic.queues()) {
            map.forQueue(queue)
                    .map(NapiInstance::id)
                    .ifPresent(napiId -> settings.add(new Setting(
                            Target.napiThread(nic.name(), napiId),
                            plan.get(nic.planIndex(queue)).cpus())));
        }
        if (settings.isEmpty()) {
            String why = map.source() == NapiSource.INTERRUPTS
                    ? "this kernel has no netdev netlink napi-get (Linux 6.8 or later), which names each NAPI and its"
                            + " thread"
                    : map.instances().isEmpty()
                            ? "netdev netlink napi-get lists no NAPI of it (the kernel lists an"
                                    + " interface's NAPIs only while it is up)"
                            : "netdev netlink links none of its "
                                    + map.instances().size() + " NAPI instances to queues " + nic.queues();
            throw new NapiFeatureFailure(
                    NumaspreadException.Kind.REFUSED,
                    NapiFeatureFailure.Feature.NAPI_THREADS,
                    "cannot tell which NAPI thread serves which queue of " + nic.name() + ": " + why + " ("
                            + map.detail() + "); nothing was changed");
        }
        return settings;
    }

    /**
     * The busy-poll threads: the i-th polled queue is the NIC's i-th queue, and its NAPI's thread spins on {@code
     * poll}'s i-th CPU alone, in queue order.
     *
     * @throws NapiFeatureFailure ({@link NapiFeatureFailure.Feature#BUSY_POLL}) bad input when the NIC has fewer
     *     queues than {@code poll} polls; refused when {@code map} links no NAPI to a polled queue, saying what it
     *     came from
     */
    public static List<Setting> busyPoll(Nic nic, PollPlan poll, NapiMap map) {
        if (poll.cores().size() > nic.queues().size()) {
            throw new NapiFeatureFailure(
                    NumaspreadException.Kind.BAD_INPUT,
                    NapiFeatureFailure.Feature.BUSY_POLL,
                    poll.cores().size() + " queues to busy-poll, but " + nic.name() + " has "
                            + nic.queues().size() + " queue" + (nic.queues().size() == 1 ? "" : "s"));
        }
        List<Setting> settings = new ArrayList<>();
        for (PollCore core : poll.cores()) {
            int queue = nic.queues().get(core.queue());
            NapiInstance napi = map.forQueue(queue)
                    .orElseThrow(() -> new NapiFeatureFailure(
                            NumaspreadException.Kind.REFUSED,
                            NapiFeatureFailure.Feature.BUSY_POLL,
                            "cannot tell which NAPI polls queue " + queue + " of " + nic.name() + " ("
                                    + map.detail() + "; the kernel lists an interface's NAPIs only while it is up);"
                                    + " nothing was changed"));
            settings.add(new Setting(Target.napiThread(nic.name(), napi.id()), CpuSet.of(core.cpu())));
        }
        return settings;
    }

    /**
     * {@code threads} with each busy-poll thread's setting in place of its queue's, and the busy-poll threads that
     * {@code threads} lacks added.
     */
    public static List<Setting> withBusyPoll(List<Setting> threads, List<Setting> busyPoll) {
        Map<Target, Setting> merged = new LinkedHashMap<>();
        threads.forEach(setting -> merged.put(setting.target(), setting));
        busyPoll.forEach(setting -> merged.put(setting.target(), setting));
        return List.copyOf(merged.values());
    }
}
