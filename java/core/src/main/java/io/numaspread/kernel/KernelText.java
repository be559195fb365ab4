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
 * The one rule by which numaspread reads the kernel's files under /sys and /proc, and the one way its messages
 * quote what they hold.
 *
 * <p>A file means its bytes without trailing NULs and whitespace, and without leading whitespace. Real kernels
 * pad some files with NULs: {@code node/online} is {@code "0-7\n\0"} from 2.6.24 to about 3.1 (fixed by "mm: Fix
 * off-by-one bug in print_nodes_state"), {@code cpu/nohz_full} is {@code "\0\n"} on RHEL 7's 3.10, and every
 * {@code nodeN/cpulist} and {@code thread_siblings_list} ends in {@code "\n\0"} on a Kunpeng 920 with 5.15-rc1.
 *
 * <p>Bytes are decoded as ISO-8859-1, one character per byte, which never fails: an IRQ name in
 * {@code /proc/interrupts} is whatever bytes a driver or a renamed interface put there, UTF-8 or not.
 *
 * <p>Every file the tools read stops at a size limit: a planted device or a huge file must end in one line of
 * error, not in an OutOfMemoryError.
 */
public final class KernelText {
    /**
     * The limit for an attribute file: sysfs prints at most one page (4 KiB, 64 KiB on some arm64 kernels), and
     * the longest procfs cpulist of 8192 CPUs is under 40 KiB.
     */
    public static final int MAX_ATTRIBUTE_BYTES = 1 << 20;

    private KernelText() {}

    /** The file's meaning (see the class comment), read to at most {@link #MAX_ATTRIBUTE_BYTES}. */
    public static String read(Path file) throws IOException {
        return read(file, MAX_ATTRIBUTE_BYTES);
    }

    /** The file's meaning (see the class comment), read to at most {@code maxBytes}. */
    public static String read(Path file, int maxBytes) throws IOException {
        return meaning(readBytes(file, maxBytes));
    }

    /** The file's bytes decoded as UTF-8 (malformed bytes replaced), as they are: for files numaspread wrote. */
    public static String readUtf8(Path file, int maxBytes, LinkOption... options) throws IOException {
        return new String(readBytes(file, maxBytes, options), StandardCharsets.UTF_8);
    }

    /**
     * The file's bytes, read to its end but never beyond {@code maxBytes}. Kernel files report a size of 0, so
     * the size is counted while reading, not asked first. Only a regular file is opened: a FIFO planted in a
     * stand-in tree would block the open forever.
     *
     * @param options {@link LinkOption#NOFOLLOW_LINKS} to refuse a symbolic link
     * @throws IOException when it cannot be read, is no regular file, or holds more than {@code maxBytes} bytes
     *     (the message says so); {@link java.nio.file.NoSuchFileException} when it does not exist
     */
    public static byte[] readBytes(Path file, int maxBytes, LinkOption... options) throws IOException {
        BasicFileAttributes attributes = Files.readAttributes(file, BasicFileAttributes.class, options);
        if (attributes.isSymbolicLink()) {
            throw new IOException("not a regular file: a symbolic link, never followed here");
        }
        if (!attributes.isRegularFile()) {
            throw new IOException("not a regular file (a directory, FIFO, socket or device)");
        }
        try (InputStream in = Files.newInputStream(file, options)) {
            return readBytes(in, maxBytes);
        }
    }

    /**
     * What {@code in} holds, read to its end but never beyond {@code maxBytes}.
     *
     * @throws IOException when it cannot be read or holds more than {@code maxBytes} bytes (the message says so)
     */
    public static byte[] readBytes(InputStream in, int maxBytes) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        byte[] chunk = new byte[8192];
        int n;
        while ((n = in.read(chunk, 0, Math.min(chunk.length, maxBytes + 1 - bytes.size()))) > 0) {
            bytes.write(chunk, 0, n);
            if (bytes.size() > maxBytes) {
                throw tooLarge(maxBytes);
            }
        }
        return bytes.toByteArray();
    }

    /** The failure of a file that holds more than {@code maxBytes}, in the one wording every reader uses. */
    public static IOException tooLarge(int maxBytes) {
        return new IOException("larger than " + maxBytes + " bytes, more than any such file holds");
    }

    /** What {@code bytes} mean as a kernel file's content (see the class comment). */
    public static String meaning(byte[] bytes) {
        int end = bytes.length;
        while (end > 0 && isPadding(bytes[end - 1])) {
            end--;
        }
        int start = 0;
        while (start < end && isWhitespace(bytes[start])) {
            start++;
        }
        return new String(bytes, start, end - start, StandardCharsets.ISO_8859_1);
    }

    private static boolean isPadding(byte b) {
        return b == 0 || isWhitespace(b);
    }

    private static boolean isWhitespace(byte b) {
        return b == ' ' || b == '\n' || b == '\t' || b == '\r' || b == 0x0b || b == '\f';
    }

    /** The file's meaning, or empty when the file does not exist. */
    public static Optional<String> readOptional(Path file) {
        try {
            return Optional.of(read(file));
        } catch (NoSuchFileException e) {
            return Optional.empty();
        } catch (IOException e) {
            throw NumaspreadException.badInput("cannot read " + file + ": " + Errno.describe(e), e);
        }
    }

    /** A file that must exist. */
    public static String readRequired(Path file) {
        return readOptional(file).orElseThrow(() -> NumaspreadException.badInput("missing file " + file));
    }

    /** Parses a kernel CPU list ("0-3,8"), naming {@code file} when it is malformed. */
    public static CpuSet parseCpuList(Path file, String text) {
        try {
            return CpuSet.parse(text);
        } catch (IllegalArgumentException e) {
            throw NumaspreadException.badInput(file + ": " + escape(e.getMessage()), e);
        }
    }

    /**
     * {@code text} fit to quote in a one-line message or print to a terminal: control characters (C0, DEL and
     * C1, which terminals act on) become {@code \xNN}, {@code \n}, {@code \t} or {@code \0}. Everything else,
     * backslashes included, is kept, so that escaping twice changes nothing.
     */
    public static String escape(String text) {
        StringBuilder escaped = null;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (!isControl(c)) {
                if (escaped != null) {
                    escaped.append(c);
                }
                continue;
            }
            if (escaped == null) {
                escaped = new StringBuilder(text.length() + 8).append(text, 0, i);
            }
            switch (c) {
                case '\0' -> escaped.append("\\0");
                case '\n' -> escaped.append("\\n");
                case '\t' -> escaped.append("\\t");
                default ->
                    escaped.append("\\x")
                            .append(Character.forDigit(c >> 4, 16))
                            .append(Character.forDigit(c & 0xf, 16));
            }
        }
        return escaped == null ? text : escaped.toString();
    }

    private static boolean isControl(char c) {
        return c < 0x20 || (c >= 0x7f && c <= 0x9f);
    }
}
