// SPDX-License-Identifier: Apache-2.0
package io.numaspread.netlink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.numaspread.kernel.Errno;
import io.numaspread.nativeaccess.NativeCallException;
import io.numaspread.nativeaccess.NetlinkFd;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A request's deadline ({@link NetlinkSocket#request}) judged against what the socket holds: the kernel queues the
 * answer while {@code send} runs, and a reader that gets the CPU back only after the deadline reads it. A loaded
 * guest's CLI was told "the kernel did not answer in time" for an answer that was waiting for it.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class NetlinkDeadlineTest {
    private static final int SEQUENCE = 7;

    /**
     * A descriptor whose answers are queued by {@code send}; its first {@code poll} is interrupted only once the
     * deadline has passed, as a thread that ran again late finds it.
     */
    private static final class LateReader implements NetlinkFd {
        final Deque<byte[]> queued = new ArrayDeque<>();
        final boolean answers;
        final long lateMillis;
        int polls;

        LateReader(boolean answers, long lateMillis) {
            this.answers = answers;
            this.lateMillis = lateMillis;
        }

        @Override
        public int pollIn(int timeoutMillis) {
            if (polls++ == 0) {
                sleep(lateMillis);
                throw new NativeCallException("poll", Errno.EINTR.number(), Errno.EINTR.text(), "");
            }
            if (queued.isEmpty()) {
                sleep(timeoutMillis);
                return 0;
            }
            return 1;
        }

        @Override
        public int recvInto(byte[] buffer) {
            byte[] datagram = queued.removeFirst();
            System.arraycopy(datagram, 0, buffer, 0, datagram.length);
            return datagram.length;
        }

        @Override
        public int sendFrom(byte[] message) {
            if (answers) {
                queued.add(acknowledgement());
            }
            return message.length;
        }

        @Override
        public void closeFd() {}
    }

    @Test
    void anAnswerThatWaitsIsReadAfterTheDeadline() {
        LateReader fd = new LateReader(true, 200);
        try (NetlinkSocket socket = NetlinkSocket.over(fd)) {
            assertEquals(0, socket.request(request(), "test getfamily", 50).size(), "the acknowledgement alone");
        }
        assertEquals(2, fd.polls, "interrupted once after the deadline, then polled without a wait");
    }

    @Test
    void noAnswerByTheDeadlineIsEtimedout() {
        LateReader fd = new LateReader(false, 0);
        try (NetlinkSocket socket = NetlinkSocket.over(fd)) {
            NativeCallException e =
                    assertThrows(NativeCallException.class, () -> socket.request(request(), "test getfamily", 50));
            assertEquals(Errno.ETIMEDOUT.number(), e.errno());
            assertEquals(
                    "netlink test getfamily failed: " + Errno.ETIMEDOUT.text() + " (errno 110): the kernel did not"
                            + " answer in time",
                    e.getMessage());
        }
    }

    /** A request for an acknowledgement: one header, no payload. */
    private static byte[] request() {
        return header(NetlinkCodec.NLMSG_HDRLEN, 16, 0x05).array();
    }

    /** NLMSG_ERROR carrying 0: the kernel's acknowledgement of {@link #request}. */
    private static byte[] acknowledgement() {
        int length = NetlinkCodec.NLMSG_HDRLEN + Integer.BYTES + NetlinkCodec.NLMSG_HDRLEN;
        ByteBuffer ack = header(length, NetlinkCodec.NLMSG_ERROR, 0);
        ack.putInt(NetlinkCodec.NLMSG_HDRLEN, 0);
        return ack.array();
    }

    private static ByteBuffer header(int length, int type, int flags) {
        return ByteBuffer.allocate(length)
                .order(ByteOrder.nativeOrder())
                .putInt(length)
                .putShort((short) type)
                .putShort((short) flags)
                .putInt(SEQUENCE)
                .putInt(0);
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }
}
