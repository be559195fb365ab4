// SPDX-License-Identifier: Apache-2.0
package io.numaspread.lease;

import io.numaspread.CpuSet;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A process of its own holding a CPU lease, as another JVM on the host would: {@code DIR CPUS PIN} takes the
 * lease, prints {@code held}, and keeps it until its standard input closes or it is killed; with a fourth
 * argument {@code stuck-in-session}, it keeps the registry's session open as well.
 */
public final class LeaseHoldingProcess {
    private LeaseHoldingProcess() {}

    public static void main(String[] args) throws IOException {
        CpuLeases leases = CpuLeases.in(Path.of(args[0]));
        boolean stuck = args.length > 3 && args[3].equals("stuck-in-session");
        try (CpuLeases.Session session = leases.session()) {
            session.take(CpuSet.parse(args[1]), args[2]);
            if (stuck) {
                // A process stuck while it plans: it keeps registry.lock.
                holdUntilStdinCloses();
            }
        }
        holdUntilStdinCloses();
    }

    private static void holdUntilStdinCloses() throws IOException {
        System.out.println("held");
        System.out.flush();
        while (System.in.read() >= 0) {
            // Holds the lease until the test closes this process's standard input.
        }
    }

    /** Starts the process and waits for it to hold the lease. */
    public static Process start(Path dir, String cpus, String pin) throws IOException {
        return start(dir, cpus, pin, "released");
    }

    /** As {@link #start(Path, String, String)}; {@code session} {@code stuck-in-session} keeps registry.lock. */
    public static Process start(Path dir, String cpus, String pin, String session) throws IOException {
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:-UsePerfData",
                "-cp",
                System.getProperty("surefire.test.class.path", System.getProperty("java.class.path")),
                LeaseHoldingProcess.class.getName(),
                dir.toString(),
                cpus,
                pin,
                session));
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        byte[] line = new byte[5];
        int read = process.getInputStream().readNBytes(line, 0, line.length);
        if (read != line.length || !new String(line).equals("held\n")) {
            process.destroyForcibly();
            throw new IOException("the lease holder did not take its lease: " + new String(line, 0, read)
                    + new String(process.getInputStream().readAllBytes()));
        }
        return process;
    }

    /** Kills it with SIGKILL, as a crash would end it, and waits for it to be gone. */
    public static void kill(Process process) throws InterruptedException {
        process.destroyForcibly();
        if (!process.waitFor(20, TimeUnit.SECONDS)) {
            throw new AssertionError("the lease holder " + process.pid() + " did not die");
        }
    }
}
