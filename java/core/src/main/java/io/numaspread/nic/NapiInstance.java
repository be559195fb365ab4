// SPDX-License-Identifier: Apache-2.0
package io.numaspread.nic;

import java.util.OptionalInt;

/**
 * One NAPI instance of a NIC: the unit the kernel polls a receive queue through, and what it is linked to.
 * {@code SO_INCOMING_NAPI_ID} names it for a connection; with threaded NAPI it runs as the kernel thread
 * {@code napi/IFACE-ID}.
 *
 * @param id the NAPI ID (from the kernel's {@code MIN_NAPI_ID} up, which depends on how it was built)
 * @param queue the driver's receive queue it polls, when known (see {@link NapiMap#source()}); in the map of an
 *     upper device's NICs, that queue's place among all their queues ({@link NapiMap#merged})
 * @param irq the IRQ that schedules it, when the driver links one
 * @param threadPid the PID of its {@code napi/IFACE-ID} kernel thread, when NAPI is threaded
 * @param threaded whether this NAPI is threaded (0 no, 1 yes, 2 yes and busy-polling), when the kernel reports it
 *     per NAPI (netdev netlink napi-get from Linux 6.17)
 */
public record NapiInstance(int id, OptionalInt queue, OptionalInt irq, OptionalInt threadPid, OptionalInt threaded) {
    /**
     * The lowest NAPI ID a kernel may give. The kernel's own {@code MIN_NAPI_ID} is {@code NR_CPUS + 1} (IDs up
     * to {@code NR_CPUS} are sender CPUs in busy-poll code): 8193 on Debian's x86_64 kernels, 257 on one built
     * for 256 CPUs, so no fixed value above this one holds for every kernel. 0 means "no NAPI ID".
     */
    public static final int MIN_NAPI_ID = 1;

    public NapiInstance {
        if (id < MIN_NAPI_ID) {
            throw new IllegalArgumentException("NAPI ID " + id + " is not positive");
        }
    }

    /** An instance whose kernel reports no per-NAPI threaded (before Linux 6.17, or no netlink). */
    public NapiInstance(int id, OptionalInt queue, OptionalInt irq, OptionalInt threadPid) {
        this(id, queue, irq, threadPid, OptionalInt.empty());
    }
}
