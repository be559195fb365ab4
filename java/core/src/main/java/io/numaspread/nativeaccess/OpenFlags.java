// SPDX-License-Identifier: Apache-2.0
package io.numaspread.nativeaccess;

/**
 * The {@code open} flags JNA needs, from {@code <asm-generic/fcntl.h>}, which every Linux architecture that
 * numaspread builds for (x86_64, aarch64) uses. The FFM bindings take them from the headers.
 */
final class OpenFlags {
    static final int O_RDONLY = 0;
    static final int O_WRONLY = 1;
    static final int O_TRUNC = 01000;
    static final int O_CLOEXEC = 02000000;

    private OpenFlags() {}
}
