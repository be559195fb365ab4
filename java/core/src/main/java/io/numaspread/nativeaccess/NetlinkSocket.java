// SPDX-License-Identifier: Apache-2.0
package io.numaspread.nativeaccess;

import java.util.List;

/**
 * A bound netlink socket ({@code socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, protocol)}) that receives the
 * kernel's multicast messages, or exchanges requests with the kernel. One thread receives or requests at a time;
 * any thread may close it, and a receive blocked in {@code poll} then returns within its timeout.
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
    /** {@code NETLINK_GENERIC}: generic netlink, whose families (netdev among them) answer requests. */
    int NETLINK_GENERIC = 16;

    /**
     * Waits up to {@code timeoutMillis} for one message and copies it into {@code buffer} (a longer datagram is
     * cut at the buffer's size, as {@code recv} does).
     *
     * @return the number of bytes received, or 0 when none arrived in time or the socket is closed
     * @throws NativeCallException when {@code poll} or {@code recv} fails (ENOBUFS: the kernel dropped messages
     *     because this socket was not read fast enough; the caller should re-read the state it watches)
     */
    int receive(byte[] buffer, int timeoutMillis);

    /**
     * Sends one request to the kernel and collects its answer: for a dump ({@code NLM_F_DUMP}) every message up
     * to {@code NLMSG_DONE}; otherwise the reply, up to the {@code NLMSG_ERROR} acknowledgement that
     * {@code NLM_F_ACK} asks for. Every message must carry the request's sequence number.
     *
     * @param request one whole {@code struct nlmsghdr} and payload, in host byte order
     * @param call what is asked, for messages ("netdev napi-get")
     * @return each answering message, header included, without the final {@code NLMSG_DONE} or acknowledgement
     * @throws NativeCallException when {@code send}, {@code poll} or {@code recv} fails, when the kernel answers
     *     with an error (its errno, function "netlink " + {@code call}), or when no answer comes within
     *     {@code timeoutMillis} (ETIMEDOUT)
     * @throws IllegalArgumentException when the answer is malformed or carries another sequence number
     */
    List<byte[]> request(byte[] request, String call, int timeoutMillis);

    /** Closes the socket; idempotent. */
    @Override
    void close();
}
