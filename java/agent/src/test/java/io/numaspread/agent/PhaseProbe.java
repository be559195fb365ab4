// SPDX-License-Identifier: Apache-2.0
package io.numaspread.agent;

import io.numaspread.CpuSet;
import io.numaspread.pin.AgentOptions;
import io.numaspread.plan.Mode;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * A {@code premain} that takes the agent's {@code premain} path for {@code node=N,count=K} step by step, through
 * the same methods in the same order, and prints to stderr, for each step, "phase NAME WALL_US CPU_US": wall
 * time by System.nanoTime and this thread's CPU time from /proc/thread-self/schedstat (which advances at
 * scheduler ticks and context switches, so a short step often reads 0). scripts/bench-agent runs it with the
 * agent's jar on the class path (where {@link NativeAgent} finds its library) and prints the medians. Its own
 * reading of the clocks loads no class that the JVM had not loaded at start.
 */
public final class PhaseProbe {
    private static long wall;
    private static long cpu;

    private PhaseProbe() {}

    public static void premain(String text) throws IOException {
        mark();
        AgentOptions options = AgentOptions.parse(text);
        phase("options");

        String resource = NativeAgent.resource(System.getProperty("os.arch"));
        byte[] library = NativeAgent.readFromAgentJar(resource);
        phase("library-jar");
        Path directory = NativeAgent.privateDirectory(Path.of(System.getProperty("java.io.tmpdir")));
        Path file = directory.resolve(Path.of(resource).getFileName());
        phase("library-directory");
        try (FileOutputStream out = new FileOutputStream(file.toFile())) {
            out.write(library);
        }
        phase("library-write");
        System.load(file.toString());
        phase("library-load");
        Files.deleteIfExists(file);
        Files.delete(directory);
        phase("library-delete");

        String[] globs = options.globs().toArray(new String[0]);
        for (String glob : globs) {
            if (NativeAgent.globProblem(glob) != null) {
                throw new IllegalArgumentException("malformed glob " + glob);
            }
        }
        int count = options.count().getAsInt();
        long[] masks =
                NativeAgent.planThreads("/sys", null, options.node().getAsInt(), count, options.mode() == Mode.CPU);
        if (masks == null) {
            throw new IllegalStateException("the library declined to plan " + text);
        }
        phase("plan");

        int words = masks.length / count;
        String[] cpulists = new String[count];
        for (int index = 0; index < count; index++) {
            cpulists[index] = CpuSet.fromMask(Arrays.copyOfRange(masks, index * words, (index + 1) * words))
                    .toString();
        }
        phase("cpulists");
        PinReports.start(options.verbose());
        phase("reports");
        NativeAgent.install(
                new String[][] {globs},
                new long[][] {masks},
                new String[][] {cpulists},
                words,
                options.verbose(),
                false);
        phase("install");
    }

    private static void mark() {
        cpu = threadCpuNanos();
        wall = System.nanoTime();
    }

    private static void phase(String name) {
        long wallNow = System.nanoTime();
        long cpuNow = threadCpuNanos();
        System.err.println("phase " + name + " " + (wallNow - wall) / 1000 + " " + (cpuNow - cpu) / 1000);
        mark();
    }

    /** The first field of /proc/thread-self/schedstat: the time this thread has run, in ns. */
    private static long threadCpuNanos() {
        try (FileInputStream in = new FileInputStream("/proc/thread-self/schedstat")) {
            String line = new String(in.readAllBytes(), StandardCharsets.US_ASCII);
            return Long.parseLong(line.substring(0, line.indexOf(' ')));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
