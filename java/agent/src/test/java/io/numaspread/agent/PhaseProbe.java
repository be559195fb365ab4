// SPDX-License-Identifier: Apache-2.0
package io.numaspread.agent;

import io.numaspread.CpuSet;
import io.numaspread.pin.AgentOptions;
import io.numaspread.plan.Mode;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.instrument.Instrumentation;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;
import java.util.jar.JarFile;
import java.util.zip.ZipEntry;

/**
 * A {@code premain} that takes the agent's {@code premain} path for {@code node=N,count=K} step by step, through
 * the same methods in the same order, and prints to stderr, for each step, "phase NAME WALL_US CPU_US": wall
 * time by System.nanoTime and this thread's CPU time from /proc/thread-self/schedstat (which advances at
 * scheduler ticks and context switches, so a short step often reads 0); then "library installed PATH" or
 * "library extracted: WHY". scripts/bench-agent runs it with the agent's classes and library in its jar and
 * prints the medians. Its own reading of the clocks loads no class that the JVM had not loaded at start.
 */
public final class PhaseProbe {
    /**
     * The agent jar whose installed library to check, as the agent would for a jar at that path (the package's
     * jar, say); by default this probe's own jar, which is in no share/numaspread directory, so it extracts.
     */
    static final String AGENT_JAR = "numaspread.phases.agentJar";

    private static long wall;
    private static long cpu;

    private PhaseProbe() {}

    /** The two-argument form, as the agent's own (see {@link NumaspreadAgent#premain}). */
    public static void premain(String text, Instrumentation instrumentation) throws IOException {
        String jarProperty = System.getProperty(AGENT_JAR);
        // The agent's own jar is open by the time its premain runs (its class loader read the agent's classes
        // from it), so the agent's JarFile of it shares that one's central directory. Another jar is opened here,
        // before the clock starts, so that its first open (the central directory of some 300 entries read and
        // checked, 2 to 5 ms) is not counted as a step the agent takes.
        JarFile opened = jarProperty == null ? null : new JarFile(jarProperty, false);
        try {
            steps(text, jarProperty);
        } finally {
            if (opened != null) {
                opened.close();
            }
        }
    }

    private static void steps(String text, String jarProperty) throws IOException {
        mark();
        AgentOptions options = AgentOptions.parse(text);
        phase("options");

        String resource = NativeAgent.resource(System.getProperty("os.arch"));
        Path jarPath = jarProperty == null ? NativeAgent.agentJar().toPath() : Path.of(jarProperty);
        try (JarFile jar = new JarFile(jarPath.toFile(), false)) {
            ZipEntry entry = jar.getEntry(resource);
            phase("library-entry");
            InstalledLibrary installed =
                    InstalledLibrary.beside(jarPath, NativeAgent.platform(System.getProperty("os.arch")), entry);
            phase("library-installed-check");
            if (installed.problem() == null) {
                System.load(installed.path().toString());
                phase("library-load");
                System.err.println("library installed " + installed.path());
            } else {
                extract(jar, entry);
                System.err.println("library extracted: " + installed.describeProblem());
            }
        }

        String[] globs = options.globs().toArray(new String[0]);
        for (String glob : globs) {
            if (NativeAgent.globProblem(glob) != null) {
                throw new IllegalArgumentException("malformed glob " + glob);
            }
        }
        AgentLeases leases = AgentLeases.open(options);
        Map<Integer, Integer> heldByOthers = leases == null ? Map.of() : leases.heldByOthers();
        if (!heldByOthers.isEmpty()) {
            // The agent would plan in Java around them: not the path this probe times.
            throw new IllegalStateException("other processes hold CPU leases " + heldByOthers);
        }
        phase("lease-registry");
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
        if (leases != null) {
            leases.take(globs, cpulists);
            leases.close();
        }
        phase("lease-take");
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

    /** The fallback's steps, as NativeAgent takes them. */
    private static void extract(JarFile jar, ZipEntry entry) throws IOException {
        byte[] library;
        try (InputStream in = jar.getInputStream(entry)) {
            library = in.readAllBytes();
        }
        phase("library-jar");
        Path directory = NativeAgent.privateDirectory(Path.of(System.getProperty("java.io.tmpdir")));
        Path file = directory.resolve(NativeAgent.LIBRARY);
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
