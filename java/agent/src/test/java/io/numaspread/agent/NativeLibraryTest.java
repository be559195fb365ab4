// SPDX-License-Identifier: Apache-2.0
package io.numaspread.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarFile;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.ZipEntry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The agent jar carries a library for each supported architecture, built to run on glibc 2.14 and later. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class NativeLibraryTest {
    private static final Pattern GLIBC_VERSION = Pattern.compile("\\(GLIBC_(\\d+)\\.(\\d+)(?:\\.\\d+)?\\)");

    /**
     * Each library is an ELF shared object for its machine (e_machine 62 x86-64, 183 AArch64) whose newest glibc
     * symbol version is at most the floor: 2.14 on x86_64, and on aarch64 2.17, the first glibc that port had.
     * The binutils of that target read the version needs, as objdump -T shows them.
     */
    @ParameterizedTest
    @CsvSource({"x86_64, 62, x86_64-linux-gnu-objdump, 2.14", "aarch64, 183, aarch64-linux-gnu-objdump, 2.17"})
    void theJarCarriesALibraryPerArchitectureThatNeedsNoNewerGlibcThanTheFloor(
            String arch, int machine, String objdump, String floor, @TempDir Path directory) throws Exception {
        byte[] library = libraryInJar("linux-" + arch);
        ByteBuffer header = ByteBuffer.wrap(library).order(ByteOrder.LITTLE_ENDIAN);
        assertEquals(0x464c457f, header.getInt(0), "ELF magic");
        assertEquals(3, header.getShort(16), "e_type ET_DYN (a shared object)");
        assertEquals(machine, header.getShort(18), "e_machine");

        Path file = Files.write(directory.resolve("libnumaspread-agent.so"), library);
        String symbols = run(objdump, "-T", file.toString());
        Matcher versions = GLIBC_VERSION.matcher(symbols);
        int newest = 0;
        int count = 0;
        while (versions.find()) {
            newest = Math.max(newest, Integer.parseInt(versions.group(1)) * 1000 + Integer.parseInt(versions.group(2)));
            count++;
        }
        assertTrue(count > 0, "objdump -T shows no GLIBC_ version needs:\n" + symbols);
        String[] parts = floor.split("\\.");
        int limit = Integer.parseInt(parts[0]) * 1000 + Integer.parseInt(parts[1]);
        assertTrue(
                newest <= limit,
                "linux-" + arch + " needs glibc " + newest / 1000 + "." + newest % 1000 + ", newer than " + floor
                        + ":\n" + symbols);
    }

    /** -ffile-prefix-map: neither the source tree nor the build JDK's directory is recorded (debug info, __FILE__). */
    @ParameterizedTest
    @CsvSource({"x86_64", "aarch64"})
    void theLibraryRecordsNoBuildPaths(String arch) throws Exception {
        String bytes = new String(libraryInJar("linux-" + arch), StandardCharsets.ISO_8859_1);
        Path sourceTree = Path.of("../..").toRealPath();
        for (String path : List.of(
                sourceTree.toString(),
                Path.of(System.getProperty("java.home")).toRealPath().toString())) {
            assertFalse(bytes.contains(path), "linux-" + arch + " records the build path " + path);
        }
        assertTrue(bytes.contains("native/agent"), "the debug info names the source relative to the repository");
    }

    @Test
    void javasArchitectureNamesMapToTheLibrarysDirectory() {
        assertEquals("linux-x86_64", NativeAgent.platform("amd64"));
        assertEquals("linux-x86_64", NativeAgent.platform("x86_64"));
        assertEquals("linux-aarch64", NativeAgent.platform("aarch64"));
        assertEquals("linux-riscv64", NativeAgent.platform("riscv64"));
    }

    @Test
    void theRunningJvmsArchitectureHasALibrary() throws Exception {
        assertTrue(libraryInJar(NativeAgent.platform(System.getProperty("os.arch"))).length > 0);
    }

    private static byte[] libraryInJar(String platform) throws IOException {
        try (JarFile jar = new JarFile(ForkedJvm.AGENT_JAR.toFile())) {
            ZipEntry entry = jar.getEntry("io/numaspread/agent/native/" + platform + "/libnumaspread-agent.so");
            assertNotNull(entry, ForkedJvm.AGENT_JAR + " has no library for " + platform);
            try (InputStream in = jar.getInputStream(entry)) {
                return in.readAllBytes();
            }
        }
    }

    private static String run(String... command) throws IOException, InterruptedException {
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(process.waitFor(30, TimeUnit.SECONDS), String.join(" ", command) + " did not end");
        assertEquals(0, process.exitValue(), String.join(" ", command) + " failed:\n" + output);
        return output;
    }
}
