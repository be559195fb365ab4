// SPDX-License-Identifier: Apache-2.0
package io.numaspread.nativeaccess;

/**
 * A bound netlink socket ({@code socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, protocol)}) that receives the
 * kernel's multicast messages. One thread receives; any thread may close it, and a receive blocked in
 * {@code poll} then returns within its timeout.
 */
public interface NetlinkSocket extends AutoCloseable {
    /** {@code NETLINK_ROUTE}: rtnetlink, whose {@code RTMGRP_LINK} group carries link messages. */
    int NETLINK_ROUTE = 0;
    /** {@code NETLINK_KOBJECT_UEVENT}: the kernel's kobject uevents. */
    int NETLINK_KOBJECT_UEVENT = 15;
    /** {@code RTMGRP_LINK}: RTM_NEWLINK and RTM_DELLINK. */
    int RTMGRP_LINK = 1;
    /** The uevent group the kernel itself sends to (group 2 is udev's re-broadcast). */
    int UEVENT_KERNEL_GROUP = 1;

    /**
     * Waits up to {@code timeoutMillis} for one message and copies it into {@code buffer} (a longer datagram is
     * cut at the buffer's size, as {@code recv} does).
     *
     * @return the number of bytes received, or 0 when none arrived in time or the socket is closed
     * @throws NativeCallException when {@code poll} or {@code recv} fails (ENOBUFS: the kernel dropped messages
     *     because this socket was not read fast enough; the caller should re-read the state it watches)
     */
    int receive(byte[] buffer, int timeoutMillis);

    /** Closes the socket; idempotent. */
    @Override
    void close();
}
