// SPDX-License-Identifier: Apache-2.0
package io.numaspread.kernel;

import java.io.IOException;
import java.nio.file.Path;

/** A system call on a kernel file failed, with the errno the call itself left behind (captured per call). */
public final class ErrnoException extends IOException {
    private static final long serialVersionUID = 1L;

    private final int number;

    /**
     * @param call the system call, "open" or "write"
     * @param number its errno
     */
    public ErrnoException(String call, Path file, int number) {
        super(call + " " + file + ": " + Errno.describe(number));
        this.number = number;
    }

    /** The errno value. */
    public int number() {
        return number;
    }
}
