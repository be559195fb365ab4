// SPDX-License-Identifier: Apache-2.0
package io.numaspread.cli.containers;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Runs inside a container: starts one thread per argument, named by it, one after the other so that the k-th
 * matching thread is the k-th argument. Each thread prints "NAME CPULIST", its own Cpus_allowed_list, as the
 * first thing it does.
 *
 * <p>With {@code -Dprobe.awaitStderrLines=N} it then waits until N lines mentioning a thread have been
 * printed to stderr (the agent reports its pins from a thread of its own) so that they are not lost when the
 * JVM exits.
 */
public final class ThreadAffinityProbe {
    private ThreadAffinityProbe() {}

    public static void main(String[] names) throws InterruptedException {
        CountDownLatch reports = new CountDownLatch(Integer.getInteger("probe.awaitStderrLines", 0));
        System.setErr(new PrintStream(new LineWatcher(System.err, reports), true, StandardCharsets.UTF_8));
        for (String name : names) {
            Thread thread = new Thread(ThreadAffinityProbe::report, name);
            thread.start();
            thread.join();
        }
        if (!reports.await(60, TimeUnit.SECONDS)) {
            System.out.println("missing " + reports.getCount() + " stderr lines about threads");
        }
    }

    static void report() {
        System.out.println(Thread.currentThread().getName() + " " + allowedCpus());
    }

    /** This thread's Cpus_allowed_list, as the kernel reports it. */
    static String allowedCpus() {
        try {
            return Files.readAllLines(Path.of("/proc/thread-self/status")).stream()
                    .filter(line -> line.startsWith("Cpus_allowed_list:"))
                    .map(line -> line.substring("Cpus_allowed_list:".length()).strip())
                    .findFirst()
                    .orElseThrow();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Passes stderr through and counts down once per line that mentions a thread. */
    private static final class LineWatcher extends OutputStream {
        private final PrintStream target;
        private final CountDownLatch latch;
        private final StringBuilder line = new StringBuilder();

        LineWatcher(PrintStream target, CountDownLatch latch) {
            this.target = target;
            this.latch = latch;
        }

        @Override
        public synchronized void write(int b) {
            target.write(b);
            if (b == '\n') {
                if (line.indexOf("thread \"") >= 0) {
                    latch.countDown();
                }
                line.setLength(0);
            } else {
                line.append((char) b);
            }
        }

        @Override
        public void flush() {
            target.flush();
        }
    }
}
