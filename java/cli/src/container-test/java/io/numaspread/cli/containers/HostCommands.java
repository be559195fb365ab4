// SPDX-License-Identifier: Apache-2.0
package io.numaspread.cli.containers;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** Commands run on the host by the test JVM: numaspread's CLI jar for comparison, and podman. */
final class HostCommands {
    private HostCommands() {}

    /** The CLI jar run with this JVM's JDK, the one the containers mount. */
    static NumaspreadContainer.Run numaspread(String... args) {
        List<String> command = new ArrayList<>(List.of(
                System.getProperty("java.home") + "/bin/java",
                "-jar",
                NumaspreadContainer.built("java/cli/target/numaspread-cli.jar").toString()));
        command.addAll(List.of(args));
        return run(NumaspreadContainer.home(), command);
    }

    static NumaspreadContainer.Run run(Path directory, List<String> command) {
        Path err = null;
        try {
            err = Files.createTempFile("numaspread-host-command", ".err");
            Process process = new ProcessBuilder(command)
                    .directory(directory.toFile())
                    .redirectError(err.toFile())
                    .start();
            process.getOutputStream().close();
            String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            int exitCode = process.waitFor();
            return new NumaspreadContainer.Run(String.join(" ", command), exitCode, out, Files.readString(err));
        } catch (IOException e) {
            throw new IllegalStateException("could not run " + command, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while running " + command, e);
        } finally {
            if (err != null) {
                err.toFile().delete();
            }
        }
    }
}
