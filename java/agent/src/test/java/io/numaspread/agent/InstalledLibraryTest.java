// SPDX-License-Identifier: Apache-2.0
package io.numaspread.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.numaspread.plan.Mode;
import io.numaspread.testing.NeedsRoot;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarFile;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The agent loads the library a package installed for its jar, in place, and extracts the jar's copy only when
 * there is none or it cannot be trusted: real trees with real modes, owners and links, under the build
 * directory (not /tmp, which everyone may write to, so that nothing under it could be trusted), and real forked
 * JVMs with a copy of the built jar at PREFIX/share/numaspread/.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class InstalledLibraryTest {
    private static final String OPTIONS = "threads=io-*,node=0,count=1,mode=cpu";
    private static final String PLATFORM = NativeAgent.platform(System.getProperty("os.arch"));

    private Path prefix;
    private Path jar;
    private Path library;

    /** A fresh PREFIX with the jar in share/numaspread and the jar's library in lib/numaspread/PLATFORM. */
    @BeforeEach
    void install(TestInfo test) throws IOException {
        Path trees = ForkedJvm.AGENT_JAR.toAbsolutePath().getParent().resolve("installed-library-test");
        prefix = trees.resolve(test.getTestMethod().orElseThrow().getName() + "-"
                + Integer.toHexString(test.getDisplayName().hashCode()));
        if (Files.exists(prefix, LinkOption.NOFOLLOW_LINKS)) {
            try (Stream<Path> old = Files.walk(prefix)) {
                for (Path path : old.sorted(Comparator.reverseOrder()).toList()) {
                    Files.delete(path);
                }
            }
        }
        jar = directory(prefix.resolve("share/numaspread")).resolve("numaspread-agent.jar");
        Files.copy(ForkedJvm.AGENT_JAR, jar);
        library = directory(prefix.resolve("lib/numaspread/" + PLATFORM)).resolve(NativeAgent.LIBRARY);
        Files.write(library, jarsLibrary());
        mode(jar, "rw-r--r--");
        mode(library, "rw-r--r--");
        for (Path directory = library.getParent();
                !directory.equals(trees.getParent());
                directory = directory.getParent()) {
            mode(directory, "rwxr-xr-x");
        }
        // The build directory's own ancestors must be trustworthy for the first test to mean anything.
        InstalledLibrary found = InstalledLibrary.beside(jar, PLATFORM, jarsEntry());
        assertNull(found.problem(), "the tree under the build directory is not trusted: " + found.problem());
    }

    /**
     * The installed file is loaded in place: java.io.tmpdir names a directory that does not exist, where an
     * extraction would fail, and yet the thread is pinned and the agent says which file it loaded.
     */
    @ParameterizedTest
    @MethodSource("io.numaspread.agent.AgentForkTest#jdks")
    void theInstalledLibraryIsLoadedWithoutExtraction(Path jdk) throws Exception {
        Path noTemporaryDirectory = prefix.resolve("no-such-directory");
        ForkedJvm.Result result = run(jdk, OPTIONS + ",verbose=true", noTemporaryDirectory);
        assertEquals(0, result.exitCode(), result.describe());
        assertTrue(
                result.stderr().contains("numaspread agent: loaded the installed library " + library),
                result.describe());
        assertPinned(result);
        assertTrue(Files.notExists(noTemporaryDirectory), "something made " + noTemporaryDirectory);
    }

    /**
     * {@code -agentpath:FILE} loads the library at the JVM's start, and the agent binds that one: no installed
     * file, no extraction (java.io.tmpdir does not exist), and the file may be anywhere, as its user named it.
     */
    @ParameterizedTest
    @MethodSource("io.numaspread.agent.AgentForkTest#jdks")
    void aLibraryLoadedByAgentpathIsUsedAsItIs(Path jdk) throws Exception {
        Path elsewhere =
                Files.move(library, directory(prefix.resolve("elsewhere")).resolve(NativeAgent.LIBRARY));
        Path noTemporaryDirectory = prefix.resolve("no-such-directory");
        ProcessBuilder command =
                ForkedJvm.command(jdk, jar, OPTIONS + ",verbose=true", List.of(), PinProbe.class, "sequential", "io:1");
        command.command().add(1, "-Djava.io.tmpdir=" + noTemporaryDirectory);
        command.command().add(1, "-agentpath:" + elsewhere);
        ForkedJvm.Result result = ForkedJvm.run(command);
        assertEquals(0, result.exitCode(), result.describe());
        assertTrue(
                result.stderr().contains("numaspread agent: uses the library that -agentpath loaded"),
                result.describe());
        assertPinned(result);
        assertTrue(Files.notExists(noTemporaryDirectory), "something made " + noTemporaryDirectory);
    }

    /** With no installed file, the same jar extracts its copy (and with verbose=true says why). */
    @Test
    void aJarWithNoInstalledLibraryExtractsItsOwn() throws Exception {
        Files.delete(library);
        Path temporary = directory(prefix.resolve("tmp"));
        ForkedJvm.Result result = run(ForkedJvm.JDK_25, OPTIONS + ",verbose=true", temporary);
        assertEquals(0, result.exitCode(), result.describe());
        assertTrue(
                result.stderr()
                        .contains("numaspread agent: extracted the library from the jar: no installed library at "
                                + library),
                result.describe());
        assertPinned(result);
        try (Stream<Path> left = Files.list(temporary)) {
            assertEquals(List.of(), left.toList(), "the extraction left files behind");
        }
        // And without it nothing is said: a bare jar is no fault.
        ForkedJvm.Result quiet = run(ForkedJvm.JDK_25, OPTIONS, temporary);
        assertEquals(List.of(), quiet.stderr(), quiet.describe());
        assertPinned(quiet);
    }

    /** How an installed file is spoilt, and the reason the agent must give for refusing it. */
    enum Spoilt {
        GROUP_WRITABLE_FILE("it is writable by group or others (mode 0664)") {
            @Override
            void spoil(Path prefix, Path library) throws IOException {
                mode(library, "rw-rw-r--");
            }
        },
        OTHER_WRITABLE_DIRECTORY("its directory PREFIX/lib/numaspread is writable by group or others (mode 0757)") {
            @Override
            void spoil(Path prefix, Path library) throws IOException {
                mode(prefix.resolve("lib/numaspread"), "rwxr-xrwx");
            }
        },
        SYMBOLIC_LINK("it is a symbolic link") {
            @Override
            void spoil(Path prefix, Path library) throws IOException {
                Path real = Files.move(library, library.resolveSibling("real.so"));
                Files.createSymbolicLink(library, real);
            }
        },
        LINKED_DIRECTORY("its directory PREFIX/lib/numaspread/PLATFORM is a symbolic link") {
            @Override
            void spoil(Path prefix, Path library) throws IOException {
                Path directory = library.getParent();
                Path real = Files.move(directory, directory.resolveSibling("real"));
                Files.createSymbolicLink(directory, real);
            }
        },
        ANOTHER_BUILD("its CRC-32 is ") {
            @Override
            void spoil(Path prefix, Path library) throws IOException {
                byte[] bytes = Files.readAllBytes(library);
                bytes[bytes.length / 2] ^= 1;
                Files.write(library, bytes);
            }
        },
        TRUNCATED("it has ") {
            @Override
            void spoil(Path prefix, Path library) throws IOException {
                byte[] bytes = Files.readAllBytes(library);
                Files.write(library, Arrays.copyOf(bytes, bytes.length - 1));
            }
        };

        final String reason;

        Spoilt(String reason) {
            this.reason = reason;
        }

        abstract void spoil(Path prefix, Path library) throws IOException;
    }

    /**
     * A spoilt installed file is refused and the jar's copy extracted: one line names the file and the reason,
     * without verbose=true, and the thread is still pinned.
     */
    @ParameterizedTest
    @MethodSource("spoilt")
    void anUntrustedOrForeignInstalledLibraryIsRefusedAndTheJarsCopyExtracted(Spoilt spoilt) throws Exception {
        spoilt.spoil(prefix, library);
        ForkedJvm.Result result = run(ForkedJvm.JDK_25, OPTIONS, directory(prefix.resolve("tmp")));
        assertRefused(result, spoilt.reason.replace("PREFIX", prefix.toString()).replace("PLATFORM", PLATFORM));
    }

    static Stream<Spoilt> spoilt() {
        return Stream.of(Spoilt.values());
    }

    /**
     * A directory on the way that others can write is trusted when it is sticky, as /tmp and /var/tmp are: others may
     * add names there but cannot rename or remove an entry they do not own, and the entry below is checked in turn.
     * Without the sticky bit it is refused.
     */
    @Test
    void aStickyDirectoryOnTheWayIsTrustedAndTheSameWithoutItIsNot() throws Exception {
        Path numaspread = prefix.resolve("lib/numaspread");
        Files.setAttribute(numaspread, "unix:mode", 01777, LinkOption.NOFOLLOW_LINKS);
        assertNull(InstalledLibrary.beside(jar, PLATFORM, jarsEntry()).problem());
        Files.setAttribute(numaspread, "unix:mode", 0777, LinkOption.NOFOLLOW_LINKS);
        assertEquals(
                "its directory " + numaspread + " is writable by group or others (mode 0777)",
                InstalledLibrary.beside(jar, PLATFORM, jarsEntry()).problem());
    }

    /** A file that neither root nor the jar's owner owns is refused, whatever its mode. */
    @Test
    @NeedsRoot
    void anInstalledLibraryOfAnotherOwnerIsRefused() throws Exception {
        Files.setAttribute(library, "unix:uid", 4242, LinkOption.NOFOLLOW_LINKS);
        ForkedJvm.Result result = run(ForkedJvm.JDK_25, OPTIONS, directory(prefix.resolve("tmp")));
        assertRefused(result, "it is owned by uid 4242, neither root nor the jar's owner (uid 0)");
    }

    private void assertRefused(ForkedJvm.Result result, String reason) throws Exception {
        assertEquals(0, result.exitCode(), result.describe());
        String line = "numaspread agent: extracted the library from the jar: refused the installed library " + library
                + ": " + reason;
        assertEquals(1, result.stderr().size(), result.describe());
        assertTrue(
                result.stderr().get(0).startsWith(line), "expected a line starting " + line + "; " + result.describe());
        assertPinned(result);
    }

    private ForkedJvm.Result run(Path jdk, String options, Path temporaryDirectory) {
        ProcessBuilder command = ForkedJvm.command(jdk, jar, options, List.of(), PinProbe.class, "sequential", "io:1");
        command.command().add(1, "-Djava.io.tmpdir=" + temporaryDirectory);
        return ForkedJvm.run(command);
    }

    private static void assertPinned(ForkedJvm.Result result) throws Exception {
        assertEquals(
                AgentForkTest.plan(1, Mode.CPU).get(0).cpus().toString(), result.cpusOf("", "io-0"), result.describe());
    }

    private static Path directory(Path path) throws IOException {
        Files.createDirectories(path);
        mode(path, "rwxr-xr-x");
        return path;
    }

    private static void mode(Path path, String permissions) throws IOException {
        Files.setPosixFilePermissions(path, PosixFilePermissions.fromString(permissions));
    }

    private static ZipEntry jarsEntry() throws IOException {
        try (JarFile agent = new JarFile(ForkedJvm.AGENT_JAR.toFile())) {
            return agent.getEntry(NativeAgent.resource(System.getProperty("os.arch")));
        }
    }

    private static byte[] jarsLibrary() throws IOException {
        try (JarFile agent = new JarFile(ForkedJvm.AGENT_JAR.toFile());
                InputStream in = agent.getInputStream(jarsEntry())) {
            return in.readAllBytes();
        }
    }
}
