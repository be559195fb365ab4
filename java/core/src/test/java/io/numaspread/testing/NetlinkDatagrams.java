// SPDX-License-Identifier: Apache-2.0
package io.numaspread.testing;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/** Netlink datagrams that no kernel sends, for the parsers' and readers' fault cases. */
public final class NetlinkDatagrams {
    /** RTM_NEWLINK, from linux/rtnetlink.h. */
    private static final short RTM_NEWLINK = 16;

    private NetlinkDatagrams() {}

    /**
     * 48 bytes: an NLMSG_NOOP of 16 bytes, then an RTM_NEWLINK header at byte 16 claiming {@code secondLength}
     * bytes (the audit's datagram, with Integer.MAX_VALUE - 8), and the 16 bytes of its ifinfomsg.
     */
    public static byte[] twoMessages(int secondLength) {
        return ByteBuffer.allocate(48)
                .order(ByteOrder.nativeOrder())
                .putInt(16)
                .putShort((short) 1)
                .putShort((short) 0)
                .putInt(1)
                .putInt(0)
                .putInt(secondLength)
                .putShort(RTM_NEWLINK)
                .putShort((short) 0)
                .putInt(2)
                .putInt(0)
                .array();
    }
}
