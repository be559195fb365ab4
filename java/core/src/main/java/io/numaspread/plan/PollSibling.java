// SPDX-License-Identifier: Apache-2.0
package io.numaspread.plan;

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
