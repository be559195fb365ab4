// SPDX-License-Identifier: Apache-2.0
package io.numaspread.cli;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * What an unprivileged user can try against a lock file, run in a JVM of its own as that user ({@link ForkedCli}):
 * open {@code FILE} read-only and hold a shared {@code fcntl} lock on it, which is all an exclusive lock needs to
 * be refused. It prints one line, {@code held} or {@code cannot open: REASON} or {@code cannot lock: REASON}, and
 * keeps what it holds until its standard input closes.
 */
final class SharedLockHolder {
    private SharedLockHolder() {}

    /** {@code FILE}. */
    public static void main(String[] args) throws IOException {
        FileChannel channel;
        try {
            channel = FileChannel.open(Path.of(args[0]), StandardOpenOption.READ);
        } catch (IOException e) {
            System.out.println("cannot open: " + e);
            return;
        }
        try (channel) {
            FileLock lock = channel.tryLock(0, Long.MAX_VALUE, true);
            System.out.println(lock == null ? "cannot lock: held by another process" : "held");
            System.out.flush();
            while (System.in.read() >= 0) {
                // Holds the lock until the test closes this process's standard input.
            }
        }
    }
}
