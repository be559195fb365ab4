// SPDX-License-Identifier: Apache-2.0
package io.numaspread.kernel;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The holder of a POSIX lock, from the kernel's /proc/locks: a real lock, and the lines of other kinds. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class LockHolderTest {
    @TempDir
    Path dir;

    @Test
    void aLockThisProcessHoldsNamesThisProcess() throws Exception {
        Path file = Files.createFile(dir.resolve(".eth0.json.lock"));
        assertEquals(OptionalLong.empty(), LockHolder.pid(file));
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE);
                FileLock lock = channel.lock()) {
            assertEquals(OptionalLong.of(ProcessHandle.current().pid()), LockHolder.pid(file), lock.toString());
        }
        assertEquals(OptionalLong.empty(), LockHolder.pid(file));
    }

    @Test
    void onlyAHeldPosixLockOnTheSameDeviceAndInodeCounts() {
        List<String> locks = List.of(
                "1: FLOCK  ADVISORY  WRITE 100 fe:00:42 0 EOF",
                "2: POSIX  ADVISORY  WRITE 200 fe:01:42 0 EOF",
                "3: OFDLCK ADVISORY  WRITE -1 fe:00:42 0 EOF",
                "3: -> POSIX  ADVISORY  WRITE 300 fe:00:42 0 EOF",
                "4: POSIX  ADVISORY  WRITE 400 fe:00:42 0 EOF");
        assertEquals(OptionalLong.of(400), LockHolder.pid(locks, 0xfe, 0, 42));
        assertEquals(OptionalLong.empty(), LockHolder.pid(locks, 0xfe, 0, 43));
    }
}
