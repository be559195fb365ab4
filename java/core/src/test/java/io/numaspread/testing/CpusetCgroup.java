package io.numaspread.pin;

import io.numaspread.CpuSet;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * A real cpuset cgroup (v1 or v2, whichever this kernel mounts) holding one child process, as a container
 * holds its processes: they may run only on {@code cpus}. Needs root, as the tests do.
 */
final class CpusetCgroup implements AutoCloseable {
    private static final Path V1 = Path.of("/sys/fs/cgroup/cpuset");
    private static final Path V2 = Path.of("/sys/fs/cgroup");

    private final Path dir;
    private final Process child;

    private CpusetCgroup(Path dir, Process child) {
        this.dir = dir;
        this.child = child;
    }

    static CpusetCgroup withChild(CpuSet cpus) throws IOException {
        String name = "numaspread-test-" + ProcessHandle.current().pid();
        Path dir;
        if (Files.exists(V1.resolve("cpuset.cpus"))) {
            dir = Files.createDirectories(V1.resolve(name));
            Files.writeString(dir.resolve("cpuset.mems"), Files.readString(V1.resolve("cpuset.mems")).strip());
        } else {
            if (!Files.readString(V2.resolve("cgroup.subtree_control")).contains("cpuset")) {
                Files.writeString(V2.resolve("cgroup.subtree_control"), "+cpuset");
            }
            dir = Files.createDirectories(V2.resolve(name));
        }
        Files.writeString(dir.resolve("cpuset.cpus"), cpus.toString());
        Process child = new ProcessBuilder("sleep", "60").start();
        Files.writeString(dir.resolve("cgroup.procs"), Long.toString(child.pid()));
        return new CpusetCgroup(dir, child);
    }

    int pid() {
        return (int) child.pid();
    }

    @Override
    public void close() throws IOException {
        child.destroyForcibly();
        try {
            child.waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        Files.delete(dir);
    }
}
