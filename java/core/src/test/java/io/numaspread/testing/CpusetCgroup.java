// SPDX-License-Identifier: Apache-2.0
package io.numaspread.testing;

import io.numaspread.CpuSet;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A real cpuset cgroup (v1 or v2, whichever this kernel mounts) holding one process, as a container holds its
 * processes: they may run only on {@code cpus}. Needs root, as the tests do.
 */
public final class CpusetCgroup implements AutoCloseable {
    private static final Path V1 = Path.of("/sys/fs/cgroup/cpuset");
    private static final Path V2 = Path.of("/sys/fs/cgroup");

    private final Path dir;
    private final ProcessHandle process;

    private CpusetCgroup(Path dir, ProcessHandle process) {
        this.dir = dir;
        this.process = process;
    }

    /** A new child process (sleep) in a new cpuset cgroup of {@code cpus}. */
    public static CpusetCgroup withChild(CpuSet cpus) throws IOException {
        return holding(new ProcessBuilder("sleep", "60").start().toHandle(), cpus);
    }

    /**
     * Moves {@code process}, all its threads, into a new cpuset cgroup of {@code cpus}; the kernel narrows every
     * thread's affinity to them.
     */
    public static CpusetCgroup holding(ProcessHandle process, CpuSet cpus) throws IOException {
        String name = "numaspread-test-" + ProcessHandle.current().pid() + "-" + process.pid();
        Path dir;
        if (Files.exists(V1.resolve("cpuset.cpus"))) {
            dir = Files.createDirectories(V1.resolve(name));
            Files.writeString(
                    dir.resolve("cpuset.mems"),
                    Files.readString(V1.resolve("cpuset.mems")).strip());
        } else {
            if (!Files.readString(V2.resolve("cgroup.subtree_control")).contains("cpuset")) {
                Files.writeString(V2.resolve("cgroup.subtree_control"), "+cpuset");
            }
            dir = Files.createDirectories(V2.resolve(name));
        }
        Files.writeString(dir.resolve("cpuset.cpus"), cpus.toString());
        Files.writeString(dir.resolve("cgroup.procs"), Long.toString(process.pid()));
        return new CpusetCgroup(dir, process);
    }

    public int pid() {
        return (int) process.pid();
    }

    /** Kills the process if it still runs, and removes the cgroup. */
    @Override
    public void close() throws IOException {
        process.destroyForcibly();
        try {
            process.onExit().get(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            throw new IOException("process " + process.pid() + " did not end", e);
        }
        Files.delete(dir);
    }
}
