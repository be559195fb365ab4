// SPDX-License-Identifier: Apache-2.0
package io.numaspread.kernel;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.concurrent.ThreadLocalRandom;

/**
 * How numaspread replaces a file of its own that others read (the metrics textfile), as root, in a directory others
 * may have prepared: never through a name that already exists, never through a link. The state file, root's alone,
 * is replaced in a {@link TrustedDirectory} instead.
 */
public final class AtomicFile {
    private AtomicFile() {}

    /**
     * Replaces {@code file} with {@code content} atomically: a reader (or a crash) sees the old content or the new,
     * never a mix. The content goes first to a temporary file beside it, of a random name that this call creates
     * (never one that exists, never through a link), synced, then renamed over {@code file}; the directory is
     * synced after. A {@code file} that is a link, a directory, a FIFO or a device is refused, not replaced:
     * whoever planted it meant something else to be written. On failure the temporary file is removed.
     *
     * @throws IOException naming the file that is in the way, or the call's failure as the JDK reports it
     */
    public static void replace(Path file, byte[] content) throws IOException {
        Path name = file.getFileName();
        if (name == null) {
            throw new IOException(file + " names no file");
        }
        refuseAllButARegularFile(file);
        Path temporary = file.resolveSibling(
                "." + name + "." + Long.toHexString(ThreadLocalRandom.current().nextLong()) + ".tmp");
        try {
            try (FileChannel channel = FileChannel.open(
                    temporary, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS)) {
                ByteBuffer bytes = ByteBuffer.wrap(content);
                while (bytes.hasRemaining()) {
                    channel.write(bytes);
                }
                channel.force(true);
            }
            try {
                Files.move(temporary, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                throw new IOException("cannot rename " + temporary + " over " + file + " atomically", e);
            }
        } catch (IOException e) {
            deleteQuietly(temporary);
            throw e;
        }
        syncDirectory(file.toAbsolutePath().getParent());
    }

    private static void refuseAllButARegularFile(Path file) throws IOException {
        BasicFileAttributes attributes;
        try {
            attributes = Files.readAttributes(file, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        } catch (NoSuchFileException e) {
            return;
        }
        if (attributes.isSymbolicLink()) {
            throw new IOException(
                    file + " is a symbolic link (never followed: it could point root's writes" + " anywhere)");
        }
        if (!attributes.isRegularFile()) {
            throw new IOException(
                    file + " is " + (attributes.isDirectory() ? "a directory" : "a FIFO, socket or" + " device")
                            + ", not a regular file");
        }
    }

    private static void deleteQuietly(Path file) {
        try {
            Files.deleteIfExists(file);
        } catch (IOException e) {
            // Only a stray temporary file is at stake; the error that matters is already being reported.
        }
    }

    /** Makes the rename durable; some filesystems do not allow opening a directory, which costs only durability. */
    private static void syncDirectory(Path dir) {
        try (FileChannel channel = FileChannel.open(dir, StandardOpenOption.READ)) {
            channel.force(true);
        } catch (IOException e) {
            // The rename is already atomic; only its survival across a power loss is at stake.
        }
    }
}
