// SPDX-License-Identifier: Apache-2.0
package io.numaspread.kernel;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;

/**
 * The errno behind a failed call on a kernel file. It is never read from message text, which the C library
 * words in the user's language ({@code LANG=de_DE.UTF-8} turns EIO into "Eingabe-/Ausgabefehler"): a native
 * backend captures the number itself ({@link ErrnoException}); without one, Java's exception type is all
 * there is, and it names only EACCES, ENOENT and ENOTDIR.
 */
public enum Errno {
    EPERM(1, "Operation not permitted"),
    ENOENT(2, "No such file or directory"),
    ESRCH(3, "No such process"),
    EINTR(4, "Interrupted system call"),
    EIO(5, "Input/output error"),
    ENXIO(6, "No such device or address"),
    EAGAIN(11, "Resource temporarily unavailable"),
    EACCES(13, "Permission denied"),
    EBUSY(16, "Device or resource busy"),
    EEXIST(17, "File exists"),
    ENODEV(19, "No such device"),
    ENOTDIR(20, "Not a directory"),
    EISDIR(21, "Is a directory"),
    EINVAL(22, "Invalid argument"),
    ENOTTY(25, "Inappropriate ioctl for device"),
    EFBIG(27, "File too large"),
    ENOSPC(28, "No space left on device"),
    EROFS(30, "Read-only file system"),
    ERANGE(34, "Numerical result out of range"),
    ELOOP(40, "Too many levels of symbolic links"),
    EOPNOTSUPP(95, "Operation not supported"),
    ENOBUFS(105, "No buffer space available"),
    ETIMEDOUT(110, "Connection timed out"),
    /** Not an errno: the failure had no errno that numaspread knows. */
    UNKNOWN(0, "");

    private final int number;
    private final String text;

    /**
     * {@code number} is asm-generic's ({@code errno-base.h} up to 34, {@code errno.h} above), which x86_64 and
     * aarch64 both use.
     */
    Errno(int number, String text) {
        this.number = number;
        this.text = text;
    }

    /** The errno value. */
    public int number() {
        return number;
    }

    /** glibc's English {@code strerror()} text for it, for messages. */
    public String text() {
        return text;
    }

    /** The errno with this value, or {@link #UNKNOWN}. */
    public static Errno ofNumber(int number) {
        for (Errno errno : values()) {
            if (errno.number == number && errno != UNKNOWN) {
                return errno;
            }
        }
        return UNKNOWN;
    }

    /** From the captured errno of an {@link ErrnoException}, else from Java's exception type alone. */
    public static Errno of(IOException failure) {
        if (failure instanceof ErrnoException captured) {
            return ofNumber(captured.number());
        }
        if (failure instanceof AccessDeniedException) {
            return EACCES;
        }
        if (failure instanceof NoSuchFileException) {
            return ENOENT;
        }
        if (failure instanceof NotDirectoryException) {
            return ENOTDIR;
        }
        return UNKNOWN;
    }

    /** "EIO (Input/output error)", "errno 75", or the exception's own message when no errno is known. */
    public static String describe(IOException failure) {
        if (failure instanceof ErrnoException captured) {
            return describe(captured.number());
        }
        Errno errno = of(failure);
        if (errno == UNKNOWN) {
            String message = failure.getMessage();
            return message == null ? failure.getClass().getSimpleName() : KernelText.escape(message);
        }
        return errno.name() + " (" + errno.text + ")";
    }

    /** "EIO (Input/output error)", or "errno 75" for one numaspread has no name for. */
    public static String describe(int number) {
        Errno errno = ofNumber(number);
        return errno == UNKNOWN ? "errno " + number : errno.name() + " (" + errno.text + ")";
    }
}
