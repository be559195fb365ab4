// SPDX-License-Identifier: Apache-2.0
package io.numaspread.testing;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * {@code ip link}, for the tests that make upper devices on the live host (a macvlan on eth0, a bridge, veths),
 * named with this run's own prefix so that no two runs, and no device of the host, share a name.
 */
public final class IpLink {
    private IpLink() {}

    /** "nsu" and four hex digits of this JVM's PID, then {@code role}: at most 15 characters for a short role. */
    public static String name(String role) {
        return String.format(Locale.ROOT, "nsu%04x", ProcessHandle.current().pid() & 0xffff) + role;
    }

    /** Runs {@code ip link ARGS}, failing with its output when it exits non-zero or takes over 20 s. */
    public static void run(String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("ip", "link"));
        command.addAll(List.of(args));
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!process.waitFor(20, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new AssertionError(String.join(" ", command) + " did not finish");
        }
        if (process.exitValue() != 0) {
            throw new AssertionError(String.join(" ", command) + " exited " + process.exitValue() + ": " + output);
        }
    }
}
