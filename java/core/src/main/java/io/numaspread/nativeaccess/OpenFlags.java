// SPDX-License-Identifier: Apache-2.0
package io.numaspread.nativeaccess;

/**
 * How both native backends open the kernel's control files ({@link io.numaspread.kernel.LibcKernelFiles}), with
 * the {@code open} flags of {@code <asm-generic/fcntl.h>}, except {@code O_NOFOLLOW}, which arm64's own
 * {@code <asm/fcntl.h>} moves. The FFM backend takes them from here too, not from its bindings: those are
 * generated from the headers of the machine that builds the jar, and one jar runs on x86_64 and aarch64.
 */
final class OpenFlags {
    static final int O_RDONLY = 0;
    static final int O_WRONLY = 1;
    static final int O_TRUNC = 01000;
    static final int O_NONBLOCK = 04000;
    static final int O_CLOEXEC = 02000000;

    private OpenFlags() {}

    /**
     * {@code O_NOFOLLOW} on {@code arch} (as {@code os.arch} names it): asm-generic's 0400000 (x86_64, riscv64,
     * s390x, loongarch64), or 0100000 on arm and powerpc, where 0400000 is {@code O_LARGEFILE} (arm) or
     * {@code O_DIRECT} (powerpc).
     *
     * @throws UnsupportedOperationException for an architecture whose value numaspread does not know
     */
    static int noFollow(String arch) {
        return switch (arch) {
            case "amd64", "x86_64", "riscv64", "s390x", "loongarch64" -> 0400000;
            case "aarch64", "arm", "ppc64", "ppc64le" -> 0100000;
            default -> throw new UnsupportedOperationException("numaspread does not know O_NOFOLLOW on " + arch);
        };
    }

    /**
     * The flags of a kernel file's {@code open}: never through a symbolic link at the last component (a planted
     * link would aim root's write anywhere; the kernel's own links, such as {@code /sys/class/net/eth0}, are
     * directories on the way, which it still follows), never blocking (a planted FIFO fails at once, ENXIO for a
     * write, instead of hanging the open), and never inherited by a child. {@code O_TRUNC} only for a write that
     * replaces a value: the kernel ignores it, and a stand-in tree's plain file needs it to hold only the new one.
     * Never {@code O_CREAT}: a kernel file that is missing is an error to report, not a file to make.
     */
    static int kernelFile(boolean forWriting, boolean truncate) {
        return (forWriting ? O_WRONLY : O_RDONLY)
                | (truncate ? O_TRUNC : 0)
                | noFollow(System.getProperty("os.arch"))
                | O_NONBLOCK
                | O_CLOEXEC;
    }
}
