// SPDX-License-Identifier: Apache-2.0
package io.numaspread.plan;

/** What each queue's affinity is: its whole sibling group, or its slot CPU alone. */
public enum Mode {
    /** The queue gets every candidate CPU of its SMT sibling group (mana's irq_setup()). */
    SIBLINGS("siblings"),
    /** The queue gets its slot CPU alone ({@code --per-cpu}). */
    CPU("cpu");

    private final String label;

    Mode(String label) {
        this.label = label;
    }

    /** The one spelling of this mode wherever it is shown or given: plan's text and JSON, the agent's mode=. */
    public String label() {
        return label;
    }
}
