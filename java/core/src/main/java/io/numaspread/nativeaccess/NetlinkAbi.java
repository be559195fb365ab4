// SPDX-License-Identifier: Apache-2.0
package io.numaspread.nativeaccess;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The socket constants and structures JNA needs for netlink, from {@code <sys/socket.h>}, {@code <poll.h>} and
 * {@code <linux/netlink.h>}; the same on x86_64 and aarch64. The FFM bindings take them from the headers.
 */
final class NetlinkAbi {
    static final int AF_NETLINK = 16;
    static final int SOCK_RAW = 3;
    static final int SOCK_CLOEXEC = 0x80000;
    /** {@code sizeof(struct sockaddr_nl)}: family, pad (u16 each), pid, groups (u32 each). */
    static final int SOCKADDR_NL_SIZE = 12;
    /** {@code sizeof(struct pollfd)}: fd (int), events, revents (short each). */
    static final int POLLFD_SIZE = 8;
    /** {@code POLLIN}, the same on every Linux architecture. */
    static final short POLLIN = 1;

    private NetlinkAbi() {}

    /** A {@code struct sockaddr_nl} that binds to {@code groups}, letting the kernel choose the port id. */
    static byte[] sockaddrNl(int groups) {
        return ByteBuffer.allocate(SOCKADDR_NL_SIZE)
                .order(ByteOrder.nativeOrder())
                .putShort((short) AF_NETLINK)
                .putShort((short) 0)
                .putInt(0)
                .putInt(groups)
                .array();
    }

    /** A {@code struct pollfd} waiting for input on {@code fd}. */
    static byte[] pollfd(int fd) {
        return ByteBuffer.allocate(POLLFD_SIZE)
                .order(ByteOrder.nativeOrder())
                .putInt(fd)
                .putShort(POLLIN)
                .putShort((short) 0)
                .array();
    }
}
