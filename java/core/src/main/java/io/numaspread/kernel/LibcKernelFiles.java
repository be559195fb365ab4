// SPDX-License-Identifier: Apache-2.0
package io.numaspread.kernel;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * {@link KernelFiles} through libc's {@code open}, {@code read}, {@code write} and {@code close}, each call's
 * errno captured by the native backend that makes it ({@link Calls}), so that every failure is an
 * {@link ErrnoException} whatever the user's language.
 */
public final class LibcKernelFiles implements KernelFiles {
    /**
     * The four calls, as a native backend makes them. Each returns what the C call returns, except that a
     * failure returns minus the errno that the call itself left.
     */
    public interface Calls {
        /**
         * {@code open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)}, or with {@code O_WRONLY}, and
         * {@code O_TRUNC} if {@code truncate}; never {@code O_CREAT}.
         */
        int open(byte[] nulTerminatedPath, boolean forWriting, boolean truncate);

        long read(int fd, byte[] buffer, int length);

        long write(int fd, byte[] buffer, int length);

        int close(int fd);
    }

    private static final int CHUNK = 4096;

    private final Calls calls;

    public LibcKernelFiles(Calls calls) {
        this.calls = calls;
    }

    /**
     * Reads to the end, but never beyond {@link KernelText#MAX_ATTRIBUTE_BYTES}: a planted device or huge file
     * ends in one line of error. A FIFO neither blocks the open nor the read ({@code O_NONBLOCK}).
     */
    @Override
    public String read(Path file) throws IOException {
        int fd = open(file, false, false);
        ByteArrayOutputStream content = new ByteArrayOutputStream();
        byte[] chunk = new byte[CHUNK];
        long got = 0;
        while (content.size() <= KernelText.MAX_ATTRIBUTE_BYTES && (got = calls.read(fd, chunk, chunk.length)) > 0) {
            content.write(chunk, 0, (int) got);
        }
        int closed = calls.close(fd);
        if (content.size() > KernelText.MAX_ATTRIBUTE_BYTES) {
            throw KernelText.tooLarge(KernelText.MAX_ATTRIBUTE_BYTES);
        }
        if (got < 0) {
            throw new ErrnoException("read", file, (int) -got);
        }
        if (closed < 0) {
            throw new ErrnoException("close", file, -closed);
        }
        return KernelText.meaning(content.toByteArray());
    }

    /** A failed close after a good write is the write's failure too: some files report errors only then. */
    @Override
    public void write(Path file, String value) throws IOException {
        byte[] bytes = (value + "\n").getBytes(StandardCharsets.US_ASCII);
        int fd = open(file, true, true);
        long written = calls.write(fd, bytes, bytes.length);
        int closed = calls.close(fd);
        if (written < 0) {
            throw new ErrnoException("write", file, (int) -written);
        }
        if (written != bytes.length) {
            throw new IOException("short write to " + file + ": " + written + " of " + bytes.length + " bytes");
        }
        if (closed < 0) {
            throw new ErrnoException("close", file, -closed);
        }
    }

    @Override
    public void probeWritable(Path file) throws IOException {
        int closed = calls.close(open(file, true, false));
        if (closed < 0) {
            throw new ErrnoException("close", file, -closed);
        }
    }

    private int open(Path file, boolean forWriting, boolean truncate) throws ErrnoException {
        byte[] path = file.toString().getBytes(StandardCharsets.UTF_8);
        int fd = calls.open(Arrays.copyOf(path, path.length + 1), forWriting, truncate);
        if (fd < 0) {
            throw new ErrnoException("open", file, -fd);
        }
        return fd;
    }
}
