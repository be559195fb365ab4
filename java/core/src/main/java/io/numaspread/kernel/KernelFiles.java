// SPDX-License-Identifier: Apache-2.0
package io.numaspread.kernel;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Reads and writes the kernel's small control files. The native backends do it through libc
 * ({@link LibcKernelFiles}), so that a failure carries its errno; {@link #DIRECT} does it through Java's file API,
 * whose failures name only EACCES, ENOENT and ENOTDIR ({@link Errno}). An interface also so that tests can inject
 * failures the kernel makes (EIO from a managed IRQ, EINVAL midway) and crashes between writes.
 */
public interface KernelFiles {
    /** The file's meaning, by {@link KernelText}'s rule. */
    String read(Path file) throws IOException;

    /** Writes {@code value} with one {@code write(2)}, as the kernel parses each write on its own. */
    void write(Path file, String value) throws IOException;

    /**
     * Opens {@code file} for writing and writes nothing, which changes nothing: it fails as the write would
     * for want of permission (EACCES) or on a read-only mount (EROFS).
     */
    void probeWritable(Path file) throws IOException;

    /** Java's file API, for the sysfs backend; errno is known only as far as {@link Errno#of} can tell. */
    KernelFiles DIRECT = new KernelFiles() {
        @Override
        public String read(Path file) throws IOException {
            return KernelText.read(file);
        }

        @Override
        public void write(Path file, String value) throws IOException {
            byte[] bytes = (value + "\n").getBytes(StandardCharsets.US_ASCII);
            try (FileChannel channel =
                    FileChannel.open(file, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)) {
                int written = channel.write(ByteBuffer.wrap(bytes));
                if (written != bytes.length) {
                    throw new IOException("short write: " + written + " of " + bytes.length + " bytes");
                }
            }
        }

        /** A read-only mount is told from the mount's flags, since Java words EROFS only as text. */
        @Override
        public void probeWritable(Path file) throws IOException {
            try {
                FileChannel.open(file, StandardOpenOption.WRITE).close();
            } catch (IOException e) {
                if (Errno.of(e) == Errno.UNKNOWN && Files.getFileStore(file).isReadOnly()) {
                    throw new ErrnoException("open", file, Errno.EROFS.number());
                }
                throw e;
            }
        }
    };
}
