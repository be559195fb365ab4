// SPDX-License-Identifier: Apache-2.0
package io.numaspread.netlink;

import static io.numaspread.netlink.NetlinkCodec.NLMSG_HDRLEN;
import static io.numaspread.netlink.NetlinkCodec.NLM_F_ACK;
import static io.numaspread.netlink.NetlinkCodec.NLM_F_REQUEST;

import io.numaspread.netlink.NetlinkCodec.Attribute;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;
import java.util.OptionalInt;

/**
 * rtnetlink's network namespace ids ({@code RTM_GETNSID}, {@code <linux/net_namespace.h>}): the id the asking
 * socket's namespace gives another namespace, named by a process in it. A leased queue's {@code netns-id} is such
 * an id, given by the physical NIC's namespace, so asking from there which namespace a process is in finds the
 * lessee's processes. Pure.
 */
public final class NamespaceIds {
    static final int RTM_NEWNSID = 88;
    static final int RTM_GETNSID = 90;
    static final int NETNSA_NSID = 1;
    static final int NETNSA_PID = 2;
    /** {@code NETNSA_NSID_NOT_ASSIGNED}: the asking namespace has given that namespace no id. */
    static final int NOT_ASSIGNED = -1;
    /** {@code struct rtgenmsg} (one byte, {@code rtgen_family}), padded to {@code NLMSG_ALIGNTO}. */
    private static final int RTGENMSG_LEN = 4;

    private NamespaceIds() {}

    /** {@code RTM_GETNSID} for the namespace process {@code pid} is in, acknowledged. */
    public static byte[] request(int sequence, int pid) {
        return new NetlinkCodec.Builder(RTM_GETNSID, NLM_F_REQUEST | NLM_F_ACK, sequence)
                .u8(0) // AF_UNSPEC
                .u8(0)
                .u16(0)
                .u32(NETNSA_PID, pid)
                .bytes();
    }

    /**
     * The id in the kernel's {@code RTM_NEWNSID} answer; empty when the namespace has none here.
     *
     * @throws IllegalArgumentException when the answer has no {@code RTM_NEWNSID} message with an id
     */
    public static OptionalInt id(List<byte[]> answer) {
        for (byte[] message : answer) {
            if (message.length < NLMSG_HDRLEN + RTGENMSG_LEN
                    || Short.toUnsignedInt(ByteBuffer.wrap(message)
                                    .order(ByteOrder.nativeOrder())
                                    .getShort(4))
                            != RTM_NEWNSID) {
                continue;
            }
            for (Attribute attribute : NetlinkCodec.attributes(message, NLMSG_HDRLEN + RTGENMSG_LEN)) {
                if (attribute.type() == NETNSA_NSID) {
                    int id = attribute.u32();
                    return id == NOT_ASSIGNED ? OptionalInt.empty() : OptionalInt.of(id);
                }
            }
        }
        throw new IllegalArgumentException("the kernel's RTM_GETNSID answer has no RTM_NEWNSID message with an id");
    }
}
