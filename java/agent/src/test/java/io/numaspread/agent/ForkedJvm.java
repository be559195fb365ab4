// SPDX-License-Identifier: Apache-2.0
package io.numaspread.agent;

import io.numaspread.lease.CpuLeases;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;

/** A JVM running {@link PinProbe}, forked from a given JDK, with the agent from the built jar. */
final class ForkedJvm implements AutoCloseable {
    static final Path JDK_25 = property("numaspread.test.jdk25");
    static final Path JDK_17 = property("numaspread.test.jdk17");
    static final Path AGENT_JAR = property("numaspread.agent.jar");
    private static final String LEASE_DIRECTORY = "-D" + CpuLeases.DIRECTORY_PROPERTY + "=";
    /** Where the forked JVMs' lease registries go: 0700, under the sticky /tmp, as the registry's walk requires. */
    private static final Path REGISTRIES = registries();

    private final Process process;
    private final BufferedReader stdout;
    private final CompletableFuture<List<String>> stderr;
    private final List<String> outputLines = new ArrayList<>();

    private ForkedJvm(Process process) {
        this.process = process;
        this.stdout = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        BufferedReader errors =
                new BufferedReader(new InputStreamReader(process.getErrorStream(), StandardCharsets.UTF_8));
        // On a thread of its own, not the common pool: on a 2-CPU machine that pool has one thread, which one
        // JVM's stderr (read until that JVM ends) would hold while a second JVM's reader, and any onExit stage,
        // waited behind it.
        this.stderr = new CompletableFuture<>();
        Thread reader = new Thread(
                () -> {
                    try {
                        stderr.complete(errors.lines().toList());
                    } catch (RuntimeException e) {
                        stderr.completeExceptionally(e);
                    }
                },
                "stderr of " + process.pid());
        reader.setDaemon(true);
        reader.start();
    }

    private static Path registries() {
        try {
            Path registries = Files.createTempDirectory("numaspread-agent-leases-");
            Runtime.getRuntime().addShutdownHook(new Thread(() -> deleteTree(registries)));
            return registries;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void deleteTree(Path root) {
        try (Stream<Path> files = Files.walk(root)) {
            files.sorted(Comparator.reverseOrder())
                    .forEach(file -> file.toFile().delete());
        } catch (IOException e) {
            // A temporary directory left behind costs nothing a test could see.
        }
    }

    private static Path property(String name) {
        String value = System.getProperty(name);
        if (value == null) {
            throw new IllegalStateException("system property " + name + " is not set (the agent pom sets it)");
        }
        return Path.of(value);
    }

    /**
     * Starts the probe on {@code jdk}; {@code agentOptions} null means no -javaagent. It gets
     * --enable-native-access, as users of JDK 24 and later are told to pass (JDK 17 warns that it does not know
     * it), and {@link Result#stderr()} leaves the JVM's warnings out.
     */
    static ForkedJvm start(Path jdk, String agentOptions, String... probeArgs) {
        return start(jdk, agentOptions, List.of(), PinProbe.class, probeArgs);
    }

    /** Starts {@code mainClass} from the test classes, with {@code libraries} after them on the class path. */
    static ForkedJvm start(Path jdk, String agentOptions, List<Path> libraries, Class<?> mainClass, String... args) {
        return start(command(jdk, agentOptions, libraries, mainClass, args));
    }

    /** The command that {@link #start(Path, String, List, Class, String...)} runs, for a caller to adjust. */
    static ProcessBuilder command(
            Path jdk, String agentOptions, List<Path> libraries, Class<?> mainClass, String... args) {
        return command(jdk, AGENT_JAR, agentOptions, libraries, mainClass, args);
    }

    /** The command with the agent jar at {@code agentJar} (a copy of the built one elsewhere). */
    static ProcessBuilder command(
            Path jdk, Path agentJar, String agentOptions, List<Path> libraries, Class<?> mainClass, String... args) {
        if (!Files.isExecutable(jdk.resolve("bin/java"))) {
            throw new IllegalStateException("the agent tests need a JDK at " + jdk + " (scripts/test installs it)");
        }
        if (!Files.isRegularFile(agentJar)) {
            throw new IllegalStateException("no agent jar at " + agentJar.toAbsolutePath());
        }
        List<String> command =
                new ArrayList<>(List.of(jdk.resolve("bin/java").toString(), "--enable-native-access=ALL-UNNAMED"));
        // Also without -javaagent: the agent a test attaches reads it.
        command.add(LEASE_DIRECTORY + privateRegistry());
        if (agentOptions != null) {
            command.add("-javaagent:" + agentJar.toAbsolutePath() + "=" + agentOptions);
        }
        StringBuilder classPath = new StringBuilder(testClasses());
        for (Path library : libraries) {
            classPath.append(java.io.File.pathSeparatorChar).append(library);
        }
        command.addAll(List.of("-cp", classPath.toString(), mainClass.getName()));
        command.addAll(List.of(args));
        return new ProcessBuilder(command);
    }

    /**
     * A registry of CPU leases of its own for each forked JVM, whose agent leases as users run it (leases on)
     * without seeing the JVMs that other tests run at the same time; {@link #sharingRegistry} gives several one.
     */
    private static Path privateRegistry() {
        try {
            return Files.createTempDirectory(REGISTRIES, "jvm-").resolve("cpus");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** {@code command} with the lease registry {@code registry} in place of its own. */
    static ProcessBuilder sharingRegistry(ProcessBuilder command, Path registry) {
        List<String> words = new ArrayList<>(command.command());
        words.replaceAll(word -> word.startsWith(LEASE_DIRECTORY) ? LEASE_DIRECTORY + registry : word);
        return command.command(words);
    }

    static ForkedJvm start(ProcessBuilder command) {
        try {
            return new ForkedJvm(command.start());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Runs {@code command} to its end. */
    static Result run(ProcessBuilder command) {
        try (ForkedJvm jvm = start(command)) {
            return jvm.finish();
        }
    }

    /**
     * Runs {@code command} to its end, which must come within {@code seconds}: else the JVM is killed and the test
     * fails at once, for a probe that may block where stdout stays open (an open(2) waiting on a FIFO). The probe
     * must print less than a pipe holds, as it is read only once it has ended.
     */
    static Result runWithin(ProcessBuilder command, long seconds) {
        try (ForkedJvm jvm = start(command)) {
            try {
                jvm.process.onExit().get(seconds, TimeUnit.SECONDS);
            } catch (TimeoutException e) {
                throw new AssertionError("the probe did not end within " + seconds + " s: " + command.command(), e);
            } catch (InterruptedException | ExecutionException e) {
                throw new IllegalStateException(e);
            }
            return jvm.finish();
        }
    }

    /** Runs the probe to its end. */
    static Result run(Path jdk, String agentOptions, String... probeArgs) {
        try (ForkedJvm jvm = start(jdk, agentOptions, probeArgs)) {
            return jvm.finish();
        }
    }

    long pid() {
        return process.pid();
    }

    /** Reads stdout up to and including the first line that starts with {@code prefix}. */
    String readUntil(String prefix) throws IOException {
        String line;
        while ((line = stdout.readLine()) != null) {
            outputLines.add(line);
            if (line.startsWith(prefix)) {
                return line;
            }
        }
        throw new IllegalStateException("the probe ended before printing \"" + prefix + "\"; stdout " + outputLines
                + ", stderr " + stderr.join());
    }

    void sendLine() throws IOException {
        OutputStream in = process.getOutputStream();
        in.write('\n');
        in.flush();
    }

    Result finish() {
        try {
            stdout.lines().forEach(outputLines::add);
            if (!process.waitFor(120, TimeUnit.SECONDS)) {
                throw new IllegalStateException("the probe did not end; stdout so far " + outputLines);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
        return new Result(process.exitValue(), List.copyOf(outputLines), stderr.join());
    }

    @Override
    public void close() {
        process.destroyForcibly();
    }

    /** Kills the JVM as a crash would (SIGKILL) and waits until it has gone, its locks with it. */
    void kill() throws Exception {
        if (!process.destroyForcibly().waitFor(60, TimeUnit.SECONDS)) {
            throw new IllegalStateException("JVM " + process.pid() + " still runs 60 s after SIGKILL");
        }
    }

    private static String testClasses() {
        try {
            return Path.of(PinProbe.class
                            .getProtectionDomain()
                            .getCodeSource()
                            .getLocation()
                            .toURI())
                    .toString();
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    /** What the probe printed; {@code stderr} without the JVM's own WARNING lines. */
    record Result(int exitCode, List<String> stdout, List<String> allStderr) {
        List<String> stderr() {
            return allStderr.stream()
                    .filter(line -> !line.startsWith("WARNING:") && !line.isBlank())
                    .toList();
        }

        /** The CPUs that thread {@code name} reported in its line starting with {@code prefix + name + " "}. */
        String cpusOf(String prefix, String name) {
            String start = prefix + name + " ";
            return stdout.stream()
                    .filter(line -> line.startsWith(start))
                    .map(line -> line.substring(line.lastIndexOf(' ') + 1))
                    .findFirst()
                    .orElseThrow(() -> new AssertionError("no line for " + name + " in " + stdout));
        }

        String describe() {
            return "exit " + exitCode + ", stdout " + stdout + ", stderr " + allStderr;
        }
    }
}
