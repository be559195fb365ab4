// SPDX-License-Identifier: Apache-2.0
package io.numaspread.irq;

import io.numaspread.NumaspreadException;
import io.numaspread.kernel.Errno;
import io.numaspread.kernel.LockHolder;
import io.numaspread.kernel.TrustedDirectory;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The state files' locks ({@link StateFile#lock}, {@link StateFile#hold}): {@code .NAME.lock} beside each state
 * file, locked with {@link FileChannel#tryLock}, a lock the kernel drops with its process however it ends; and the
 * lock files this process holds for as long as a watch keeps a NIC, through which its own applies and restores of
 * that file go instead of refusing themselves.
 */
final class StateFileLocks {
    /** The lock files this process {@link StateFile#hold}s, by absolute path: its own uses of them go through. */
    private static final Set<Path> HELD = ConcurrentHashMap.newKeySet();

    private StateFileLocks() {}

    /** As {@link StateFile#hold}. */
    static StateFile.Lock hold(Path file) {
        StateFile.checkPath(file);
        Path lockFile = lockFile(file);
        if (HELD.contains(lockFile)) {
            throw new NumaspreadException(
                    NumaspreadException.Kind.REFUSED,
                    "this process already keeps " + file + " (it holds " + lockFile + "); nothing was changed");
        }
        StateFile.Lock lock = lock(file);
        HELD.add(lockFile);
        return () -> {
            HELD.remove(lockFile);
            lock.close();
        };
    }

    private static String lockName(Path file) {
        return "." + file.getFileName() + ".lock";
    }

    private static Path lockFile(Path file) {
        return file.toAbsolutePath().resolveSibling(lockName(file));
    }

    /** As {@link StateFile#lock}. */
    static StateFile.Lock lock(Path file) {
        StateFile.checkPath(file);
        String lockName = lockName(file);
        Path lockFile = lockFile(file);
        if (HELD.contains(lockFile)) {
            return () -> {};
        }
        FileChannel channel = null;
        try (TrustedDirectory dir = StateFile.directory(file, true).orElseThrow()) {
            StateFile.checkRegular(dir, file);
            Optional<BasicFileAttributes> attributes = dir.attributes(lockName);
            if (attributes.isPresent() && !attributes.get().isRegularFile()) {
                throw new NumaspreadException(
                        NumaspreadException.Kind.REFUSED,
                        "lock file " + lockFile + " is " + StateFile.describe(attributes.get())
                                + ", not a regular file; nothing was changed");
            }
            channel = dir.openPrivate(lockName);
            FileLock lock = channel.tryLock();
            if (lock == null) {
                channel.close();
                throw new NumaspreadException(
                        NumaspreadException.Kind.REFUSED,
                        "another numaspread apply, restore or watch of " + file + " is running (" + holder(lockFile)
                                + " holds " + lockFile + "); nothing was changed");
            }
            FileChannel held = channel;
            return () -> closeQuietly(held);
        } catch (IOException | OverlappingFileLockException e) {
            closeQuietly(channel);
            throw new NumaspreadException(
                    NumaspreadException.Kind.REFUSED,
                    "cannot lock " + lockFile + ": "
                            + (e instanceof IOException io ? Errno.describe(io) : "held by this process")
                            + "; nothing was changed",
                    e);
        }
    }

    /** Who holds {@code lockFile}, in words: "pid 4242". */
    private static String holder(Path lockFile) {
        OptionalLong pid = LockHolder.pid(lockFile);
        return pid.isPresent() ? "pid " + pid.getAsLong() : "a process whose PID /proc/locks does not list";
    }

    private static void closeQuietly(FileChannel channel) {
        if (channel != null) {
            try {
                channel.close();
            } catch (IOException e) {
                // The lock goes with the process anyway.
            }
        }
    }
}
