// SPDX-License-Identifier: Apache-2.0
package io.numaspread.netty;

/** What {@link ConnectionSteering} reads from an accepted socket to choose its loop. */
public enum SteeringKey {
    /**
     * {@code SO_INCOMING_NAPI_ID} (Linux 4.12+), mapped to its receive queue by the NIC's {@link
     * io.numaspread.nic.NapiMap}: the queue's own loop, wherever its IRQ has been moved since the loops were
     * placed. Unknown NAPI IDs fall back to {@link #INCOMING_CPU}.
     */
    INCOMING_NAPI_ID,
    /**
     * {@code SO_INCOMING_CPU} (Linux 3.19+): the loop holding the CPU that handled the connection's packets,
     * which after an IRQ move is no longer the queue's planned loop.
     */
    INCOMING_CPU
}
