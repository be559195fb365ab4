// SPDX-License-Identifier: Apache-2.0
package io.numaspread.cli;

import io.numaspread.NumaspreadException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Finds the agent jar relative to the CLI's own jar: beside it (an installation such as /opt/numaspread), or
 * in the source tree's java/agent/target when the CLI runs from java/cli/target.
 */
final class AgentJar {
    static final String FILE_NAME = "numaspread-agent.jar";

    private AgentJar() {}

    /** @throws NumaspreadException naming the places looked at, when the agent jar is in none of them */
    static Path locate() {
        Path cli;
        try {
            cli = Path.of(Main.class
                            .getProtectionDomain()
                            .getCodeSource()
                            .getLocation()
                            .toURI())
                    .toAbsolutePath();
        } catch (URISyntaxException | SecurityException e) {
            throw NumaspreadException.badInput("cannot tell where the numaspread CLI jar is: " + e);
        }
        Path directory = cli.getParent();
        List<Path> candidates = List.of(
                directory.resolve(FILE_NAME),
                directory.resolve("../../agent/target").resolve(FILE_NAME).normalize());
        return candidates.stream()
                .filter(Files::isRegularFile)
                .findFirst()
                .orElseThrow(() -> NumaspreadException.badInput(
                        "no agent jar at " + candidates + "; build it with: mvn -pl java/agent -am package"));
    }
}
