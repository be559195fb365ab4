// SPDX-License-Identifier: Apache-2.0
package io.numaspread.lease;

import io.numaspread.kernel.TrustedDirectory;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A CPU's lock file ({@code cpu-N.lock}, or a further slot {@code cpu-N.S.lock}) that this JVM holds, and the pins
 * it holds it for. {@link CpuLeases} keeps one per registry and CPU, under its lock: the file stays open, and so
 * locked, for as long as a pin of this JVM is on the CPU, and closing it is what unlocks it.
 */
final class OwnSlot {
    /** More slots than any host has processes on one CPU: a bound, so that a fault cannot loop forever. */
    private static final int MAX_SLOTS = 4096;

    final String name;
    final List<String> pins = new ArrayList<>();
    private final Path file;
    private final FileChannel channel;

    private OwnSlot(String name, Path file, FileChannel channel) {
        this.name = name;
        this.file = file;
        this.channel = channel;
    }

    /** Locks the first slot of {@code cpu} that no process holds: {@code cpu-N.lock}, then {@code cpu-N.2.lock}. */
    static OwnSlot lockFirstFree(TrustedDirectory dir, int cpu) throws IOException {
        for (int slot = 1; slot <= MAX_SLOTS; slot++) {
            String name = slot == 1 ? "cpu-" + cpu + ".lock" : "cpu-" + cpu + "." + slot + ".lock";
            CpuLeases.requireRegular(dir, name);
            FileChannel channel = dir.openPrivate(name);
            FileLock lock;
            try {
                lock = channel.tryLock();
            } catch (IOException | RuntimeException e) {
                channel.close();
                throw e;
            }
            if (lock != null) {
                return new OwnSlot(name, dir.path().resolve(name), channel);
            }
            channel.close();
        }
        throw new IOException("all " + MAX_SLOTS + " slots of CPU " + cpu + " are held");
    }

    LeaseRecord record() {
        return ThisProcess.record(pins);
    }

    /** Writes the record in place: the lock is on this file's inode, which a rename would replace. */
    void write() throws IOException {
        ByteBuffer bytes = ByteBuffer.wrap(record().encode());
        channel.truncate(0);
        long position = 0;
        while (bytes.hasRemaining()) {
            position += channel.write(bytes, position);
        }
    }

    /** Empties the record and closes the file, which unlocks it. */
    void unlock() {
        try {
            channel.truncate(0);
        } catch (IOException e) {
            // An unlocked record is stale whatever it says.
        }
        CpuLeases.closeQuietly(channel);
    }

    @Override
    public String toString() {
        return file.toString();
    }
}
