// SPDX-License-Identifier: Apache-2.0
package io.numaspread.netty;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.numaspread.CpuSet;
import io.numaspread.lease.CpuLeases;
import io.numaspread.lease.HeldCpu;
import io.numaspread.pin.ThreadPinner;
import io.numaspread.plan.SpreadPlan;
import io.numaspread.testing.NeedsSecondCpu;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Several JVMs on one host, each with a group of one loop from node 0, as the kernel shows their loop threads
 * ({@code /proc/PID/task/TID/status}): apart while a free CPU remains, and a killed JVM's CPU taken by the next.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
@NeedsSecondCpu
class PinnedEventLoopGroupLeasesTest {
    @TempDir
    Path tmp;

    private final List<Process> started = new ArrayList<>();

    @AfterEach
    void stopAll() throws InterruptedException {
        for (Process process : started) {
            process.destroyForcibly();
            process.waitFor(20, TimeUnit.SECONDS);
        }
    }

    private Path leases() {
        return tmp.resolve("cpus");
    }

    /** A JVM with a group of one loop from node 0, started with {@code options}, once its group is built. */
    private Process group(String... options) throws IOException {
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:-UsePerfData",
                "--enable-native-access=ALL-UNNAMED"));
        command.addAll(List.of(options));
        command.addAll(List.of(
                "-cp",
                System.getProperty("surefire.test.class.path", System.getProperty("java.class.path")),
                LeasedGroupProcess.class.getName(),
                "0",
                "1"));
        Path log = tmp.resolve("jvm-" + started.size() + ".log");
        Process process =
                new ProcessBuilder(command).redirectError(log.toFile()).start();
        started.add(process);
        String line =
                new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8)).readLine();
        assertEquals("ready", line, "the group's JVM: " + Files.readString(log));
        return process;
    }

    private Process leasing() throws IOException {
        return group("-D" + PinnedEventLoopGroup.LEASE_DIRECTORY_PROPERTY + "=" + leases());
    }

    /** The CPUs the kernel lets the process's loop threads run on, all of them together. */
    private static CpuSet loopCpus(Process process) throws IOException {
        CpuSet.Builder cpus = CpuSet.builder();
        int loops = 0;
        try (DirectoryStream<Path> tasks =
                Files.newDirectoryStream(Path.of("/proc", Long.toString(process.pid()), "task"))) {
            for (Path task : tasks) {
                if (!Files.readString(task.resolve("comm")).startsWith("lease-io-")) {
                    continue;
                }
                loops++;
                for (String line : Files.readAllLines(task.resolve("status"))) {
                    if (line.startsWith("Cpus_allowed_list:")) {
                        cpus.addAll(CpuSet.parse(line.substring("Cpus_allowed_list:".length())));
                    }
                }
            }
        }
        assertEquals(1, loops, "process " + process.pid() + " has one loop thread");
        return cpus.build();
    }

    @Test
    void twoJvmsTakeDifferentCpusAndAKilledOnesCpuGoesToTheNext() throws Exception {
        Process first = leasing();
        Process second = leasing();
        CpuSet firstCpus = loopCpus(first);
        CpuSet secondCpus = loopCpus(second);
        assertFalse(firstCpus.isEmpty());
        assertFalse(firstCpus.intersects(secondCpus), "first " + firstCpus + ", second " + secondCpus);
        List<Long> holders =
                CpuLeases.in(leases()).held().stream().map(HeldCpu::pid).toList();
        assertTrue(holders.contains(first.pid()) && holders.contains(second.pid()), holders.toString());

        first.destroyForcibly();
        assertTrue(first.waitFor(20, TimeUnit.SECONDS));
        Process third = leasing();
        assertEquals(firstCpus, loopCpus(third), "the killed JVM's CPU is free again");
        assertFalse(CpuLeases.in(leases()).held().stream().anyMatch(cpu -> cpu.pid() == first.pid()));

        // Without leases a JVM plans as if it were alone, onto the CPU the third one holds: what leases prevent.
        Process alone = group(
                "-D" + PinnedEventLoopGroup.LEASES_PROPERTY + "=off",
                "-D" + PinnedEventLoopGroup.LEASE_DIRECTORY_PROPERTY + "=" + leases());
        assertEquals(firstCpus, loopCpus(alone));
    }

    @Test
    void aGroupsLeasesGoWhenItShutsDown() throws Exception {
        PinnedEventLoopGroup group = PinnedEventLoopGroup.builder(Transport.NIO.ioHandlerFactory())
                .node(0, 1)
                .steering(false)
                .leaseDirectory(leases())
                .build();
        // Alone on the host, the group gets the CPUs it gets without leases.
        SpreadPlan alone = PinnedEventLoopGroup.builder(Transport.NIO.ioHandlerFactory())
                .node(0, 1)
                .spreadPlan(ThreadPinner.live());
        assertEquals(alone.get(0).cpus(), group.loops().get(0).cpus());
        CpuLeases registry = CpuLeases.in(leases());
        List<HeldCpu> held = registry.held();
        assertEquals(
                List.of(group.loops().get(0).cpus().toArray()[0]),
                held.stream().map(HeldCpu::cpu).toList());
        assertEquals(
                List.of("netty:numaspread-loop-0"),
                held.get(0).record().orElseThrow().pins());
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        // The termination future wakes its waiters before it runs its listeners, one of which gives the leases back.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!registry.held().isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertEquals(List.of(), registry.held());
    }
}
