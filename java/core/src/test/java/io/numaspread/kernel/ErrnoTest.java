// SPDX-License-Identifier: Apache-2.0
package io.numaspread.kernel;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ErrnoTest {
    @Test
    void javasExceptionTypesAndStrerrorTextsMapToErrnoNames() {
        assertEquals(Errno.EACCES, Errno.of(new AccessDeniedException("/proc/irq/38/smp_affinity_list")));
        assertEquals(Errno.ENOENT, Errno.of(new NoSuchFileException("x")));
        assertEquals(Errno.EIO, Errno.of(new IOException("Input/output error")));
        assertEquals(Errno.EPERM, Errno.of(new FileSystemException("f", null, "Operation not permitted")));
        assertEquals(Errno.EROFS, Errno.of(new FileSystemException("f", null, "Read-only file system")));
        assertEquals(Errno.EINVAL, Errno.of(new IOException("write failed: Invalid argument")));
        assertEquals(Errno.UNKNOWN, Errno.of(new IOException("something else")));
        assertEquals("EIO (Input/output error)", Errno.describe(new IOException("Input/output error")));
        assertEquals("something else", Errno.describe(new IOException("something else")));
    }

    @Test
    void aRealDirectoryWriteIsEisdir(@TempDir Path dir) throws IOException {
        Path notAFile = Files.createDirectory(dir.resolve("smp_affinity_list"));
        IOException failure = org.junit.jupiter.api.Assertions.assertThrows(IOException.class,
                () -> KernelFiles.DIRECT.write(notAFile, "0-1"));
        assertEquals(Errno.EISDIR, Errno.of(failure), failure.toString());
    }
}
