// SPDX-License-Identifier: Apache-2.0
package io.numaspread.kernel;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.List;
import java.util.OptionalLong;
import java.util.StringTokenizer;

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
        return snapshot().pid(file);
    }

    /** The locks listed now, read once, for asking about many files (a registry's). */
    public static Snapshot snapshot() {
        try {
            return new Snapshot(Files.readAllLines(PROC_LOCKS));
        } catch (IOException e) {
            return new Snapshot(List.of());
        }
    }

    /** The lines of {@code /proc/locks} at one moment. */
    public static final class Snapshot {
        private final List<String> locks;

        private Snapshot(List<String> locks) {
            this.locks = locks;
        }

        /** The PID holding a POSIX lock on {@code file}; empty when none is listed or the file cannot be read. */
        public OptionalLong pid(Path file) {
            try {
                long device = (Long) Files.getAttribute(file, "unix:dev", LinkOption.NOFOLLOW_LINKS);
                long inode = (Long) Files.getAttribute(file, "unix:ino", LinkOption.NOFOLLOW_LINKS);
                return LockHolder.pid(locks, major(device), minor(device), inode);
            } catch (IOException | UnsupportedOperationException e) {
                return OptionalLong.empty();
            }
        }
    }

    /**
     * The holder in {@code locks} (the lines of /proc/locks) of a POSIX lock on the file MAJOR:MINOR:INODE. A
     * tokenizer, not a regular expression: the agent asks before {@code main}, on a cold JVM.
     */
    static OptionalLong pid(List<String> locks, long major, long minor, long inode) {
        for (String line : locks) {
            String[] fields = fields(line, 6);
            // "N: POSIX ADVISORY WRITE PID MAJ:MIN:INODE START END"; a waiter's line has "->" after "N:".
            if (fields == null || !fields[1].equals("POSIX")) {
                continue;
            }
            String[] file = fields(fields[5].replace(':', ' '), 3);
            try {
                if (file != null
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

    /** The first {@code count} whitespace-separated fields of {@code line}; null when it has fewer. */
    private static String[] fields(String line, int count) {
        StringTokenizer tokens = new StringTokenizer(line);
        String[] fields = new String[count];
        for (int i = 0; i < count; i++) {
            if (!tokens.hasMoreTokens()) {
                return null;
            }
            fields[i] = tokens.nextToken();
        }
        return fields;
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
