// SPDX-License-Identifier: Apache-2.0
package io.numaspread.nativeaccess;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.numaspread.kernel.SysfsTree;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * A machine without libnuma, made for real: a child JVM runs in its own user and mount namespace, where
 * {@code /dev/null} is bind-mounted over the libnuma file, so loading it fails as it would on a host without
 * libnuma1. FFM and JNA must then still load, say why libnuma is unusable, pin threads through libc, and
 * leave the NUMA facts to sysfs, with no {@link ExceptionInInitializerError} anywhere.
 */
class MissingLibnumaTest {
    private static final String CAUSE = "libnuma.so.1 cannot be loaded (install libnuma1): ";

    @Test
    void backendsSayWhyLibnumaIsUnusableAndStillWork() throws Exception {
        Map<String, String> lines = runWithoutLibnuma();
        boolean ffm = Runtime.version().feature() >= 23;
        assertEquals(ffm ? "ffm" : "jna", lines.get("selected"), "selected backend, in " + lines);
        if (ffm) {
            assertWorksWithoutNuma(lines.get("ffm"));
        } else {
            assertTrue(
                    lines.get("ffm").startsWith("ffm backend unavailable, because it needs JDK 23"), lines.get("ffm"));
        }
        assertWorksWithoutNuma(lines.get("jna"));
    }

    private static void assertWorksWithoutNuma(String line) {
        String[] fields = line.split("\\|", -1);
        assertEquals(4, fields.length, line);
        assertTrue(fields[0].startsWith(CAUSE) && fields[0].contains("libnuma"), "cause: " + line);
        assertEquals(
                List.of("sysfs", "true", "true"),
                List.of(fields[1], fields[2], fields[3]),
                "NUMA facts from sysfs, pinning works, same machine: " + line);
    }

    private static Map<String, String> runWithoutLibnuma() throws Exception {
        Path libnuma = loadedLibnumaFile();
        String java = ProcessHandle.current().info().command().orElseThrow();
        List<String> command = new ArrayList<>(List.of(
                "unshare",
                "--user",
                "--map-root-user",
                "--mount",
                "sh",
                "-c",
                "mount --bind /dev/null \"$0\" && exec \"$@\"",
                libnuma.toString(),
                java,
                "--enable-native-access=ALL-UNNAMED",
                "-cp",
                System.getProperty("java.class.path"),
                WithoutLibnuma.class.getName()));
        Process child = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, child.waitFor(), "child JVM failed:\n" + output);
        Map<String, String> lines = new LinkedHashMap<>();
        for (String line : output.lines().toList()) {
            int bar = line.indexOf('|');
            if (bar > 0) {
                lines.put(line.substring(0, bar), line.substring(bar + 1));
            }
        }
        return lines;
    }

    /** The file this JVM maps for libnuma.so.1, under its real name (e.g. libnuma.so.1.0.0). */
    private static Path loadedLibnumaFile() throws IOException, BackendUnavailableException {
        assertEquals(
                Optional.empty(), JnaBackend.load(SysfsTree.live().maskBits()).numaUnavailableCause());
        return Files.readAllLines(Path.of("/proc/self/maps")).stream()
                .filter(line -> line.contains("/libnuma.so"))
                .map(line -> Path.of(line.substring(line.indexOf('/'))))
                .findFirst()
                .orElseThrow(() -> new AssertionError("this JVM has not mapped libnuma; is libnuma1 installed?"));
    }
}
