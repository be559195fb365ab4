// SPDX-License-Identifier: Apache-2.0
package io.numaspread.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.numaspread.plan.PlanRequest;
import io.numaspread.plan.Planner;
import io.numaspread.testing.MachineShape;
import io.numaspread.testing.SysfsFixture;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link PlanDifferential} in a JVM with the agent, on this machine's library: the library's node=N,count=K plan
 * is core's {@link Planner}'s on every fixture topology and this host's /sys. (The arm64 guest runs the same
 * program on the aarch64 library: scripts/vm-checks-agent-plan.)
 */
@Timeout(value = 600, unit = TimeUnit.SECONDS)
class PlanDifferentialTest {
    private static final String ONLINE = "devices/system/cpu/online";

    @Test
    void theLibrarysPlanIsTheJavaPlannersOnEveryFixtureTopology(@TempDir Path temp) throws Exception {
        ForkedJvm.Result result = ForkedJvm.run(ForkedJvm.command(
                ForkedJvm.JDK_25,
                "threads=none-*,node=0,count=1",
                List.of(codeSource(Planner.class), codeSource(SysfsFixture.class)),
                PlanDifferential.class,
                temp.toString()));
        assertEquals(0, result.exitCode(), result.describe());
        String summary = result.stdout().get(result.stdout().size() - 1);
        assertTrue(
                summary.matches("plan-differential \\S+: \\d+ queries, \\d+ planned in Java, 0 differ"),
                result.describe());
    }

    /**
     * The library's bound on count is the Java planner's, {@link PlanRequest#MAX_QUEUES}, which AgentOptions
     * enforces: it plans that many and declines one more (and Integer.MAX_VALUE) before allocating anything.
     */
    @Test
    void theLibraryPlansUpToTheJavaPlannersBoundAndNoMore(@TempDir Path temp) throws Exception {
        Path root = SysfsFixture.write(MachineShape.singleNodeVm(), temp.resolve("vm"));
        int bound = PlanRequest.MAX_QUEUES;
        ForkedJvm.Result result = ForkedJvm.run(ForkedJvm.command(
                ForkedJvm.JDK_25,
                "threads=none-*,node=0,count=1",
                List.of(),
                LibraryPlanProbe.class,
                "1," + bound + "," + (bound + 1) + "," + Integer.MAX_VALUE,
                root.toString()));
        assertEquals(
                List.of(
                        root + " 1: planned",
                        root + " " + bound + ": planned",
                        root + " " + (bound + 1) + ": declined",
                        root + " " + Integer.MAX_VALUE + ": declined"),
                result.stdout(),
                result.describe());
    }

    /**
     * The library declines, at once, a tree whose files it must not read as they are: cpu/online with a NUL inside
     * (Java refuses "0-1\0junk"; the C string used to end at the NUL and read "0-1"), a symlink in its place, a
     * FIFO for a thread_siblings_list (its open does not wait for a writer), or a cpu/online past 1 MiB; Java then
     * plans and names the culprit. The same tree unspoiled is planned.
     */
    @Test
    void theLibraryDeclinesATreeWithANulASymlinkAFifoOrAHugeFile(@TempDir Path temp) throws Exception {
        MachineShape shape = MachineShape.singleNodeVm();
        Path whole = SysfsFixture.write(shape, temp.resolve("whole"));
        Path nul = SysfsFixture.write(shape, temp.resolve("nul"));
        SysfsFixture.writeBytes(nul.resolve(ONLINE), (shape.online() + "\0junk\n").getBytes(StandardCharsets.US_ASCII));
        Path symlink = SysfsFixture.write(shape, temp.resolve("symlink"));
        Path real = Files.move(symlink.resolve(ONLINE), symlink.resolve(ONLINE + ".real"));
        Files.createSymbolicLink(symlink.resolve(ONLINE), real);
        Path fifo = SysfsFixture.write(shape, temp.resolve("fifo"));
        Path siblings = fifo.resolve("devices/system/cpu/cpu0/topology/thread_siblings_list");
        Files.delete(siblings);
        assertEquals(
                0, new ProcessBuilder("mkfifo", siblings.toString()).start().waitFor());
        Path huge = SysfsFixture.write(shape, temp.resolve("huge"));
        SysfsFixture.writeBytes(
                huge.resolve(ONLINE),
                (shape.online() + " ".repeat(1 << 20) + "\n").getBytes(StandardCharsets.US_ASCII));
        ForkedJvm.Result result = ForkedJvm.runWithin(
                ForkedJvm.command(
                        ForkedJvm.JDK_25,
                        "threads=none-*,node=0,count=1",
                        List.of(),
                        LibraryPlanProbe.class,
                        "1",
                        whole.toString(),
                        nul.toString(),
                        symlink.toString(),
                        fifo.toString(),
                        huge.toString()),
                60);
        assertEquals(
                List.of(
                        whole + " 1: planned",
                        nul + " 1: declined",
                        symlink + " 1: declined",
                        fifo + " 1: declined",
                        huge + " 1: declined"),
                result.stdout(),
                result.describe());
    }

    /** The directory or jar a class was loaded from: core's classes and its test classes, for the fork. */
    private static Path codeSource(Class<?> type) throws URISyntaxException {
        return Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI());
    }
}
