// SPDX-License-Identifier: Apache-2.0
package io.numaspread.watch;

import io.numaspread.CpuSet;
import io.numaspread.NumaspreadException;
import java.io.IOException;
import java.nio.file.ClosedWatchServiceException;
import java.nio.file.Path;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchEvent;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * The kubelet's CPU manager checkpoint as events: its directory watched through inotify (the JDK's
 * {@link WatchService}), so that a pod given exclusive CPUs is planned around at once, not at the next drift check.
 * The kubelet writes the checkpoint as a new file renamed over the old one, so the directory is watched, not the
 * file (a watch on the file would stay on the old inode). An event is posted only when the file's exclusive CPUs
 * differ from those it held before: the kubelet rewrites it unchanged, and a check after each rewrite would find
 * nothing to do. A file that cannot be read is left to the drift check, which reads it too and says why.
 */
public final class KubeletCpuStateEvents implements AutoCloseable {
    private final WatchService service;
    private final Thread reader;

    private KubeletCpuStateEvents(WatchService service, Thread reader) {
        this.service = service;
        this.reader = reader;
    }

    /**
     * Starts watching {@code file}'s directory.
     *
     * @param known the exclusive CPUs the file held when it was last read (at watch's start)
     * @param sink where a change goes, as a {@link KernelEvent} that concerns every NIC
     * @return empty, said on {@code log}, when the directory cannot be watched (it does not exist yet, or inotify's
     *     limits are reached): the drift check then reads the file alone
     */
    public static Optional<KubeletCpuStateEvents> start(
            Path file, CpuSet known, Consumer<KernelEvent> sink, Consumer<String> log) {
        Path directory = file.toAbsolutePath().getParent();
        WatchService service;
        try {
            service = directory.getFileSystem().newWatchService();
        } catch (IOException e) {
            log.accept("events: cannot watch the kubelet's CPU state " + file + ": " + e.getMessage()
                    + "; it is read at every drift check");
            return Optional.empty();
        }
        try {
            directory.register(
                    service,
                    StandardWatchEventKinds.ENTRY_CREATE,
                    StandardWatchEventKinds.ENTRY_MODIFY,
                    StandardWatchEventKinds.ENTRY_DELETE);
        } catch (IOException e) {
            closeQuietly(service);
            log.accept("events: cannot watch " + directory + " for the kubelet's CPU state: " + e
                    + "; it is read at every drift check");
            return Optional.empty();
        }
        Path name = file.getFileName();
        Thread reader = new Thread(() -> read(service, file, name, known, sink), "numaspread-kubelet");
        reader.setDaemon(true);
        reader.start();
        return Optional.of(new KubeletCpuStateEvents(service, reader));
    }

    private static void read(WatchService service, Path file, Path name, CpuSet known, Consumer<KernelEvent> sink) {
        CpuSet last = known;
        while (true) {
            WatchKey key;
            try {
                key = service.take();
            } catch (InterruptedException | ClosedWatchServiceException e) {
                return;
            }
            boolean touched = false;
            for (WatchEvent<?> event : key.pollEvents()) {
                // An overflow lost the names: the file may be among them.
                touched |= event.kind() == StandardWatchEventKinds.OVERFLOW || name.equals(event.context());
            }
            key.reset();
            if (!touched) {
                continue;
            }
            CpuSet now;
            try {
                now = KubeletCpuState.exclusiveCpus(file);
            } catch (NumaspreadException e) {
                continue;
            }
            if (!now.equals(last)) {
                // The check this event makes says the CPUs, before and after, in its own line.
                sink.accept(new KernelEvent("kubelet", "checkpoint " + name + " changed", Optional.empty()));
                last = now;
            }
        }
    }

    private static void closeQuietly(WatchService service) {
        try {
            service.close();
        } catch (IOException e) {
            // Closing an inotify descriptor fails only when it is closed already: nothing is left open.
        }
    }

    @Override
    public void close() {
        closeQuietly(service);
        try {
            reader.join(2000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
