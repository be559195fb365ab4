// SPDX-License-Identifier: Apache-2.0
package io.numaspread.kernel;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.util.Map;

/**
 * The errno behind a Java I/O failure. Java reports errno only as its exception type (EACCES, ENOENT) or as
 * glibc's {@code strerror()} text, so the text is mapped back to the name users and kernel sources use.
 */
public enum Errno {
    EPERM("Operation not permitted"),
    ENOENT("No such file or directory"),
    EIO("Input/output error"),
    ENXIO("No such device or address"),
    EACCES("Permission denied"),
    EBUSY("Device or resource busy"),
    ENODEV("No such device"),
    ENOTDIR("Not a directory"),
    EISDIR("Is a directory"),
    EINVAL("Invalid argument"),
    ENOSPC("No space left on device"),
    EROFS("Read-only file system"),
    ERANGE("Numerical result out of range"),
    EOPNOTSUPP("Operation not supported"),
    /** Not an errno: the failure had no recognisable one. */
    UNKNOWN("");

    private static final Map<String, Errno> BY_TEXT = Map.ofEntries(
            Map.entry(EPERM.text, EPERM), Map.entry(ENOENT.text, ENOENT), Map.entry(EIO.text, EIO),
            Map.entry(ENXIO.text, ENXIO), Map.entry(EACCES.text, EACCES), Map.entry(EBUSY.text, EBUSY),
            Map.entry(ENODEV.text, ENODEV), Map.entry(ENOTDIR.text, ENOTDIR), Map.entry(EISDIR.text, EISDIR),
            Map.entry(EINVAL.text, EINVAL), Map.entry(ENOSPC.text, ENOSPC), Map.entry(EROFS.text, EROFS),
            Map.entry(ERANGE.text, ERANGE), Map.entry(EOPNOTSUPP.text, EOPNOTSUPP));

    private final String text;

    Errno(String text) {
        this.text = text;
    }

    /** glibc's {@code strerror()} text for it. */
    public String text() {
        return text;
    }

    public static Errno of(IOException failure) {
        if (failure instanceof AccessDeniedException) {
            return EACCES;
        }
        if (failure instanceof NoSuchFileException) {
            return ENOENT;
        }
        if (failure instanceof NotDirectoryException) {
            return ENOTDIR;
        }
        String text = failure instanceof FileSystemException fs ? fs.getReason() : failure.getMessage();
        if (text == null) {
            return UNKNOWN;
        }
        Errno exact = BY_TEXT.get(text.strip());
        if (exact != null) {
            return exact;
        }
        // Some messages carry the path or a prefix: "…: Input/output error".
        for (Map.Entry<String, Errno> entry : BY_TEXT.entrySet()) {
            if (text.endsWith(entry.getKey())) {
                return entry.getValue();
            }
        }
        return UNKNOWN;
    }

    /** "EIO (Input/output error)", or the exception's own message when no errno is recognisable. */
    public static String describe(IOException failure) {
        Errno errno = of(failure);
        if (errno == UNKNOWN) {
            String message = failure.getMessage();
            return message == null ? failure.getClass().getSimpleName() : message;
        }
        return errno.name() + " (" + errno.text + ")";
    }
}
