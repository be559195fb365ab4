// SPDX-License-Identifier: Apache-2.0
package io.numaspread.nativeaccess;

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

    abstract void closeFd();

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
