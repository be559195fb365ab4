// SPDX-License-Identifier: Apache-2.0
package io.numaspread.netlink;

/**
 * Where a reader of kernel messages gets its datagrams: a bound {@link NetlinkSocket}, or bytes a test crafted
 * (a length field the kernel never sends, a receive that fails).
 */
public interface DatagramSource extends AutoCloseable {
    /**
     * Waits up to {@code timeoutMillis} for one datagram and copies it into {@code buffer}.
     *
     * @return the number of bytes received, or 0 when none arrived in time or the source is closed
     * @throws io.numaspread.nativeaccess.NativeCallException when the receive fails
     */
    int receive(byte[] buffer, int timeoutMillis);

    /** Closes the source; a receive waiting on it returns within its timeout. Idempotent. */
    @Override
    void close();
}
