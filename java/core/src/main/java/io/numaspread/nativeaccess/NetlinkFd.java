// SPDX-License-Identifier: Apache-2.0
package io.numaspread.nativeaccess;

import io.numaspread.kernel.Errno;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

/**
 * What the FFM and JNA netlink sockets share: the file descriptor is closed only while no receive uses it, so
 * that a receive never polls a number the process has since given to another file.
 */
abstract class NetlinkFd implements NetlinkSocket {
    /** {@code POLLIN}, from {@code <poll.h>}, the same on every Linux architecture. */
    static final short POLLIN = 1;
    /** {@code EINTR}: a signal interrupted {@code poll}; the wait is simply over early. */
    private static final int EINTR = 4;
    /** {@code ETIMEDOUT}: what a request reports when the kernel's answer does not come in time. */
    private static final int ETIMEDOUT = 110;
    /** From {@code <linux/netlink.h>}: the header's size, and the two message types that end an answer. */
    static final int NLMSG_HDRLEN = 16;
    static final int NLMSG_ERROR = 2;
    static final int NLMSG_DONE = 3;
    /** {@code NLM_F_DUMP} ({@code NLM_F_ROOT | NLM_F_MATCH}): the request asks for every object, ended by DONE. */
    static final int NLM_F_DUMP = 0x300;
    /**
     * Large enough for any one datagram of a dump: the kernel fills a dump's datagrams up to about 32 KiB
     * ({@code NLMSG_GOODSIZE} grows with the reader's buffer), and a datagram that filled this buffer is refused
     * as possibly cut.
     */
    static final int REQUEST_BUFFER_BYTES = 64 * 1024;

    private final ReentrantLock inUse = new ReentrantLock();
    private volatile boolean closed;
    /** Guarded by {@link #inUse}. */
    private boolean fdClosed;

    /**
     * {@code poll} on the one descriptor: above 0 when a message waits, 0 on timeout.
     *
     * @throws NativeCallException with the call's own errno
     */
    abstract int pollIn(int timeoutMillis);

    /**
     * {@code recv(fd, buffer, length, 0)}: the byte count.
     *
     * @throws NativeCallException with the call's own errno
     */
    abstract int recvInto(byte[] buffer);

    /**
     * {@code send(fd, message, length, 0)} to the kernel (port 0, a netlink socket's default destination): the
     * byte count.
     *
     * @throws NativeCallException with the call's own errno
     */
    abstract int sendFrom(byte[] message);

    /**
     * {@code close} of the descriptor. Its failure is ignored: Linux releases a socket's descriptor before close
     * can report an error (EINTR, EIO), so nothing is left open and there is nothing to retry.
     */
    abstract void closeFd();

    @Override
    public final List<byte[]> request(byte[] request, String call, int timeoutMillis) {
        ByteBuffer header = ByteBuffer.wrap(request).order(ByteOrder.nativeOrder());
        if (request.length < NLMSG_HDRLEN || header.getInt(0) != request.length) {
            throw new IllegalArgumentException("a netlink request is one message whose length field is its size; "
                    + "this one has " + request.length + " bytes");
        }
        boolean dump = (Short.toUnsignedInt(header.getShort(6)) & NLM_F_DUMP) == NLM_F_DUMP;
        int sequence = header.getInt(8);
        inUse.lock();
        try {
            if (closed) {
                throw new IllegalStateException("the netlink socket is closed");
            }
            sendFrom(request);
            List<byte[]> answer = new ArrayList<>();
            byte[] buffer = new byte[REQUEST_BUFFER_BYTES];
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
            while (true) {
                int length = receiveBefore(deadline, buffer, call);
                if (length >= buffer.length) {
                    throw new IllegalArgumentException("netlink " + call + ": a datagram filled the whole "
                            + buffer.length + "-byte buffer and may have been cut");
                }
                if (collect(buffer, length, sequence, dump, call, answer)) {
                    return answer;
                }
            }
        } finally {
            inUse.unlock();
        }
    }

    /** One datagram received before {@code deadline}; an answer that comes later is ETIMEDOUT. */
    private int receiveBefore(long deadline, byte[] buffer, String call) {
        while (true) {
            long remainingMillis = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
            if (remainingMillis <= 0) {
                throw new NativeCallException("netlink " + call, ETIMEDOUT, Errno.ofNumber(ETIMEDOUT).text(),
                        "the kernel did not answer in time");
            }
            try {
                if (pollIn((int) Math.min(Integer.MAX_VALUE, remainingMillis)) > 0) {
                    return recvInto(buffer);
                }
            } catch (NativeCallException e) {
                if (e.errno() != EINTR) {
                    throw e;
                }
            }
        }
    }

    /**
     * Adds the answering messages of one datagram to {@code answer}: true once the answer is complete
     * ({@code NLMSG_DONE} for a dump, the acknowledgement otherwise).
     */
    static boolean collect(byte[] datagram, int length, int sequence, boolean dump, String call,
            List<byte[]> answer) {
        ByteBuffer buffer = ByteBuffer.wrap(datagram, 0, length).order(ByteOrder.nativeOrder());
        int offset = 0;
        while (offset + NLMSG_HDRLEN <= length) {
            int messageLength = buffer.getInt(offset);
            int type = Short.toUnsignedInt(buffer.getShort(offset + 4));
            int messageSequence = buffer.getInt(offset + 8);
            if (messageLength < NLMSG_HDRLEN || offset + messageLength > length) {
                throw new IllegalArgumentException("netlink " + call + ": message at byte " + offset + " claims "
                        + messageLength + " bytes; the datagram has " + (length - offset) + " left");
            }
            if (messageSequence != sequence) {
                throw new IllegalArgumentException("netlink " + call + ": a message carries sequence number "
                        + Integer.toUnsignedString(messageSequence) + ", the request "
                        + Integer.toUnsignedString(sequence));
            }
            if (type == NLMSG_ERROR || type == NLMSG_DONE) {
                // Both carry an int: 0, or a negative errno (a dump can fail after its first datagrams).
                int error = messageLength >= NLMSG_HDRLEN + Integer.BYTES ? buffer.getInt(offset + NLMSG_HDRLEN) : 0;
                if (error < 0) {
                    Errno errno = Errno.ofNumber(-error);
                    throw new NativeCallException("netlink " + call, -error,
                            errno == Errno.UNKNOWN ? "errno " + -error : errno.text(), "the kernel refused the request");
                }
                if (type == NLMSG_DONE || !dump) {
                    return true;
                }
            } else {
                answer.add(Arrays.copyOfRange(datagram, offset, offset + messageLength));
            }
            offset += (messageLength + 3) & ~3;
        }
        return false;
    }

    @Override
    public final int receive(byte[] buffer, int timeoutMillis) {
        inUse.lock();
        try {
            if (closed) {
                return 0;
            }
            try {
                if (pollIn(timeoutMillis) == 0) {
                    return 0;
                }
            } catch (NativeCallException e) {
                if (e.errno() == EINTR) {
                    return 0;
                }
                throw e;
            }
            return recvInto(buffer);
        } finally {
            inUse.unlock();
        }
    }

    @Override
    public final void close() {
        closed = true;
        inUse.lock();
        try {
            if (!fdClosed) {
                fdClosed = true;
                closeFd();
            }
        } finally {
            inUse.unlock();
        }
    }
}
