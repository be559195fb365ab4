// SPDX-License-Identifier: Apache-2.0
package io.numaspread.nativeaccess;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.numaspread.kernel.SysfsTree;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.reflect.InvocationTargetException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Enumeration;
import java.util.Map;
import java.util.Optional;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.jar.JarOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Selection on the live host: FFM on JDK 23 and newer, else JNA with the reason FFM was passed over. */
@Timeout(60)
class BackendsTest {
    private static final int FEATURE = Runtime.version().feature();
    private static final String FFM_NEEDS_JDK_23 =
            "ffm backend unavailable, because it needs JDK 23 or newer and this is JDK " + FEATURE;

    @Test
    void prefersFfmAndElseSaysWhyNot() throws BackendUnavailableException {
        Backends.Selection selection = Backends.select(SysfsTree.live(), Optional.empty());
        if (FEATURE >= 23) {
            assertEquals(BackendKind.FFM, selection.backend().kind());
            assertEquals(Map.of(), selection.unavailable());
        } else {
            assertEquals(BackendKind.JNA, selection.backend().kind());
            assertEquals(Map.of(BackendKind.FFM, FFM_NEEDS_JDK_23), selection.unavailable());
        }
    }

    @Test
    void forcedFfmLoadsOrSaysWhyNot() throws BackendUnavailableException {
        Optional<BackendKind> ffm = Optional.of(BackendKind.FFM);
        if (FEATURE >= 23) {
            assertEquals(
                    BackendKind.FFM,
                    Backends.select(SysfsTree.live(), ffm).backend().kind());
        } else {
            BackendUnavailableException e =
                    assertThrows(BackendUnavailableException.class, () -> Backends.select(SysfsTree.live(), ffm));
            assertEquals(FFM_NEEDS_JDK_23, e.getMessage());
        }
    }

    @Test
    void forcedJnaAndSysfsLoadOnAnyJdk() throws BackendUnavailableException {
        for (BackendKind kind : new BackendKind[] {BackendKind.JNA, BackendKind.SYSFS}) {
            Backends.Selection selection = Backends.select(SysfsTree.live(), Optional.of(kind));
            assertEquals(kind, selection.backend().kind());
            assertEquals(Map.of(), selection.unavailable());
        }
    }

    /**
     * numaspread-core read without its overlay (a jar repacked without {@code Multi-Release: true}, as a careless
     * shading does): the base's FFM class says so, and on JDK 17 that FFM needs JDK 23.
     */
    @Test
    void theBaseWithoutItsOverlaySaysWhyFfmIsUnavailable(@TempDir Path dir) throws Exception {
        Path coreJar = Path.of(Backends.class
                .getProtectionDomain()
                .getCodeSource()
                .getLocation()
                .toURI());
        Path baseOnly = baseOnlyCopy(coreJar, dir.resolve("numaspread-core-base.jar"));
        try (URLClassLoader loader =
                new URLClassLoader(new URL[] {baseOnly.toUri().toURL()}, ClassLoader.getPlatformClassLoader())) {
            Class<?> backends = loader.loadClass(Backends.class.getName());
            Class<?> sysfsTree = loader.loadClass(SysfsTree.class.getName());
            Object ffm = loader.loadClass(BackendKind.class.getName())
                    .getField("FFM")
                    .get(null);
            Object live = sysfsTree.getMethod("live").invoke(null);
            InvocationTargetException thrown = assertThrows(
                    InvocationTargetException.class,
                    () -> backends.getMethod("select", sysfsTree, Optional.class)
                            .invoke(null, live, Optional.of(ffm)));
            assertEquals(
                    BackendUnavailableException.class.getName(),
                    thrown.getCause().getClass().getName());
            assertEquals(
                    "ffm backend unavailable, because "
                            + (FEATURE >= 23
                                    ? "its classes are not here: numaspread-core must be loaded as its multi-release jar, not from a"
                                            + " classes folder or a jar without Multi-Release: true"
                                    : "it needs JDK 23 or newer and this is JDK " + FEATURE),
                    thrown.getCause().getMessage());
        }
    }

    /** The jar's base classes only: no {@code META-INF/versions/}, and no manifest to say Multi-Release. */
    private static Path baseOnlyCopy(Path jar, Path copy) throws IOException {
        try (JarFile in = new JarFile(jar.toFile());
                OutputStream file = Files.newOutputStream(copy);
                JarOutputStream out = new JarOutputStream(file)) {
            for (Enumeration<JarEntry> entries = in.entries(); entries.hasMoreElements(); ) {
                JarEntry entry = entries.nextElement();
                if (entry.isDirectory() || entry.getName().startsWith("META-INF/")) {
                    continue;
                }
                out.putNextEntry(new JarEntry(entry.getName()));
                try (InputStream bytes = in.getInputStream(entry)) {
                    bytes.transferTo(out);
                }
                out.closeEntry();
            }
        }
        return copy;
    }
}
