// SPDX-License-Identifier: Apache-2.0
package io.numaspread.irq;

import io.numaspread.NumaspreadException;
import io.numaspread.nic.NapiInstance;
import io.numaspread.nic.NapiMap;
import io.numaspread.nic.NapiSource;
import io.numaspread.nic.Nic;
import io.numaspread.plan.SpreadPlan;
import java.util.ArrayList;
import java.util.List;

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
     * @throws NumaspreadException (refused) when {@code map} links no NAPI to any queue, saying what it came from
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
            throw new NumaspreadException(
                    NumaspreadException.Kind.REFUSED,
                    "--napi-threads: cannot tell which"
                            + " NAPI thread serves which queue of " + nic.name() + ": " + why + " (" + map.detail()
                            + "); nothing was changed");
        }
        return settings;
    }
}
