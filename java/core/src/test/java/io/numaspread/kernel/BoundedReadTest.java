// SPDX-License-Identifier: Apache-2.0
package io.numaspread.kernel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.numaspread.NumaspreadException;
import io.numaspread.nic.InterruptTable;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every file the tools read goes through {@link KernelText#read}: it stops at its limit, opens only regular files,
 * and so a planted device, FIFO or huge file in a stand-in tree ends in one line naming it, not in an
 * OutOfMemoryError or a hang.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class BoundedReadTest {
    @TempDir
    Path dir;

    private static void sparse(Path file, long bytes) throws IOException {
        Files.createDirectories(file.getParent());
        try (RandomAccessFile out = new RandomAccessFile(file.toFile(), "rw")) {
            out.setLength(bytes);
        }
    }

    @Test
    void readsUpToTheLimitAndNoFurther() throws IOException {
        Path file = dir.resolve("possible");
        Files.writeString(file, "0-1234567\n");
        assertEquals("0-1234567\n", KernelText.readUtf8(file, 10));
        IOException e = assertThrows(IOException.class, () -> KernelText.readUtf8(file, 9));
        assertEquals("larger than 9 bytes, more than any such file holds", e.getMessage());
        assertThrows(NoSuchFileException.class, () -> KernelText.readUtf8(dir.resolve("absent"), 10));
    }

    @Test
    void devicesFifosAndDirectoriesAreNotOpened() throws Exception {
        Path fifo = dir.resolve("fifo");
        assertEquals(0, new ProcessBuilder("mkfifo", fifo.toString()).start().waitFor());
        for (Path file : new Path[] {fifo, Path.of("/dev/zero"), dir}) {
            IOException e = assertThrows(IOException.class, () -> KernelText.readUtf8(file, 1 << 20), file.toString());
            assertTrue(e.getMessage().startsWith("not a regular file"), e.getMessage());
        }
    }

    @Test
    void aHugeSysfsOrProcFileIsBadInputNamingIt() throws IOException {
        Path sys = dir.resolve("sys");
        sparse(sys.resolve("devices/system/cpu/possible"), 3L << 30);
        NumaspreadException e = assertThrows(NumaspreadException.class, () -> SysfsTree.at(sys));
        assertEquals(NumaspreadException.Kind.BAD_INPUT, e.kind());
        assertTrue(
                e.getMessage().contains(sys.resolve("devices/system/cpu/possible") + ": larger than "), e.getMessage());

        Path proc = dir.resolve("proc");
        sparse(proc.resolve("irq/50/smp_affinity_list"), 3L << 30);
        IOException tooLarge = assertThrows(
                IOException.class, () -> KernelFiles.DIRECT.read(proc.resolve("irq/50/smp_affinity_list")));
        assertTrue(tooLarge.getMessage().startsWith("larger than"), tooLarge.getMessage());

        Files.createSymbolicLink(proc.resolve("interrupts"), Path.of("/dev/zero"));
        NumaspreadException interrupts =
                assertThrows(NumaspreadException.class, () -> InterruptTable.read(new KernelPaths(proc, sys)));
        assertTrue(interrupts.getMessage().contains("not a regular file"), interrupts.getMessage());
    }
}
