// SPDX-License-Identifier: Apache-2.0
package io.numaspread.nic;

/**
 * The per-NAPI settings netdev {@code napi-set} writes and {@code napi-get} reports (Linux 6.13+), for busy
 * polling with {@code prefer_busy_poll}: while the application polls, hard IRQs stay deferred.
 *
 * @param deferHardIrqs how many times NAPI may find nothing to do before its hard IRQ is re-enabled (u32)
 * @param groFlushTimeoutNanos the NAPI watchdog's timeout, which also holds GRO's super-frames back
 * @param irqSuspendTimeoutNanos how long IRQs stay suspended while the application's polling finds events
 */
public record NapiSettings(long deferHardIrqs, long groFlushTimeoutNanos, long irqSuspendTimeoutNanos) {
    public NapiSettings {
        if (deferHardIrqs < 0 || deferHardIrqs > 0xffff_ffffL) {
            throw new IllegalArgumentException("defer-hard-irqs " + deferHardIrqs + " is outside 0.." + 0xffff_ffffL);
        }
        if (groFlushTimeoutNanos < 0) {
            throw new IllegalArgumentException("gro-flush-timeout " + groFlushTimeoutNanos + " ns is negative");
        }
        if (irqSuspendTimeoutNanos < 0) {
            throw new IllegalArgumentException("irq-suspend-timeout " + irqSuspendTimeoutNanos + " ns is negative");
        }
    }
}
