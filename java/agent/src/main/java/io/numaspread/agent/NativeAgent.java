// SPDX-License-Identifier: Apache-2.0
package io.numaspread.agent;

import io.numaspread.NumaspreadException;
import java.io.File;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.URISyntaxException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.concurrent.ThreadLocalRandom;
import java.util.jar.JarFile;
import java.util.zip.ZipEntry;

/**
 * The JVMTI + JNI library from {@code native/agent}: it pins a thread whose name matches a rule from inside
 * the JVMTI ThreadStart event, on the new thread, before its {@code run()}. Its methods are bound by
 * {@code RegisterNatives} in its {@code JNI_OnLoad}.
 */
final class NativeAgent {
    static final String LIBRARY = "libnumaspread-agent.so";
    private static final int DIRECTORY_ATTEMPTS = 100;

    private static InstalledLibrary loaded;

    private NativeAgent() {}

    /**
     * Loads the library, once: the one that {@code -agentpath} loaded, if it did; else the copy a package
     * installed for the jar ({@link InstalledLibrary}) when it is
     * there and can be trusted, with no copy made; otherwise the jar's own copy, extracted into a fresh
     * owner-only directory, loaded and deleted again (once mapped, the file is no longer needed, and nothing is
     * left behind even on a kill -9).
     *
     * @return the installed library, loaded when its {@link InstalledLibrary#problem()} is null; otherwise why
     *     the jar's copy was extracted instead
     * @throws NumaspreadException (unavailable) when this platform has no library in the jar or it cannot be
     *     loaded
     */
    static synchronized InstalledLibrary load() {
        if (loaded != null) {
            return loaded;
        }
        String os = System.getProperty("os.name");
        if (!os.startsWith("Linux")) {
            throw unavailable("the agent runs on Linux only, not on " + os);
        }
        if (boundAgentLibrary()) {
            loaded = InstalledLibrary.AGENTPATH;
            return loaded;
        }
        String platform = platform(System.getProperty("os.arch"));
        String resource = resource(System.getProperty("os.arch"));
        File jarFile = agentJar();
        try (JarFile jar = new JarFile(jarFile, false)) {
            ZipEntry entry = jar.getEntry(resource);
            if (entry == null) {
                throw unavailable("the agent jar has no native library " + resource);
            }
            InstalledLibrary installed = InstalledLibrary.beside(jarFile.toPath(), platform, entry);
            if (installed.problem() == null) {
                try {
                    System.load(installed.path().toString());
                    loaded = installed;
                    return loaded;
                } catch (UnsatisfiedLinkError e) {
                    installed = installed.refused("it does not load: " + e.getMessage());
                }
            }
            byte[] library;
            try (InputStream in = jar.getInputStream(entry)) {
                library = in.readAllBytes();
            }
            extractAndLoad(library);
            loaded = installed;
            return loaded;
        } catch (IOException e) {
            throw unavailable("cannot extract the native library to " + System.getProperty("java.io.tmpdir") + ": "
                    + e.getMessage());
        } catch (UnsatisfiedLinkError e) {
            throw unavailable(
                    "cannot load the native library (is java.io.tmpdir on a noexec mount?): " + e.getMessage());
        }
    }

    /**
     * Whether the JVM loaded the library for {@code -agentpath} and its natives are now bound. HotSpot looks a
     * native that no loaded library binds up in the agent libraries as well, so {@link #bindAgentLibrary} is found
     * only then; otherwise it throws, which costs a lookup and an exception, far less than any load.
     */
    private static boolean boundAgentLibrary() {
        try {
            if (!bindAgentLibrary()) {
                throw unavailable("the library that -agentpath loaded cannot bind the agent's natives");
            }
            return true;
        } catch (UnsatisfiedLinkError e) {
            return false;
        }
    }

    /** Binds the other natives and enables the hook, in a library that -agentpath loaded. */
    private static native boolean bindAgentLibrary();

    private static void extractAndLoad(byte[] library) throws IOException {
        Path directory = privateDirectory(Path.of(System.getProperty("java.io.tmpdir")));
        Path file = directory.resolve(LIBRARY);
        try {
            try (FileOutputStream out = new FileOutputStream(file.toFile())) {
                out.write(library);
            }
            System.load(file.toString());
        } finally {
            Files.deleteIfExists(file);
            Files.delete(directory);
        }
    }

    /**
     * A new directory that only this user can enter. Not Files.createTempDirectory: its SecureRandom name costs
     * the JVM's security providers and a seed read, about a fifth of the agent's start-up. The name need not be
     * secret: mkdir creates it exclusively (a planted file or symlink of that name fails it, and another name is
     * tried), with mode 0700 from the start, so nobody else can put anything into it.
     */
    static Path privateDirectory(Path parent) throws IOException {
        FileAttribute<?> ownerOnly = PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------"));
        for (int attempt = 1; ; attempt++) {
            Path directory = parent.resolve("numaspread-agent-"
                    + Long.toHexString(ThreadLocalRandom.current().nextLong()));
            try {
                return Files.createDirectory(directory, ownerOnly);
            } catch (FileAlreadyExistsException e) {
                if (attempt == DIRECTORY_ATTEMPTS) {
                    throw e;
                }
            }
        }
    }

    /**
     * The agent's own jar, where its classes come from. A JarFile of it, not Class.getResourceAsStream, reads the
     * library: the class loader searches the JDK's modules first (opening the runtime image) and then reads
     * through a jar URL connection, which together cost a cold JVM more than the library itself.
     */
    static File agentJar() {
        try {
            return new File(NativeAgent.class
                    .getProtectionDomain()
                    .getCodeSource()
                    .getLocation()
                    .toURI());
        } catch (URISyntaxException | IllegalArgumentException e) {
            throw unavailable("cannot find the agent's jar: " + e.getMessage());
        }
    }

    /** The jar's path of the library for {@code osArch}. */
    static String resource(String osArch) {
        return "io/numaspread/agent/native/" + platform(osArch) + "/" + LIBRARY;
    }

    private static NumaspreadException unavailable(String message) {
        return new NumaspreadException(NumaspreadException.Kind.UNAVAILABLE, message);
    }

    /**
     * The jar's directory for the library that runs on {@code osArch}: linux-x86_64 or linux-aarch64, the names
     * GCC's targets use (Java says amd64 for x86_64), or linux-{@code osArch} for any other, which the jar lacks.
     */
    static String platform(String osArch) {
        return "linux-"
                + switch (osArch) {
                    case "amd64", "x86_64" -> "x86_64";
                    case "aarch64", "arm64" -> "aarch64";
                    default -> osArch;
                };
    }

    /**
     * The masks of the thread plan for {@code node=N,count=K}, made by the library from {@code sysfsRoot} as
     * core's Planner makes it (one origin, purpose threads): {@code count} masks of (cpu/possible's last CPU +
     * 64) / 64 words each; or null when the library declines and Java must plan (a file missing or malformed, no
     * candidate CPU, an unknown node: Java then names the culprit).
     *
     * @param allowed the CPUs this process may use as a cpulist; null for this process's affinity on the live
     *     tree ({@code /sys}) and for every online CPU on any other
     */
    static native long[] planThreads(String sysfsRoot, String allowed, int node, int count, boolean oneCpu);

    /** Why {@code glob} is malformed, or null when it is well-formed. */
    static native String globProblem(String glob);

    /**
     * Replaces the rules. Rule r matches a thread whose name matches any of {@code globs[r]}, and its k-th match
     * is pinned to CPU set k mod n of {@code masks[r]}, which holds n masks of {@code maskWords} words each, named
     * by {@code cpulists[r]} in reports.
     *
     * @param reportPins report every pin, not only those that fail
     * @param trackStarts keep the threads pinned at start until {@link #pinRunning}, which then skips them
     */
    static native void install(
            String[][] globs,
            long[][] masks,
            String[][] cpulists,
            int maskWords,
            boolean reportPins,
            boolean trackStarts);

    /**
     * Pins already-running threads by the current rules, except those pinned at start; returns how many matched,
     * or -1 when a TID is no thread of this process (it is skipped; the others are pinned).
     */
    static native int pinRunning(int[] tids, String[] names);

    /** This JVM's live platform threads, from JVMTI GetAllThreads. */
    static native Thread[] allThreads();

    /**
     * Takes the pins reported so far, without waiting: "errno\tstrerror\ttid\tcpulist\tname" each, errno 0 for a
     * pin that held; an entry with errno -1 carries in its name field how many reports were dropped. When the
     * queue stops being empty the library calls {@link PinReports#wake()}.
     */
    static native String[] takeReports();

    /** libc's open(2) on a kernel control file, or minus its errno ({@code LibcKernelFiles.Calls#open}). */
    static native int open(byte[] nulTerminatedPath, boolean forWriting, boolean truncate);

    /** libc's read(2), or minus its errno. */
    static native long read(int fd, byte[] buffer, int length);

    /** libc's write(2) in one call, or minus its errno. */
    static native long write(int fd, byte[] buffer, int length);

    /** libc's close(2), or minus its errno. */
    static native int close(int fd);
}
