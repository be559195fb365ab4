// SPDX-License-Identifier: Apache-2.0
package io.numaspread.kernel;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * The processes in a {@code /proc} (the live one, or a stand-in tree), and their small files ({@code comm},
 * {@code cmdline}, {@code environ}). A process may exit between the listing and the read, and some files are
 * their owner's only; such a file reads as empty, because every caller looks for something and a vanished
 * process holds nothing to find.
 */
public final class ProcessFiles {
    private ProcessFiles() {}

    /** The PIDs (numeric entries) of {@code procRoot}, ascending. */
    public static List<Integer> pids(Path procRoot) throws IOException {
        List<Integer> pids = new ArrayList<>();
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(procRoot)) {
            for (Path entry : entries) {
                String name = entry.getFileName().toString();
                if (!name.isEmpty() && name.length() < 10 && name.chars().allMatch(c -> c >= '0' && c <= '9')) {
                    pids.add(Integer.parseInt(name));
                }
            }
        }
        Collections.sort(pids);
        return pids;
    }

    /**
     * This process's PID, from the live {@code /proc/self}: in {@code /proc}'s PID namespace, as its lock listing
     * names holders. Not {@link ProcessHandle}: its first use sets up the JDK's process reaper (an executor,
     * lambdas), milliseconds on the cold JVM where the agent plans and leases before {@code main}.
     */
    public static int selfPid() throws IOException {
        String self = Files.readSymbolicLink(Path.of("/proc/self")).toString();
        try {
            return Integer.parseInt(self);
        } catch (NumberFormatException e) {
            throw new IOException("/proc/self links to \"" + self + "\", not a PID", e);
        }
    }

    /**
     * The meaning of file {@code name} of process {@code pid} by the one reading rule ({@link KernelText#read}:
     * trailing NULs and whitespace are padding), with the NULs that separate {@code cmdline} and {@code environ}
     * entries kept; empty when the process is gone or the file unreadable.
     */
    public static String read(Path procRoot, int pid, String name) {
        try {
            return KernelText.read(procRoot.resolve(Integer.toString(pid)).resolve(name));
        } catch (IOException e) {
            return "";
        }
    }
}
