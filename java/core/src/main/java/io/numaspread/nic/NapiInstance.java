// SPDX-License-Identifier: Apache-2.0
package io.numaspread.nic;

import java.util.OptionalInt;

/**
 * One NAPI instance of a NIC: the unit the kernel polls a receive queue through, and what it is linked to.
 * {@code SO_INCOMING_NAPI_ID} names it for a connection; with threaded NAPI it runs as the kernel thread
 * {@code napi/IFACE-ID}.
 *
 * @param id the NAPI ID (the kernel gives IDs from 8193 up, {@code MIN_NAPI_ID})
 * @param queue the driver's receive queue it polls, when known (see {@link NapiMap#source()})
 * @param irq the IRQ that schedules it, when the driver links one
 * @param threadPid the PID of its {@code napi/IFACE-ID} kernel thread, when NAPI is threaded
 */
public record NapiInstance(int id, OptionalInt queue, OptionalInt irq, OptionalInt threadPid) {
    /** The kernel's {@code MIN_NAPI_ID}: IDs below it are sender CPUs in busy-poll code, never NAPI IDs. */
    public static final int MIN_NAPI_ID = 8193;

    public NapiInstance {
        if (id < MIN_NAPI_ID) {
            throw new IllegalArgumentException("NAPI ID " + id + " is below the kernel's first, " + MIN_NAPI_ID);
        }
    }
}
