// SPDX-License-Identifier: Apache-2.0
package io.numaspread.kernel;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.List;
import java.util.OptionalLong;

/**
 * Who holds a file's POSIX lock, as the kernel records it: {@code /proc/locks} lists each lock with its holder's
 * PID and the file's device and inode ({@code 1: POSIX  ADVISORY  WRITE 4242 fe:00:2146389 0 EOF}), as {@code
 * fcntl(F_GETLK)} would give it, without a native call. The lock is the kernel's, so it is always the machine's
 * {@code /proc}, never a {@code --proc-root} tree.
 */
public final class LockHolder {
    private static final Path PROC_LOCKS = Path.of("/proc/locks");

    private LockHolder() {}

    /** The PID holding a POSIX lock on {@code file}; empty when none is listed or the file cannot be read. */
    public static OptionalLong pid(Path file) {
        try {
            long device = (Long) Files.getAttribute(file, "unix:dev", LinkOption.NOFOLLOW_LINKS);
            long inode = (Long) Files.getAttribute(file, "unix:ino", LinkOption.NOFOLLOW_LINKS);
            return pid(Files.readAllLines(PROC_LOCKS), major(device), minor(device), inode);
        } catch (IOException | UnsupportedOperationException e) {
            return OptionalLong.empty();
        }
    }

    /** The holder in {@code locks} (the lines of /proc/locks) of a POSIX lock on the file MAJOR:MINOR:INODE. */
    static OptionalLong pid(List<String> locks, long major, long minor, long inode) {
        for (String line : locks) {
            String[] fields = line.trim().split("\\s+");
            // "N: POSIX ADVISORY WRITE PID MAJ:MIN:INODE START END"; a waiter's line has "->" after "N:".
            if (fields.length < 6 || !fields[1].equals("POSIX")) {
                continue;
            }
            String[] file = fields[5].split(":");
            try {
                if (file.length == 3
                        && Long.parseLong(file[0], 16) == major
                        && Long.parseLong(file[1], 16) == minor
                        && Long.parseLong(file[2]) == inode) {
                    return OptionalLong.of(Long.parseLong(fields[4]));
                }
            } catch (NumberFormatException e) {
                // Not a line of this format: another kernel's, skipped.
            }
        }
        return OptionalLong.empty();
    }

    /** glibc's {@code major()} of an {@code st_dev}. */
    private static long major(long device) {
        return ((device >>> 8) & 0xfff) | ((device >>> 32) & ~0xfffL);
    }

    /** glibc's {@code minor()} of an {@code st_dev}. */
    private static long minor(long device) {
        return (device & 0xff) | ((device >>> 12) & ~0xffL);
    }
}
