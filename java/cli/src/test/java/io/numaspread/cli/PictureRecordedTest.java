// SPDX-License-Identifier: Apache-2.0
package io.numaspread.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import io.numaspread.CpuSet;
import io.numaspread.testing.MachineShape;
import io.numaspread.testing.NicFixture;
import io.numaspread.testing.SysfsFixture;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every kind of picture, byte for byte as recorded in {@code src/test/resources/pictures}: the machines of
 * {@link PictureTest} and more (offline, isolated and nohz_full CPUs, no package, no NUMA, Intel numbering,
 * interleaved nodes), several origins, folded chips, a NIC's vectors, and threads with and without a NIC.
 * {@link PictureTest} checks that a picture is right; this one that a change to the drawing code changes no
 * picture. A picture that differs is written to {@code target/pictures-actual} to compare, or to record when the
 * change is meant.
 */
@Timeout(120)
class PictureRecordedTest {
    private static final Path ACTUAL = Path.of("target/pictures-actual");

    @TempDir
    Path sys;

    @TempDir
    Path proc;

    @TempDir
    Path out;

    static Stream<Arguments> plans() {
        MachineShape interleaved = PictureShapes.sockets("interleaved", 1, 4, 2, 2, new int[][] {
            {10, 20, 11, 20}, {20, 10, 20, 11}, {11, 20, 10, 20}, {20, 11, 20, 10}
        });
        return Stream.of(
                Arguments.of("mana", PictureShapes.mana(), List.of("--node", "1", "--count", "4")),
                Arguments.of(
                        "kunpeng-per-cpu",
                        PictureShapes.kunpeng(),
                        List.of("--node", "2", "--count", "8", "--per-cpu")),
                Arguments.of(
                        "mana-cpuless-node",
                        PictureShapes.mana().withCpulessNode(2, new int[] {17, 28, 10}),
                        List.of("--node", "2", "--count", "4")),
                Arguments.of("2x4", PictureShapes.twoByFour(), List.of("--node", "5", "--count", "12")),
                Arguments.of(
                        "2x4-two-origins",
                        PictureShapes.twoByFour(),
                        List.of("--node", "1,6", "--count", "6", "--exclude", "0")),
                Arguments.of("512", PictureShapes.cpus512(), List.of("--node", "2", "--count", "64")),
                Arguments.of(
                        "kunpeng920-folded",
                        MachineShape.kunpeng920(),
                        List.of("--node", "2", "--count", "100", "--per-cpu")),
                Arguments.of("mana-folded", PictureShapes.mana(), List.of("--node", "0", "--count", "80", "--per-cpu")),
                Arguments.of(
                        "mana-offline-isolated",
                        PictureShapes.mana().withOffline(CpuSet.of(7)).withIsolation(CpuSet.of(1), CpuSet.of(2)),
                        List.of("--node", "0", "--count", "2")),
                Arguments.of("arm-without-package", MachineShape.armWithoutPackage(), List.of("--count", "4")),
                Arguments.of("no-numa-kernel", MachineShape.noNumaKernel(), List.of("--count", "2")),
                Arguments.of("intel-numbering", MachineShape.intelNumbering(), List.of("--node", "0", "--count", "4")),
                Arguments.of("interleaved", interleaved, List.of("--node", "0", "--count", "2")));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("plans")
    void planPictureIsTheRecordedOne(String name, MachineShape shape, List<String> planArgs) throws IOException {
        SysfsFixture.write(shape, sys);
        assertRecorded(name, draw("plan", planArgs));
    }

    @Test
    void irqsPictureIsTheRecordedOne() throws IOException {
        NicFixture.i40eOnMana(sys, proc);
        assertRecorded("irqs-i40e-mana", draw("irqs", List.of("--siblings", "--nic", "eth0")));
    }

    @Test
    void irqsPictureWithThreadsIsTheRecordedOne() throws IOException {
        NicFixture.i40eOnMana(sys, proc);
        threads();
        assertRecorded(
                "irqs-i40e-mana-threads",
                draw("irqs", List.of("--nic", "eth0", "--threads", "4242", "--thread-names", "epoll*|a <b*")));
    }

    @Test
    void planPictureWithThreadsIsTheRecordedOne() throws IOException {
        SysfsFixture.write(PictureShapes.mana(), sys);
        threads();
        assertRecorded(
                "mana-threads",
                draw("plan", List.of("--node", "1", "--count", "2", "--threads", "4242", "--thread-names", "*")));
    }

    @Test
    void planPictureWithNoMatchingThreadIsTheRecordedOne() throws IOException {
        SysfsFixture.write(PictureShapes.mana(), sys);
        threads();
        assertRecorded(
                "mana-no-threads",
                draw("plan", List.of("--node", "0", "--count", "2", "--threads", "4242", "--thread-names", "none*")));
    }

    /** Threads of process 4242, two on one CPU, one whose name needs escaping in SVG. */
    private void threads() {
        ProcTasks.write(proc, 4242, 4242, "java", 0, "0-7");
        ProcTasks.write(proc, 4242, 4250, "epollEventLoopG", 5, "4-5");
        ProcTasks.write(proc, 4242, 4251, "epollEventLoopG", 5, "4-5");
        ProcTasks.write(proc, 4242, 4260, "a <b> & \"c\"", 3, "0-7");
    }

    private String draw(String command, List<String> args) throws IOException {
        Path svg = out.resolve("p.svg");
        List<String> all = new ArrayList<>(List.of(
                command, "--sysfs-root", sys.toString(), "--proc-root", proc.toString(), "--svg", svg.toString()));
        all.addAll(args);
        CliRun run = CliRun.of(all.toArray(String[]::new));
        assertEquals(0, run.exitCode(), run.err());
        return Files.readString(svg);
    }

    private static void assertRecorded(String name, String svg) throws IOException {
        String recorded;
        try (InputStream in = PictureRecordedTest.class.getResourceAsStream("/pictures/" + name + ".svg")) {
            recorded = in == null ? null : new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        if (svg.equals(recorded)) {
            return;
        }
        Files.createDirectories(ACTUAL);
        Path actual = ACTUAL.resolve(name + ".svg");
        Files.writeString(actual, svg);
        if (recorded == null) {
            fail("no recorded picture " + name + ".svg; this one is " + actual.toAbsolutePath());
        }
        String[] expectedLines = recorded.split("\n", -1);
        String[] actualLines = svg.split("\n", -1);
        for (int i = 0; i < Math.min(expectedLines.length, actualLines.length); i++) {
            assertEquals(expectedLines[i], actualLines[i], name + ".svg line " + (i + 1) + "; whole: " + actual);
        }
        assertEquals(expectedLines.length, actualLines.length, name + ".svg's lines; whole: " + actual);
    }
}
