// SPDX-License-Identifier: Apache-2.0
package io.numaspread.nativeaccess;

import io.numaspread.NumaspreadException;

/** A failed call into libc or libnuma, with the errno that call left behind on its own thread. */
public final class NativeCallException extends NumaspreadException {
    private static final long serialVersionUID = 1L;

    private final String function;
    private final int errno;
    private final String strerror;

    public NativeCallException(String function, int errno, String strerror, String detail) {
        super(
                Kind.CALL_FAILED,
                function + " failed: " + strerror + " (errno " + errno + ")" + (detail.isEmpty() ? "" : ": " + detail));
        this.function = function;
        this.errno = errno;
        this.strerror = strerror;
    }

    public String function() {
        return function;
    }

    public int errno() {
        return errno;
    }

    public String strerror() {
        return strerror;
    }
}
