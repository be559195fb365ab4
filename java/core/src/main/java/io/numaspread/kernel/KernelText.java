// SPDX-License-Identifier: Apache-2.0
package io.numaspread.kernel;

import io.numaspread.CpuSet;
import io.numaspread.NumaspreadException;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Optional;

/**
 * Reads the kernel's small text files under /sys and /proc, and parses what they hold, naming the file on error.
 * Every file the tools read goes through {@link #read}, which stops at a size limit: a planted device or a huge
 * file must end in one line of error, not in an OutOfMemoryError.
 */
public final class KernelText {
    /**
     * The limit for an attribute file: sysfs prints at most one page (4 KiB, 64 KiB on some arm64 kernels), and
     * the longest procfs cpulist of 8192 CPUs is under 40 KiB.
     */
    public static final int MAX_ATTRIBUTE_BYTES = 1 << 20;

    private KernelText() {
    }

    /**
     * The file's text as it is (UTF-8, malformed bytes replaced), read to its end but never beyond
     * {@code maxBytes}. Kernel files report a size of 0, so the size is counted while reading, not asked first.
     * Only a regular file is opened: a FIFO planted in a stand-in tree would block the open forever.
     *
     * @param options {@link LinkOption#NOFOLLOW_LINKS} to refuse a symbolic link
     * @throws IOException when it cannot be read, is no regular file, or holds more than {@code maxBytes} bytes
     *     (the message says so); {@link java.nio.file.NoSuchFileException} when it does not exist
     */
    public static String read(Path file, int maxBytes, LinkOption... options) throws IOException {
        if (!Files.readAttributes(file, BasicFileAttributes.class, options).isRegularFile()) {
            throw new IOException("not a regular file (a directory, FIFO, socket or device)");
        }
        try (InputStream in = Files.newInputStream(file, options)) {
            ByteArrayOutputStream text = new ByteArrayOutputStream();
            byte[] chunk = new byte[8192];
            int n;
            while ((n = in.read(chunk, 0, Math.min(chunk.length, maxBytes + 1 - text.size()))) > 0) {
                text.write(chunk, 0, n);
                if (text.size() > maxBytes) {
                    throw new IOException("larger than " + maxBytes + " bytes, more than any such file holds");
                }
            }
            return text.toString(StandardCharsets.UTF_8);
        }
    }

    /** The file's text without surrounding whitespace, or empty when the file does not exist. */
    public static Optional<String> readOptional(Path file) {
        try {
            return Optional.of(read(file, MAX_ATTRIBUTE_BYTES).strip());
        } catch (NoSuchFileException e) {
            return Optional.empty();
        } catch (IOException e) {
            throw NumaspreadException.badInput("cannot read " + file + ": " + Errno.describe(e));
        }
    }

    /** Parses a kernel CPU list ("0-3,8"), naming {@code file} when it is malformed. */
    public static CpuSet parseCpuList(Path file, String text) {
        try {
            return CpuSet.parse(text);
        } catch (IllegalArgumentException e) {
            throw NumaspreadException.badInput(file + ": " + e.getMessage());
        }
    }
}
