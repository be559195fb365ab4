// SPDX-License-Identifier: Apache-2.0
package io.numaspread.irq;

import java.io.IOException;
import java.util.Optional;

/**
 * How {@link AffinityChange} reads, writes and checks one kind of setting: IRQ affinity ({@link IrqAffinity}), XPS
 * masks ({@link XpsMasks}) or NAPI threads' affinity ({@link NapiThreadAffinity}). The change is the same for all
 * three; what differs is where the value lives, what privilege it needs and how it goes away.
 */
interface SettingWriter {
    /** The value as the kernel shows it now. */
    String read(Target target) throws IOException;

    void write(Target target, String value) throws IOException;

    /**
     * Whether a failure to read says that the device has no such value (an XPS file of a single-queue device),
     * which is no error: the setting is reported unavailable.
     */
    default boolean lacks(Target target, IOException failure) {
        return false;
    }

    /**
     * Refuses (REFUSED, "nothing was changed") when the value cannot be written for want of privilege; any other
     * failure is the write's to report, and to roll back.
     */
    void probe(Target target);

    /** Where the value shows, for messages. */
    String where(Target target);

    /** Why the recorded target no longer exists, or empty when it does. */
    Optional<String> goneReason(Target target, IrqsNow irqs);

    /** Whether the target exists now, so that restore probes only what it can write. */
    default boolean exists(Target target) {
        return true;
    }
}
