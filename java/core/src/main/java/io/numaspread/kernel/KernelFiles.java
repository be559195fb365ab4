// SPDX-License-Identifier: Apache-2.0
package io.numaspread.kernel;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Reads and writes the kernel's small control files. An interface so that tests can inject failures the kernel
 * makes (EIO from a managed IRQ, EINVAL midway) and crashes between writes.
 */
public interface KernelFiles {
    String read(Path file) throws IOException;

    /** Writes {@code value} with one {@code write(2)}, as the kernel parses each write on its own. */
    void write(Path file, String value) throws IOException;

    /**
     * Opens {@code file} for writing and writes nothing, which changes nothing: it fails as the write would
     * for want of permission (EACCES) or on a read-only mount (EROFS).
     */
    void probeWritable(Path file) throws IOException;

    /** The real files. */
    KernelFiles DIRECT = new KernelFiles() {
        @Override
        public String read(Path file) throws IOException {
            return KernelText.read(file, KernelText.MAX_ATTRIBUTE_BYTES).strip();
        }

        @Override
        public void write(Path file, String value) throws IOException {
            byte[] bytes = (value + "\n").getBytes(StandardCharsets.US_ASCII);
            try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE,
                    StandardOpenOption.TRUNCATE_EXISTING)) {
                int written = channel.write(ByteBuffer.wrap(bytes));
                if (written != bytes.length) {
                    throw new IOException("short write: " + written + " of " + bytes.length + " bytes");
                }
            }
        }

        @Override
        public void probeWritable(Path file) throws IOException {
            FileChannel.open(file, StandardOpenOption.WRITE).close();
        }
    };
}
