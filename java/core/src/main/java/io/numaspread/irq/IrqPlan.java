// SPDX-License-Identifier: Apache-2.0
package io.numaspread.irq;

import io.numaspread.nic.Nic;
import io.numaspread.nic.NicVector;
import io.numaspread.plan.SpreadPlan;
import java.util.ArrayList;
import java.util.List;

/** Turns a spread plan for a NIC's queues into the kernel settings that realise it. Pure. */
public final class IrqPlan {
    private IrqPlan() {}

    /**
     * Every queue vector gets its queue's assignment; with {@code xps}, every transmit queue that exists gets
     * the same CPUs in its {@code xps_cpus}. Control and unrecognised vectors get nothing.
     *
     * @throws IllegalArgumentException if the plan does not have one assignment per queue
     */
    public static List<Setting> settings(Nic nic, SpreadPlan plan, boolean xps) {
        if (plan.size() != nic.queues().size()) {
            throw new IllegalArgumentException("the plan has " + plan.size() + " assignments for "
                    + nic.queues().size() + " queues of " + nic.name());
        }
        List<Setting> settings = new ArrayList<>();
        for (NicVector vector : nic.queueVectors()) {
            settings.add(new Setting(
                    Target.irq(vector.irq(), vector.name()),
                    plan.get(nic.planIndex(vector.queue())).cpus()));
        }
        if (xps) {
            for (int queue : nic.queues()) {
                if (nic.txQueues().contains(queue)) {
                    settings.add(new Setting(
                            Target.xps(nic.name(), queue),
                            plan.get(nic.planIndex(queue)).cpus()));
                }
            }
        }
        return settings;
    }
}
