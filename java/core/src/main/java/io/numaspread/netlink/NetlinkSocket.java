// SPDX-License-Identifier: Apache-2.0
package io.numaspread.netlink;

import static io.numaspread.netlink.NetlinkCodec.NLMSG_DONE;
import static io.numaspread.netlink.NetlinkCodec.NLMSG_ERROR;
import static io.numaspread.netlink.NetlinkCodec.NLMSG_HDRLEN;
import static io.numaspread.netlink.NetlinkCodec.NLM_F_DUMP;

import io.numaspread.kernel.Errno;
import io.numaspread.nativeaccess.NativeBackend;
import io.numaspread.nativeaccess.NativeCallException;
import io.numaspread.nativeaccess.NetlinkFd;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A bound netlink socket ({@code socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, protocol)}) that receives the
 * kernel's multicast messages, or exchanges requests with the kernel. One thread receives or requests at a time;
 * any thread may close it, and a receive blocked in {@code poll} then returns within its timeout. The descriptor
 * is closed only while no receive uses it, so that a receive never polls a number the process has since given
 * to another file.
 */
public final class NetlinkSocket implements DatagramSource {
    /** {@code NETLINK_ROUTE}: rtnetlink, whose {@code RTMGRP_LINK} group carries link messages. */
    public static final int NETLINK_ROUTE = 0;
    /** {@code NETLINK_KOBJECT_UEVENT}: the kernel's kobject uevents. */
    public static final int NETLINK_KOBJECT_UEVENT = 15;
    /** {@code RTMGRP_LINK}: RTM_NEWLINK and RTM_DELLINK. */
    public static final int RTMGRP_LINK = 1;
    /** The uevent group the kernel itself sends to (group 2 is udev's re-broadcast). */
    public static final int UEVENT_KERNEL_GROUP = 1;
    /** {@code NETLINK_GENERIC}: generic netlink, whose families (netdev among them) answer requests. */
    public static final int NETLINK_GENERIC = 16;
    /**
     * Large enough for any one datagram of a dump: the kernel fills a dump's datagrams up to about 32 KiB
     * ({@code NLMSG_GOODSIZE} grows with the reader's buffer), and a datagram that filled this buffer is refused
     * as possibly cut.
     */
    static final int REQUEST_BUFFER_BYTES = 64 * 1024;

    private final NetlinkFd fd;
    private final ReentrantLock inUse = new ReentrantLock();
    private volatile boolean closed;
    /** Guarded by {@link #inUse}. */
    private boolean fdClosed;

    private NetlinkSocket(NetlinkFd fd) {
        this.fd = fd;
    }

    /**
     * Opens a socket of {@code protocol} bound to the multicast {@code groups} through the backend's libc.
     *
     * @throws NativeCallException when {@code socket} or {@code bind} fails
     * @throws UnsupportedOperationException on a backend that cannot call libc (its callers poll instead)
     */
    public static NetlinkSocket open(NativeBackend backend, int protocol, int groups) {
        return over(backend.openNetlink(protocol, groups));
    }

    /** The socket over a descriptor a backend opened and bound. */
    static NetlinkSocket over(NetlinkFd fd) {
        return new NetlinkSocket(fd);
    }

    /**
     * Waits up to {@code timeoutMillis} for one message and copies it into {@code buffer} (a longer datagram is
     * cut at the buffer's size, as {@code recv} does).
     *
     * @return the number of bytes received, or 0 when none arrived in time or the socket is closed
     * @throws NativeCallException when {@code poll} or {@code recv} fails (ENOBUFS: the kernel dropped messages
     *     because this socket was not read fast enough; the caller should re-read the state it watches)
     */
    @Override
    public int receive(byte[] buffer, int timeoutMillis) {
        inUse.lock();
        try {
            if (closed) {
                return 0;
            }
            try {
                if (fd.pollIn(timeoutMillis) == 0) {
                    return 0;
                }
            } catch (NativeCallException e) {
                // EINTR: a signal interrupted poll; the wait is simply over early.
                if (e.errno() == Errno.EINTR.number()) {
                    return 0;
                }
                throw e;
            }
            return fd.recvInto(buffer);
        } finally {
            inUse.unlock();
        }
    }

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
    public List<byte[]> request(byte[] request, String call, int timeoutMillis) {
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
            fd.sendFrom(request);
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

    /**
     * One datagram received before {@code deadline}; ETIMEDOUT when none has come by then. The socket is always
     * polled before the deadline is judged, with no wait once it has passed: the kernel queues most answers while
     * {@code send} runs, and a reader that gets the CPU only after the deadline (a loaded guest's vCPU, a pause, an
     * EINTR) still reads the answer that waits for it rather than calling it late.
     */
    private int receiveBefore(long deadline, byte[] buffer, String call) {
        while (true) {
            long remainingMillis = Math.max(0, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime()));
            try {
                if (fd.pollIn((int) Math.min(Integer.MAX_VALUE, remainingMillis)) > 0) {
                    return fd.recvInto(buffer);
                }
            } catch (NativeCallException e) {
                if (e.errno() != Errno.EINTR.number()) {
                    throw e;
                }
                continue;
            }
            if (remainingMillis == 0) {
                throw new NativeCallException(
                        "netlink " + call,
                        Errno.ETIMEDOUT.number(),
                        Errno.ETIMEDOUT.text(),
                        "the kernel did not answer in time");
            }
        }
    }

    /**
     * Adds the answering messages of one datagram to {@code answer}: true once the answer is complete
     * ({@code NLMSG_DONE} for a dump, the acknowledgement otherwise).
     */
    static boolean collect(byte[] datagram, int length, int sequence, boolean dump, String call, List<byte[]> answer) {
        for (NetlinkCodec.Message message : NetlinkCodec.messages(datagram, length, "netlink " + call)) {
            if (message.sequence() != sequence) {
                throw new IllegalArgumentException("netlink " + call + ": a message carries sequence number "
                        + Integer.toUnsignedString(message.sequence()) + ", the request "
                        + Integer.toUnsignedString(sequence));
            }
            if (message.type() == NLMSG_ERROR || message.type() == NLMSG_DONE) {
                // Both carry an int: 0, or a negative errno (a dump can fail after its first datagrams).
                int error = message.length() >= NLMSG_HDRLEN + Integer.BYTES
                        ? message.buffer().getInt(message.payload())
                        : 0;
                if (error < 0) {
                    Errno errno = Errno.ofNumber(-error);
                    throw new NativeCallException(
                            "netlink " + call,
                            -error,
                            errno == Errno.UNKNOWN ? "errno " + -error : errno.text(),
                            "the kernel refused the request");
                }
                if (message.type() == NLMSG_DONE || !dump) {
                    return true;
                }
            } else {
                answer.add(message.bytes());
            }
        }
        return false;
    }

    /** Closes the socket; idempotent. */
    @Override
    public void close() {
        closed = true;
        inUse.lock();
        try {
            if (!fdClosed) {
                fdClosed = true;
                fd.closeFd();
            }
        } finally {
            inUse.unlock();
        }
    }
}
