// SPDX-License-Identifier: Apache-2.0
package io.numaspread.plan;

import io.numaspread.CpuSet;
import io.numaspread.topology.Topology;
import java.util.Locale;

/**
 * What a busy-poll core's SMT siblings do. A thread that spins on a NAPI keeps its core's pipeline busy; whatever
 * runs on a sibling shares that pipeline, slows the spin and is slowed by it.
 */
public enum PollSibling {
    /** The default: the siblings are kept free, so IRQs and event loops go neither on the poll CPU nor beside it. */
    IDLE("idle"),
    /** The siblings stay candidates for IRQs and event loops: more CPUs, at the cost of a shared pipeline. */
    SHARED("shared");

    private final String id;

    PollSibling(String id) {
        this.id = id;
    }

    /** The one spelling of this choice wherever it is shown or given. */
    public String id() {
        return id;
    }

    /** What a poll thread on {@code cpu} keeps free: its CPU, and with {@link #IDLE} its whole core. */
    public CpuSet keptFree(Topology topology, int cpu) {
        return this == IDLE ? topology.siblings(cpu).with(cpu) : CpuSet.of(cpu);
    }

    /**
     * @throws IllegalArgumentException naming the spellings there are
     */
    public static PollSibling of(String id) {
        for (PollSibling sibling : values()) {
            if (sibling.id.equals(id.toLowerCase(Locale.ROOT))) {
                return sibling;
            }
        }
        throw new IllegalArgumentException("unknown poll sibling use '" + id + "': idle or shared");
    }
}
