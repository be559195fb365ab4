// SPDX-License-Identifier: Apache-2.0
package io.numaspread.nic;

/** Where a {@link NapiMap} came from, so that every report can say how far to trust it; most trusted first. */
public enum NapiSource {
    /** netdev netlink {@code queue-get} and {@code napi-get} (Linux 6.8+), with the driver linking queues. */
    NETLINK,
    /**
     * netdev netlink {@code napi-get} gave the NAPI IDs (and thread PIDs), but the driver links no queue to
     * them (virtio_net before about 6.14); queues were derived, and {@link NapiMap#detail()} says how.
     */
    NETLINK_DERIVED,
    /** No netdev netlink family (before 6.8, or none in this network namespace): the queues' IRQs only. */
    INTERRUPTS
}
