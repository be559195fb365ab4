// SPDX-License-Identifier: Apache-2.0
package io.numaspread.cli.picture;

import io.numaspread.NumaspreadException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;

/**
 * The file a picture goes to ({@code --svg FILE}): checked before any work, and written whole or not at all, to
 * a temporary file beside it that is synced and renamed over it, so a reader never sees half a picture.
 */
public record SvgFile(Path path) {
    /**
     * @throws NumaspreadException (bad input) naming {@code --svg} and the path, when its directory is missing or
     *     not writable, or the path is a directory
     */
    public static SvgFile checked(Path path) {
        Path absolute = path.toAbsolutePath().normalize();
        Path directory = absolute.getParent();
        if (directory == null || Files.isDirectory(absolute)) {
            throw NumaspreadException.badInput("--svg " + path + ": is a directory; give a file name");
        }
        if (!Files.isDirectory(directory)) {
            throw NumaspreadException.badInput("--svg " + path + ": directory " + directory + " does not exist");
        }
        if (!Files.isWritable(directory)) {
            throw NumaspreadException.badInput("--svg " + path + ": directory " + directory + " is not writable");
        }
        return new SvgFile(absolute);
    }

    /** Writes {@code svg}: readable by all, as an image is, and replacing the file only once it is complete. */
    public void write(String svg) {
        Path temporary = null;
        try {
            temporary = Files.createTempFile(path.getParent(), "." + path.getFileName() + ".", ".tmp");
            try (FileChannel channel = FileChannel.open(temporary, StandardOpenOption.WRITE)) {
                ByteBuffer bytes = ByteBuffer.wrap(svg.getBytes(StandardCharsets.UTF_8));
                while (bytes.hasRemaining()) {
                    channel.write(bytes);
                }
                channel.force(true);
            }
            if (Files.getFileStore(temporary).supportsFileAttributeView("posix")) {
                Files.setPosixFilePermissions(temporary, PosixFilePermissions.fromString("rw-r--r--"));
            }
            Files.move(temporary, path, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            temporary = null;
        } catch (AccessDeniedException e) {
            throw NumaspreadException.badInput("--svg " + path + ": permission denied (" + e.getFile() + ")", e);
        } catch (IOException e) {
            throw NumaspreadException.badInput("--svg " + path + ": cannot write it: " + e.getMessage(), e);
        } finally {
            if (temporary != null) {
                try {
                    Files.deleteIfExists(temporary);
                } catch (IOException ignored) {
                    // The write already failed and says why; a stray temporary file is named after the target.
                }
            }
        }
    }
}
