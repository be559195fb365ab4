// SPDX-License-Identifier: Apache-2.0
package io.numaspread.nativeaccess;

/**
 * The system calls on one bound netlink socket's descriptor, as a native backend makes them (FFM or JNA). They
 * are unguarded: {@code io.numaspread.netlink.NetlinkSocket} makes them one thread at a time and closes the
 * descriptor only while no call uses it.
 */
public interface NetlinkFd {
    /**
     * {@code poll} on the one descriptor: above 0 when a message waits, 0 on timeout.
     *
     * @throws NativeCallException with the call's own errno
     */
    int pollIn(int timeoutMillis);

    /**
     * {@code recv(fd, buffer, length, 0)}: the byte count.
     *
     * @throws NativeCallException with the call's own errno
     */
    int recvInto(byte[] buffer);

    /**
     * {@code send(fd, message, length, 0)} to the kernel (port 0, a netlink socket's default destination): the
     * byte count.
     *
     * @throws NativeCallException with the call's own errno
     */
    int sendFrom(byte[] message);

    /**
     * {@code close} of the descriptor. Its failure is ignored: Linux releases a socket's descriptor before close
     * can report an error (EINTR, EIO), so nothing is left open and there is nothing to retry.
     */
    void closeFd();
}
