// SPDX-License-Identifier: Apache-2.0
package io.numaspread.cli.containers;

import static org.junit.jupiter.api.Assertions.assertTrue;

import com.github.dockerjava.api.model.HostConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.testcontainers.containers.BindMode;
import org.testcontainers.containers.Container.ExecResult;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.utility.DockerImageName;

/**
 * A container of the local test image (scripts/test-image) with this JVM's JDK at /opt/java/openjdk and
 * numaspread's jars and test classes mounted read-only. It sleeps; the tests run commands in it.
 */
final class NumaspreadContainer implements AutoCloseable {
    static final String JAVA = "/opt/java/openjdk/bin/java";
    static final String CLI_JAR = "/opt/numaspread/numaspread-cli.jar";
    static final String AGENT_JAR = "/opt/numaspread/numaspread-agent.jar";
    /** This module's test classes, so that programs run inside are compiled code, not strings. */
    static final String TEST_CLASSES = "/opt/numaspread-tests";

    private final GenericContainer<?> container;

    private NumaspreadContainer(GenericContainer<?> container) {
        this.container = container;
    }

    /** Starts a container whose host settings (cpuset, privilege) {@code host} sets. */
    static NumaspreadContainer start(Consumer<HostConfig> host) {
        return start(host, List.of());
    }

    /** As {@link #start(Consumer)}, with extra read-write mounts: host path, container path. */
    static NumaspreadContainer start(Consumer<HostConfig> host, List<Mount> mounts) {
        GenericContainer<?> container = new GenericContainer<>(testImage())
                .withCommand("sleep", "infinity")
                .withFileSystemBind(
                        Path.of(System.getProperty("java.home")).toString(), "/opt/java/openjdk", BindMode.READ_ONLY)
                .withFileSystemBind(built("java/cli/target/numaspread-cli.jar").toString(), CLI_JAR, BindMode.READ_ONLY)
                .withFileSystemBind(built("java/cli/target/test-classes").toString(), TEST_CLASSES, BindMode.READ_ONLY)
                .withCreateContainerCmdModifier(cmd -> host.accept(cmd.getHostConfig()));
        Path agent = home().resolve("java/agent/target/numaspread-agent.jar");
        if (Files.isRegularFile(agent)) {
            container.withFileSystemBind(agent.toString(), AGENT_JAR, BindMode.READ_ONLY);
        }
        for (Mount mount : mounts) {
            container.withFileSystemBind(mount.host().toString(), mount.container(), BindMode.READ_WRITE);
        }
        container.start();
        return new NumaspreadContainer(container);
    }

    record Mount(Path host, String container) {}

    /** Runs the CLI from its jar. */
    Run numaspread(String... args) {
        List<String> command = new ArrayList<>(List.of(JAVA, "-jar", CLI_JAR));
        command.addAll(List.of(args));
        return exec(command.toArray(String[]::new));
    }

    /** Runs a main class of this module's tests with the CLI jar (which holds core) on the class path. */
    Run testProgram(List<String> jvmOptions, Class<?> mainClass, String... args) {
        List<String> command = new ArrayList<>(List.of(JAVA));
        command.addAll(jvmOptions);
        command.addAll(List.of("-cp", CLI_JAR + ":" + TEST_CLASSES, mainClass.getName()));
        command.addAll(List.of(args));
        return exec(command.toArray(String[]::new));
    }

    Run exec(String... command) {
        try {
            ExecResult result = container.execInContainer(command);
            return new Run(String.join(" ", command), result.getExitCode(), result.getStdout(), result.getStderr());
        } catch (IOException e) {
            throw new IllegalStateException("could not run " + String.join(" ", command) + " in the container", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while running " + String.join(" ", command), e);
        }
    }

    @Override
    public void close() {
        container.stop();
    }

    /** One command's exit code and output; {@link #toString()} is the assertion message. */
    record Run(String command, int exitCode, String out, String err) {
        Run expectSuccess() {
            assertTrue(exitCode == 0, this::toString);
            return this;
        }

        @Override
        public String toString() {
            return "$ " + command + "\nexit code " + exitCode + "\nstdout:\n" + out + "\nstderr:\n" + err;
        }
    }

    static DockerImageName testImage() {
        String image = System.getenv("NUMASPREAD_TEST_IMAGE");
        if (image == null || image.isBlank()) {
            throw new IllegalStateException("NUMASPREAD_TEST_IMAGE is unset: run eval \"$(scripts/container-engine)\""
                    + " and eval \"$(scripts/test-image)\" first (scripts/test does)");
        }
        return DockerImageName.parse(image);
    }

    /** The repository's root (set by the containers profile of java/cli/pom.xml). */
    static Path home() {
        String home = System.getProperty("numaspread.home");
        if (home == null) {
            throw new IllegalStateException("the system property numaspread.home is unset; run through Maven"
                    + " (mvn -Pcontainers verify -pl java/cli -am)");
        }
        return Path.of(home).toAbsolutePath().normalize();
    }

    /** A file of the build that the tests mount; it must exist. */
    static Path built(String relative) {
        Path path = home().resolve(relative);
        if (!Files.exists(path)) {
            throw new IllegalStateException(path + " is missing: build the project first (mvn package)");
        }
        return path;
    }
}
