// SPDX-License-Identifier: Apache-2.0
package io.numaspread.netlink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.numaspread.nativeaccess.NativeCallException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * How a request's answer is collected from datagrams ({@link NetlinkSocket#collect}): the cases a live kernel does
 * not produce on demand, such as a dump that fails after its first datagram or a stray sequence number.
 */
class NetlinkAnswerTest {
    private static final int SEQUENCE = 9;

    @Test
    void aDumpCollectsEveryMessageUntilDone() {
        List<byte[]> answer = new ArrayList<>();
        byte[] first = datagram(message(20, SEQUENCE, 4), message(20, SEQUENCE, 8));
        assertFalse(NetlinkSocket.collect(first, first.length, SEQUENCE, true, "test dump", answer));
        byte[] done = datagram(doneOrError(NetlinkCodec.NLMSG_DONE, SEQUENCE, 0));
        assertTrue(NetlinkSocket.collect(done, done.length, SEQUENCE, true, "test dump", answer));
        assertEquals(List.of(20, 24), answer.stream().map(m -> m.length).toList());
    }

    @Test
    void aDumpThatFailsAfterItsFirstDatagramFailsWithTheKernelsErrno() {
        byte[] done = datagram(doneOrError(NetlinkCodec.NLMSG_DONE, SEQUENCE, -16));
        NativeCallException e = assertThrows(
                NativeCallException.class,
                () -> NetlinkSocket.collect(
                        done, done.length, SEQUENCE, true, "netdev napi-get eth0", new ArrayList<>()));
        assertEquals(16, e.errno());
        assertEquals(
                "netlink netdev napi-get eth0 failed: Device or resource busy (errno 16): the kernel refused "
                        + "the request",
                e.getMessage());
    }

    @Test
    void anAcknowledgementEndsARequestButNotADump() {
        byte[] ack = datagram(doneOrError(NetlinkCodec.NLMSG_ERROR, SEQUENCE, 0));
        assertTrue(NetlinkSocket.collect(ack, ack.length, SEQUENCE, false, "test", new ArrayList<>()));
        assertFalse(NetlinkSocket.collect(ack, ack.length, SEQUENCE, true, "test", new ArrayList<>()));
    }

    @Test
    void aMessageWithAnotherSequenceNumberIsRefused() {
        byte[] stray = datagram(message(20, SEQUENCE + 1, 4));
        IllegalArgumentException e = assertThrows(
                IllegalArgumentException.class,
                () -> NetlinkSocket.collect(stray, stray.length, SEQUENCE, true, "test", new ArrayList<>()));
        assertEquals("netlink test: a message carries sequence number 10, the request 9", e.getMessage());
    }

    @Test
    void aMessageLongerThanItsDatagramIsRefusedNamingTheByte() {
        byte[] cut = datagram(message(20, SEQUENCE, 8));
        IllegalArgumentException e = assertThrows(
                IllegalArgumentException.class,
                () -> NetlinkSocket.collect(cut, 20, SEQUENCE, true, "test", new ArrayList<>()));
        assertEquals("netlink test: message at byte 0 claims 24 bytes; the datagram has 20 left", e.getMessage());
    }

    /** A generic netlink message of type {@code type} with {@code payload} bytes after its header. */
    private static byte[] message(int type, int sequence, int payload) {
        return ByteBuffer.allocate(NetlinkCodec.NLMSG_HDRLEN + payload)
                .order(ByteOrder.nativeOrder())
                .putInt(NetlinkCodec.NLMSG_HDRLEN + payload)
                .putShort((short) type)
                .putShort((short) 2)
                .putInt(sequence)
                .putInt(0)
                .array();
    }

    /** NLMSG_DONE or NLMSG_ERROR carrying {@code error} (0, or a negative errno). */
    private static byte[] doneOrError(int type, int sequence, int error) {
        ByteBuffer message = ByteBuffer.wrap(message(type, sequence, 20)).order(ByteOrder.nativeOrder());
        message.putInt(NetlinkCodec.NLMSG_HDRLEN, error);
        return message.array();
    }

    private static byte[] datagram(byte[]... messages) {
        int length = 0;
        for (byte[] message : messages) {
            length += message.length;
        }
        ByteBuffer datagram = ByteBuffer.allocate(length);
        for (byte[] message : messages) {
            datagram.put(message);
        }
        return datagram.array();
    }
}
