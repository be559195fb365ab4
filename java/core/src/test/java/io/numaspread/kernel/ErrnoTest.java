// SPDX-License-Identifier: Apache-2.0
package io.numaspread.kernel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(value = 30, unit = TimeUnit.SECONDS)
class ErrnoTest {
    @Test
    void aCapturedErrnoIsTakenAsItIs() {
        Path file = Path.of("/proc/irq/38/smp_affinity_list");
        assertEquals(Errno.EIO, Errno.of(new ErrnoException("write", file, 5)));
        assertEquals(Errno.EROFS, Errno.of(new ErrnoException("open", file, 30)));
        assertEquals("EIO (Input/output error)", Errno.describe(new ErrnoException("write", file, 5)));
        assertEquals(Errno.UNKNOWN, Errno.of(new ErrnoException("write", file, 75)));
        assertEquals("errno 75", Errno.describe(new ErrnoException("write", file, 75)));
        assertEquals(
                "write /proc/irq/38/smp_affinity_list: EIO (Input/output error)",
                new ErrnoException("write", file, 5).getMessage());
    }

    @Test
    void withoutACapturedErrnoOnlyJavasExceptionTypeCounts() {
        assertEquals(Errno.EACCES, Errno.of(new AccessDeniedException("/proc/irq/38/smp_affinity_list")));
        assertEquals(Errno.ENOENT, Errno.of(new NoSuchFileException("x")));
        assertEquals(Errno.ENOTDIR, Errno.of(new NotDirectoryException("x")));
    }

    /** glibc words errno in the user's language, so no text, English or not, may decide. */
    @Test
    void messageTextNeverDecides() {
        assertEquals(Errno.UNKNOWN, Errno.of(new IOException("Input/output error")));
        assertEquals(Errno.UNKNOWN, Errno.of(new IOException("Eingabe-/Ausgabefehler")));
        assertEquals(Errno.UNKNOWN, Errno.of(new FileSystemException("f", null, "Read-only file system")));
        assertEquals(Errno.UNKNOWN, Errno.of(new FileSystemException("f", null, "Das Dateisystem ist nur lesbar")));
        assertEquals("Eingabe-/Ausgabefehler", Errno.describe(new IOException("Eingabe-/Ausgabefehler")));
        assertEquals("bad \\x1b[2J\\0", Errno.describe(new IOException("bad \u001b[2J\0")));
    }

    @Test
    void numbersAreLinuxs() {
        assertEquals(Errno.EPERM, Errno.ofNumber(1));
        assertEquals(Errno.ENOENT, Errno.ofNumber(2));
        assertEquals(Errno.ESRCH, Errno.ofNumber(3));
        assertEquals(Errno.EINTR, Errno.ofNumber(4));
        assertEquals(Errno.EIO, Errno.ofNumber(5));
        assertEquals(Errno.EACCES, Errno.ofNumber(13));
        assertEquals(Errno.EINVAL, Errno.ofNumber(22));
        assertEquals(Errno.ENOTTY, Errno.ofNumber(25));
        assertEquals(Errno.EFBIG, Errno.ofNumber(27));
        assertEquals(Errno.ENOSPC, Errno.ofNumber(28));
        assertEquals(Errno.EROFS, Errno.ofNumber(30));
        assertEquals(Errno.ELOOP, Errno.ofNumber(40));
        assertEquals(Errno.ENOBUFS, Errno.ofNumber(105));
        assertEquals(Errno.UNKNOWN, Errno.ofNumber(0));
    }

    /** Java's file API tells a directory in a file's place only by text; {@link KernelFiles#DIRECT} cannot name it. */
    @Test
    void javasFileApiLeavesMostErrnosUnknown(@TempDir Path dir) throws IOException {
        Path notAFile = Files.createDirectory(dir.resolve("smp_affinity_list"));
        IOException failure = assertThrows(IOException.class, () -> KernelFiles.DIRECT.write(notAFile, "0-1"));
        assertEquals(Errno.UNKNOWN, Errno.of(failure), failure.toString());
        assertEquals(
                Errno.ENOENT,
                Errno.of(
                        assertThrows(IOException.class, () -> KernelFiles.DIRECT.write(dir.resolve("absent"), "0-1"))));
    }
}
