// SPDX-License-Identifier: Apache-2.0
package io.numaspread.kernel;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.HashSet;
import java.util.Set;

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

    /**
     * Java's file API, for the sysfs backend; errno is known only as far as {@link Errno#of} can tell. As the
     * native backends do, it never follows a link at the last component and reads to a size limit; where they open
     * a FIFO without blocking, it refuses anything but a regular file before opening it, since Java cannot open
     * without blocking.
     */
    KernelFiles DIRECT = new KernelFiles() {
        @Override
        public String read(Path file) throws IOException {
            return KernelText.meaning(
                    KernelText.readBytes(file, KernelText.MAX_ATTRIBUTE_BYTES, LinkOption.NOFOLLOW_LINKS));
        }

        @Override
        public void write(Path file, String value) throws IOException {
            byte[] bytes = (value + "\n").getBytes(StandardCharsets.US_ASCII);
            try (FileChannel channel = openForWriting(file, StandardOpenOption.TRUNCATE_EXISTING)) {
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
                openForWriting(file).close();
            } catch (IOException e) {
                if (Errno.of(e) == Errno.UNKNOWN && Files.getFileStore(file).isReadOnly()) {
                    throw new ErrnoException("open", file, Errno.EROFS.number());
                }
                throw e;
            }
        }

        /** {@code O_WRONLY | O_NOFOLLOW}, never {@code O_CREAT}, of a regular file only. */
        private FileChannel openForWriting(Path file, OpenOption... more) throws IOException {
            if (!Files.readAttributes(file, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS)
                    .isRegularFile()) {
                throw new IOException(file + " is not a regular file (a link, directory, FIFO, socket or device)");
            }
            Set<OpenOption> options = new HashSet<>(Set.of(more));
            options.add(StandardOpenOption.WRITE);
            options.add(LinkOption.NOFOLLOW_LINKS);
            return FileChannel.open(file, options);
        }
    };
}
