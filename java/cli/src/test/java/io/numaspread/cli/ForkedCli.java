// SPDX-License-Identifier: Apache-2.0
package io.numaspread.cli;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/** The CLI in a JVM of its own, for what an in-process run cannot do: be killed, or run as another user. */
final class ForkedCli {
    private ForkedCli() {}

    /** The test class path: surefire's property holds it whole; java.class.path may be a manifest-only jar. */
    static String classPath() {
        return System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    }

    static Path java() {
        return Path.of(System.getProperty("java.home"), "bin", "java");
    }

    /** Starts {@code prefix java -cp CLASSPATH Main args} with {@code env} added to this environment. */
    static Process start(List<String> prefix, String classPath, Map<String, String> env, String... args)
            throws IOException {
        return start(prefix, List.of(), classPath, env, args);
    }

    /** As {@link #start(List, String, Map, String...)}, with {@code jvmOptions} ({@code -Dname=value}) for java. */
    static Process start(
            List<String> prefix, List<String> jvmOptions, String classPath, Map<String, String> env, String... args)
            throws IOException {
        return start(Main.class, prefix, jvmOptions, classPath, env, args);
    }

    /** As {@link #start(List, List, String, Map, String...)}, with another main class ({@link FaultyApply}). */
    static Process start(
            Class<?> main,
            List<String> prefix,
            List<String> jvmOptions,
            String classPath,
            Map<String, String> env,
            String... args)
            throws IOException {
        List<String> command = new ArrayList<>(prefix);
        // No perf data: a JVM run as another user would leave /tmp/hsperfdata_USER behind.
        command.addAll(List.of(java().toString(), "-XX:-UsePerfData", "--enable-native-access=ALL-UNNAMED"));
        command.addAll(jvmOptions);
        command.addAll(List.of("-cp", classPath, main.getName()));
        command.addAll(List.of(args));
        ProcessBuilder builder = new ProcessBuilder(command);
        builder.environment().putAll(env);
        return builder.start();
    }

    /** Runs to the end and returns exit code and output. */
    static CliRun run(List<String> prefix, String classPath, Map<String, String> env, String... args)
            throws IOException, InterruptedException {
        return run(prefix, List.of(), classPath, env, args);
    }

    /** Runs to the end with {@code jvmOptions} and returns exit code and output. */
    static CliRun run(
            List<String> prefix, List<String> jvmOptions, String classPath, Map<String, String> env, String... args)
            throws IOException, InterruptedException {
        return run(Main.class, prefix, jvmOptions, classPath, env, args);
    }

    /** As {@link #run(List, List, String, Map, String...)}, with another main class ({@link FaultyApply}). */
    static CliRun run(
            Class<?> main,
            List<String> prefix,
            List<String> jvmOptions,
            String classPath,
            Map<String, String> env,
            String... args)
            throws IOException, InterruptedException {
        Process process = start(main, prefix, jvmOptions, classPath, env, args);
        process.getOutputStream().close();
        String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        String err = new String(process.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        return new CliRun(process.waitFor(), out, err);
    }

    /**
     * The test class path copied under {@code run}, where user nobody can read it (the Maven repository is root's
     * alone); {@code run} is opened to everyone.
     */
    static String classPathForEveryone(Path run) throws IOException {
        String classPath = classPath();
        Path dir = Files.createDirectory(run.resolve("cp"));
        Files.setPosixFilePermissions(run, PosixFilePermissions.fromString("rwxr-xr-x"));
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
        List<String> entries = new ArrayList<>();
        int n = 0;
        for (String entry : classPath.split(File.pathSeparator)) {
            Path source = Path.of(entry);
            if (!Files.exists(source)) {
                continue;
            }
            Path target = dir.resolve(n++ + "-" + source.getFileName());
            try (Stream<Path> tree = Files.walk(source)) {
                for (Path file : tree.toList()) {
                    Path copy = target.resolve(source.relativize(file).toString());
                    if (Files.isDirectory(file)) {
                        Files.createDirectories(copy);
                    } else {
                        Files.createDirectories(copy.getParent());
                        Files.copy(file, copy);
                    }
                    Files.setPosixFilePermissions(
                            copy, PosixFilePermissions.fromString(Files.isDirectory(copy) ? "rwxr-xr-x" : "rw-r--r--"));
                }
            }
            entries.add(target.toString());
        }
        return String.join(File.pathSeparator, entries);
    }
}
