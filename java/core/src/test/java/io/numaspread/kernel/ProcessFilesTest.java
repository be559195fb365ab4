// SPDX-License-Identifier: Apache-2.0
package io.numaspread.kernel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The process table, on the live /proc and on a stand-in tree where processes vanish mid-look. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class ProcessFilesTest {
    @TempDir
    Path dir;

    @Test
    void listsThisProcessAndReadsItsCommandLineWithItsSeparators() throws IOException {
        int self = (int) ProcessHandle.current().pid();
        List<Integer> pids = ProcessFiles.pids(Path.of("/proc"));
        assertTrue(pids.contains(self), "own pid " + self + " in " + pids);
        assertTrue(pids.contains(1));
        assertEquals(pids.stream().sorted().toList(), pids);
        String cmdline = ProcessFiles.read(Path.of("/proc"), self, "cmdline");
        assertTrue(cmdline.contains("java") && cmdline.indexOf('\0') > 0, cmdline);
    }

    @Test
    void keepsOnlyNumericEntriesInNumericOrder() throws IOException {
        for (String name : List.of("100", "9", "self", "net", "12a", "01234567890")) {
            Files.createDirectories(dir.resolve(name));
        }
        assertEquals(List.of(9, 100), ProcessFiles.pids(dir));
    }

    @Test
    void aProcessThatExitedOrAnUnreadableFileReadsAsEmpty() throws IOException {
        Files.createDirectories(dir.resolve("7"));
        Files.writeString(dir.resolve("7/comm"), "irqbalance\n");
        Files.createDirectories(dir.resolve("8/environ")); // not a regular file
        assertEquals("irqbalance", ProcessFiles.read(dir, 7, "comm"));
        assertEquals("", ProcessFiles.read(dir, 7, "cmdline"));
        assertEquals("", ProcessFiles.read(dir, 8, "environ"));
        assertEquals("", ProcessFiles.read(dir, 9, "comm"));
    }
}
