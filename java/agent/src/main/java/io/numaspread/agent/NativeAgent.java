package io.numaspread.agent;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;

/**
 * The JVMTI + JNI library from {@code native/agent}: it pins a thread whose name matches a rule from inside
 * the JVMTI ThreadStart event, on the new thread, before its {@code run()}. Its methods are bound by
 * {@code RegisterNatives} in its {@code JNI_OnLoad}.
 */
final class NativeAgent {
    private static final String LIBRARY = "libnumaspread-agent.so";

    private static boolean loaded;

    private NativeAgent() {
    }

    /**
     * Extracts the library into a fresh owner-only directory with an unpredictable name, loads it, and deletes
     * it again: once mapped, the file is no longer needed, and nothing is left behind even on a kill -9.
     *
     * @throws AgentException when this platform has no library in the jar or it cannot be loaded
     */
    static synchronized void load() {
        if (loaded) {
            return;
        }
        if (!System.getProperty("os.name").startsWith("Linux")) {
            throw new AgentException("the agent runs on Linux only, not on " + System.getProperty("os.name"));
        }
        String platform = platform(System.getProperty("os.arch"));
        String resource = "native/" + platform + "/" + LIBRARY;
        try (InputStream library = NativeAgent.class.getResourceAsStream(resource)) {
            if (library == null) {
                throw new AgentException("the agent jar has no native library for " + platform);
            }
            Path directory = Files.createTempDirectory("numaspread-agent-",
                    PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
            Path file = directory.resolve(LIBRARY);
            try {
                Files.copy(library, file, StandardCopyOption.REPLACE_EXISTING);
                System.load(file.toString());
            } finally {
                Files.deleteIfExists(file);
                Files.delete(directory);
            }
        } catch (IOException e) {
            throw new AgentException("cannot extract the native library to " + System.getProperty("java.io.tmpdir")
                    + ": " + e.getMessage());
        } catch (UnsatisfiedLinkError e) {
            throw new AgentException("cannot load the native library (is java.io.tmpdir on a noexec mount?): "
                    + e.getMessage());
        }
        loaded = true;
    }

    /**
     * The jar's directory for the library that runs on {@code osArch}: linux-x86_64 or linux-aarch64, the names
     * GCC's targets use (Java says amd64 for x86_64), or linux-{@code osArch} for any other, which the jar lacks.
     */
    static String platform(String osArch) {
        return "linux-" + switch (osArch) {
            case "amd64", "x86_64" -> "x86_64";
            case "aarch64", "arm64" -> "aarch64";
            default -> osArch;
        };
    }

    /** Why {@code glob} is malformed, or null when it is well-formed. */
    static native String globProblem(String glob);

    /**
     * Replaces the rules. Rule r matches a thread whose name matches any of {@code globs[r]}, and its k-th match
     * is pinned to CPU set k mod n of {@code masks[r]}, which holds n masks of {@code maskWords} words each.
     *
     * @param trackStarts keep the threads pinned at start until {@link #pinRunning}, which then skips them
     */
    static native void install(String[][] globs, long[][] masks, int maskWords, boolean trackStarts);

    /** Pins already-running threads by the current rules, except those pinned at start; returns how many matched. */
    static native int pinRunning(int[] tids, String[] names);

    /**
     * Takes the pins reported so far, without waiting: "errno\tstrerror\ttid\tcpulist\tname" each, errno 0 for a
     * pin that held; an entry with errno -1 carries in its name field how many reports were dropped. When the
     * queue stops being empty the library calls {@link PinReports#wake()}.
     */
    static native String[] takeReports();
}
