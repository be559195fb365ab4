// SPDX-License-Identifier: Apache-2.0
package io.numaspread.netlink;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The framing every netlink protocol shares (rtnetlink, generic netlink; {@code <linux/netlink.h>}), read from
 * and written to bytes. Pure.
 *
 * <p>A datagram holds one or more {@code struct nlmsghdr} (length, type, flags, sequence, port id; host byte
 * order), each 4-byte aligned. A message's payload starts with its protocol's fixed header ({@code struct
 * ifinfomsg}, {@code struct genlmsghdr}), followed by attributes ({@code struct nlattr}, rtnetlink's identical
 * {@code struct rtattr}: length, type, value, each 4-byte aligned).
 */
public final class NetlinkCodec {
    /** {@code NLMSG_HDRLEN}: the size of {@code struct nlmsghdr}. */
    public static final int NLMSG_HDRLEN = 16;
    /** The message types that end an answer: an error or acknowledgement, and the end of a dump. */
    public static final int NLMSG_ERROR = 2;

    public static final int NLMSG_DONE = 3;
    public static final int NLM_F_REQUEST = 0x1;
    public static final int NLM_F_ACK = 0x4;
    /** {@code NLM_F_DUMP} ({@code NLM_F_ROOT | NLM_F_MATCH}): the request asks for every object, ended by DONE. */
    public static final int NLM_F_DUMP = 0x300;
    /** {@code NLA_HDRLEN}: the size of {@code struct nlattr}. */
    public static final int NLA_HDRLEN = 4;
    /** Attribute types carry NLA_F_NESTED and NLA_F_NET_BYTEORDER in their top bits. */
    public static final int NLA_TYPE_MASK = 0x3fff;

    private NetlinkCodec() {}

    /** {@code NLMSG_ALIGN}, {@code NLA_ALIGN}: messages and attributes start on 4-byte boundaries. */
    public static int align(int length) {
        return (length + 3) & ~3;
    }

    /** One {@code struct nlmsghdr} in a datagram: its header fields and where the whole message lies. */
    public record Message(ByteBuffer buffer, int offset, int length, int type, int flags, int sequence) {
        /** Where the payload (the protocol's fixed header) starts. */
        public int payload() {
            return offset + NLMSG_HDRLEN;
        }

        /** The message's bytes, header included. */
        public byte[] bytes() {
            byte[] bytes = new byte[length];
            buffer.get(offset, bytes);
            return bytes;
        }

        /**
         * The attributes after the payload's fixed header of {@code fixedHeaderBytes}.
         *
         * @throws MalformedNetlinkException when an attribute's length points outside the message
         */
        public List<Attribute> attributes(int fixedHeaderBytes) {
            return Attribute.parse(buffer, payload() + fixedHeaderBytes, offset + length);
        }
    }

    /**
     * The messages in the first {@code length} bytes of one datagram, in order.
     *
     * @param source what sent it, for messages ("rtnetlink", "netlink netdev napi-get eth0")
     * @throws MalformedNetlinkException when a length field points outside the datagram
     */
    public static List<Message> messages(byte[] datagram, int length, String source) {
        ByteBuffer buffer = ByteBuffer.wrap(datagram, 0, length).order(ByteOrder.nativeOrder());
        List<Message> messages = new ArrayList<>();
        int offset = 0;
        while (offset + NLMSG_HDRLEN <= length) {
            int messageLength = buffer.getInt(offset);
            // Compared with what is left, not added to the offset: a length near Integer.MAX_VALUE (the field is
            // the kernel's u32) would wrap the sum negative and pass, and the next offset would then be negative.
            if (messageLength < NLMSG_HDRLEN || messageLength > length - offset) {
                throw new MalformedNetlinkException(source + ": message at byte " + offset + " claims "
                        + Integer.toUnsignedString(messageLength) + " bytes; the datagram has " + (length - offset)
                        + " left");
            }
            messages.add(new Message(
                    buffer,
                    offset,
                    messageLength,
                    Short.toUnsignedInt(buffer.getShort(offset + 4)),
                    Short.toUnsignedInt(buffer.getShort(offset + 6)),
                    buffer.getInt(offset + 8)));
            offset += align(messageLength);
        }
        return messages;
    }

    /**
     * The attributes of one whole message (as a request's answer holds them), from byte {@code from} on.
     *
     * @throws MalformedNetlinkException when an attribute's length points outside the message
     */
    public static List<Attribute> attributes(byte[] message, int from) {
        return Attribute.parse(ByteBuffer.wrap(message).order(ByteOrder.nativeOrder()), from, message.length);
    }

    /** One {@code struct nlattr}: its type (flags removed) and where its value lies. */
    public record Attribute(ByteBuffer buffer, int type, int valueOffset, int valueLength) {
        static List<Attribute> parse(ByteBuffer buffer, int from, int end) {
            List<Attribute> attributes = new ArrayList<>();
            int offset = from;
            while (offset + NLA_HDRLEN <= end) {
                int length = Short.toUnsignedInt(buffer.getShort(offset));
                int type = Short.toUnsignedInt(buffer.getShort(offset + 2)) & NLA_TYPE_MASK;
                // As for messages: compared with what is left, so that no sum can wrap.
                if (length < NLA_HDRLEN || length > end - offset) {
                    throw new MalformedNetlinkException("netlink attribute at byte " + offset + " claims " + length
                            + " bytes; its message has " + (end - offset) + " left");
                }
                attributes.add(new Attribute(buffer, type, offset + NLA_HDRLEN, length - NLA_HDRLEN));
                offset += align(length);
            }
            return attributes;
        }

        /** The attributes nested in this one's value. */
        public List<Attribute> nested() {
            return parse(buffer, valueOffset, valueOffset + valueLength);
        }

        public int u16() {
            require(Short.BYTES);
            return Short.toUnsignedInt(buffer.getShort(valueOffset));
        }

        public int u32() {
            require(Integer.BYTES);
            return buffer.getInt(valueOffset);
        }

        /** An {@code NLA_UINT}: 4 or 8 bytes, as the kernel chose for the value. */
        public long unsigned() {
            if (valueLength == Long.BYTES) {
                return buffer.getLong(valueOffset);
            }
            return Integer.toUnsignedLong(u32());
        }

        /** An {@code NLA_STRING}: UTF-8 up to its first NUL, or its whole value when it has none. */
        public String string() {
            int end = valueOffset;
            while (end < valueOffset + valueLength && buffer.get(end) != 0) {
                end++;
            }
            byte[] value = new byte[end - valueOffset];
            buffer.get(valueOffset, value);
            return new String(value, StandardCharsets.UTF_8);
        }

        private void require(int bytes) {
            if (valueLength < bytes) {
                throw new MalformedNetlinkException(
                        "netlink attribute " + type + " has " + valueLength + " bytes, fewer than its " + bytes);
            }
        }
    }

    /**
     * A message being built: the header, the protocol's fixed header ({@link #u8}, {@link #u16}), then
     * attributes; {@link #bytes()} fills in the length.
     */
    public static final class Builder {
        private final ByteBuffer buffer = ByteBuffer.allocate(256).order(ByteOrder.nativeOrder());

        public Builder(int type, int flags, int sequence) {
            buffer.putInt(0)
                    .putShort((short) type)
                    .putShort((short) flags)
                    .putInt(sequence)
                    .putInt(0);
        }

        /** One byte of the fixed header. */
        public Builder u8(int value) {
            buffer.put((byte) value);
            return this;
        }

        /** Two bytes of the fixed header. */
        public Builder u16(int value) {
            buffer.putShort((short) value);
            return this;
        }

        /** A 4-byte attribute. */
        public Builder u32(int type, long value) {
            buffer.putShort((short) (NLA_HDRLEN + Integer.BYTES))
                    .putShort((short) type)
                    .putInt((int) value);
            return this;
        }

        /** An 8-byte attribute. */
        public Builder u64(int type, long value) {
            buffer.putShort((short) (NLA_HDRLEN + Long.BYTES))
                    .putShort((short) type)
                    .putLong(value);
            return this;
        }

        /** A NUL-terminated string attribute, padded to alignment. */
        public Builder string(int type, String value) {
            byte[] text = value.getBytes(StandardCharsets.UTF_8);
            int length = NLA_HDRLEN + text.length + 1;
            buffer.putShort((short) length).putShort((short) type).put(text).put((byte) 0);
            buffer.position(buffer.position() + align(length) - length);
            return this;
        }

        public byte[] bytes() {
            int length = buffer.position();
            buffer.putInt(0, length);
            byte[] bytes = new byte[length];
            buffer.get(0, bytes);
            return bytes;
        }
    }
}
