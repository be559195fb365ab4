// SPDX-License-Identifier: Apache-2.0
package io.numaspread.cli.containers;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.numaspread.testing.NeedsContainerEngine;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.testcontainers.containers.BindMode;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.output.OutputFrame.OutputType;
import org.testcontainers.containers.startupcheck.OneShotStartupCheckStrategy;
import org.testcontainers.utility.DockerImageName;

/**
 * The image users deploy (deploy/Containerfile), built from this build's jars on the local test image (no
 * pull; the JDK is mounted at /opt/java/openjdk), run as users run it.
 */
@NeedsContainerEngine
class DeployImageContainerIT {
    private static final String TAG = "localhost/numaspread:container-test";
    private static final ObjectMapper JSON = new ObjectMapper();

    @BeforeAll
    static void build() {
        // scripts/build-deb stages the package's tree, which the image copies.
        NumaspreadContainer.built("target/deb/root/usr/share/numaspread/numaspread-cli.jar");
        HostCommands.run(
                        NumaspreadContainer.home(),
                        List.of(
                                "podman",
                                "build",
                                "-f",
                                "deploy/Containerfile",
                                "--build-arg",
                                "BASE=" + NumaspreadContainer.testImage(),
                                "-t",
                                TAG,
                                "."))
                .expectSuccess();
    }

    @AfterAll
    static void remove() {
        HostCommands.run(NumaspreadContainer.home(), List.of("podman", "rmi", "--force", TAG));
    }

    @Test
    void entrypointIsTheCliAndSeesWhatTheHostSees() throws Exception {
        JsonNode inside = JSON.readTree(runImage(container -> {}, "topology", "--json"));
        JsonNode host = JSON.readTree(
                HostCommands.numaspread("topology", "--json").expectSuccess().out());
        assertEquals(host, inside);
    }

    @Test
    void watchReadsItsOptionsFileAndTheAgentJarIsWhereTheServerPodExampleCopiesItFrom() {
        String out = runImage(
                container -> container.withCreateContainerCmdModifier(cmd -> cmd.withEntrypoint("sh", "-c")),
                "printf -- '--interval 0\\n' > /tmp/options; numaspread watch --nic eth0 @/tmp/options;"
                        + " echo exit=$?; numaspread agent-path;"
                        + " test -s \"$(numaspread agent-path)\" && echo agent-jar");
        assertEquals("exit=2\n/usr/share/numaspread/numaspread-agent.jar\nagent-jar", out.strip());
    }

    /** Runs the image once to completion (exit code 0 required) and returns its stdout. */
    private static String runImage(Consumer<GenericContainer<?>> setup, String... command) {
        try (GenericContainer<?> container = new GenericContainer<>(DockerImageName.parse(TAG))) {
            container
                    .withCommand(command)
                    .withFileSystemBind(
                            Path.of(System.getProperty("java.home")).toString(),
                            "/opt/java/openjdk",
                            BindMode.READ_ONLY)
                    .withStartupCheckStrategy(new OneShotStartupCheckStrategy().withTimeout(Duration.ofSeconds(60)));
            setup.accept(container);
            container.start();
            return container.getLogs(OutputType.STDOUT);
        }
    }
}
