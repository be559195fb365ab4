// SPDX-License-Identifier: Apache-2.0
package io.numaspread.nativeaccess;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.numaspread.kernel.SysfsTree;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * JNA's native dispatch library failing to load, for real, in a child JVM forced to the JNA backend: on JDK 24+
 * native access is denied ({@code --illegal-native-access=deny}), which JNA meets as an
 * ExceptionInInitializerError without a message; before that JNA is told not to look for the library where it
 * is ({@code jna.nosys}, {@code jna.noclasspath}). The reason must name the error that stopped it.
 */
class JnaLoadFailureTest {
    @Test
    void reasonNamesTheErrorThatStoppedJna() throws Exception {
        boolean deny = Runtime.version().feature() >= 24;
        String java = ProcessHandle.current().info().command().orElseThrow();
        List<String> command = new ArrayList<>(List.of(java));
        command.addAll(
                deny ? List.of("--illegal-native-access=deny") : List.of("-Djna.nosys=true", "-Djna.noclasspath=true"));
        command.addAll(List.of(
                "-Dnumaspread.backend=jna",
                "-cp",
                System.getProperty("java.class.path"),
                JnaLoadFailure.class.getName()));
        Process child = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        assertEquals(0, child.waitFor(), "child JVM failed:\n" + output);
        String expected = "jna backend unavailable, because JNA cannot load libc: "
                + (deny
                        ? "java.lang.IllegalCallerException: Illegal native access from an unnamed module"
                        : "java.lang.UnsatisfiedLinkError: Unable to locate JNA native support library");
        assertTrue(output.startsWith(expected), "expected a line starting with\n" + expected + "\nbut got\n" + output);
        assertEquals(1, output.lines().count(), "one line: " + output);
    }

    /** Run in the child JVM: prints why the forced JNA backend is unavailable. */
    public static final class JnaLoadFailure {
        private JnaLoadFailure() {}

        public static void main(String[] args) {
            try {
                Backends.select(SysfsTree.live(), Backends.override());
                System.out.println("the JNA backend loaded");
            } catch (BackendUnavailableException e) {
                System.out.println(e.getMessage());
            }
        }
    }
}
