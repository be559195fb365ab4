// SPDX-License-Identifier: Apache-2.0
package io.numaspread.nativeaccess;

import io.numaspread.CpuSet;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.stream.Stream;

/** What the kernel says about this host and the calling thread, read from /sys and /proc without any backend. */
final class LiveHost {
    private static final Path NODES = Path.of("/sys/devices/system/node");

    private LiveHost() {}

    static CpuSet possibleCpus() {
        return CpuSet.parse(read(Path.of("/sys/devices/system/cpu/possible")));
    }

    static CpuSet onlineNodes() {
        return CpuSet.parse(read(NODES.resolve("online")));
    }

    static CpuSet nodeCpus(int node) {
        return CpuSet.parse(read(NODES.resolve("node" + node).resolve("cpulist")));
    }

    /** The node's row of {@code distance}, one entry per online node. */
    static List<Integer> distances(int node) {
        return List.of(read(NODES.resolve("node" + node).resolve("distance")).split("\\s+")).stream()
                .map(Integer::valueOf)
                .toList();
    }

    /** {@code Cpus_allowed_list} of the calling thread. */
    static CpuSet threadSelfAllowedCpus() {
        return allowedCpus(Path.of("/proc/thread-self/status"));
    }

    static CpuSet allowedCpus(int tid) {
        return allowedCpus(Path.of("/proc", Integer.toString(tid), "status"));
    }

    private static CpuSet allowedCpus(Path status) {
        return read(status)
                .lines()
                .filter(line -> line.startsWith("Cpus_allowed_list:"))
                .map(line -> CpuSet.parse(line.substring("Cpus_allowed_list:".length())))
                .findFirst()
                .orElseThrow(() -> new AssertionError(status + " has no Cpus_allowed_list"));
    }

    /** The calling thread's id, from the {@code /proc/thread-self -> PID/task/TID} link. */
    static int threadSelfTid() {
        try {
            return Integer.parseInt(Files.readSymbolicLink(Path.of("/proc/thread-self"))
                    .getFileName()
                    .toString());
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    /** How many descriptors the process has open: the entries of /proc/self/fd. */
    static int openDescriptors() {
        try (Stream<Path> descriptors = Files.list(Path.of("/proc/self/fd"))) {
            return Math.toIntExact(descriptors.count());
        } catch (IOException e) {
            throw new AssertionError("cannot list /proc/self/fd", e);
        }
    }

    /**
     * A thread id that is certainly dead: the pid of a child process that has exited and been reaped. (A
     * joined Java thread is not enough: its kernel task may still be exiting when join returns.)
     */
    static int deadTid() throws IOException, InterruptedException {
        Process child = new ProcessBuilder("true").start();
        if (child.waitFor() != 0) {
            throw new AssertionError("true exited with " + child.exitValue());
        }
        return Math.toIntExact(child.pid());
    }

    /** Runs {@code work} on a new platform thread, so that affinity changes die with it. */
    static <T> T onFreshThread(Callable<T> work) throws Exception {
        FutureTask<T> task = new FutureTask<>(work);
        Thread thread = new Thread(task, "fresh");
        thread.start();
        try {
            return task.get();
        } catch (ExecutionException e) {
            if (e.getCause() instanceof Exception cause) {
                throw cause;
            }
            if (e.getCause() instanceof Error cause) {
                throw cause;
            }
            throw e;
        } finally {
            thread.join();
        }
    }

    private static String read(Path file) {
        try {
            return Files.readString(file).strip();
        } catch (IOException e) {
            throw new AssertionError("cannot read " + file, e);
        }
    }
}
