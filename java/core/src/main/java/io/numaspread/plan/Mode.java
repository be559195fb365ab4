package io.numaspread.plan;

/** What each queue's affinity is: its whole sibling group, or its slot CPU alone. */
public enum Mode {
    /** The queue gets every candidate CPU of its SMT sibling group (mana's irq_setup()). */
    SIBLINGS,
    /** The queue gets its slot CPU alone ({@code --per-cpu}). */
    CPU
}
