// SPDX-License-Identifier: Apache-2.0
package io.numaspread.agent;

import java.util.concurrent.locks.LockSupport;

/**
 * Prints what the native hook did, from a daemon thread and once more at exit: failed pins always, successful
 * ones when verbose.
 * The hook itself never prints, since it runs on the application's starting threads; it queues a report and,
 * when the queue was empty, calls {@link #wake()}. The thread parks in Java rather than waiting in native
 * code, because the JVM's exit waits up to 300 ms for threads that are in native code.
 */
final class PinReports implements Runnable {
    private static volatile boolean verbose;
    private static volatile Thread reader;

    /** Whether this is the reader's loop, or the shutdown hook's last look. */
    private final boolean loop;

    /**
     * The reader's loop and the shutdown hook are instances of this class, not classes (or lambdas) of their
     * own: each class more is one more to read out of the jar and verify while main waits.
     */
    private PinReports(boolean loop) {
        this.loop = loop;
    }

    static synchronized void start(boolean printPins) {
        verbose = printPins;
        if (reader == null) {
            Thread thread = new Thread(new PinReports(true), "numaspread-agent-reports");
            thread.setDaemon(true);
            reader = thread;
            thread.start();
            // The reader may not run again before the JVM exits: a pin that failed just before would go unsaid.
            Runtime.getRuntime().addShutdownHook(new Thread(new PinReports(false), "numaspread-agent-last-reports"));
        }
    }

    /** Called by the native library when the first report enters an empty queue. */
    static void wake() {
        Thread thread = reader;
        if (thread != null) {
            LockSupport.unpark(thread);
        }
    }

    @Override
    public void run() {
        if (!loop) {
            printPending();
            return;
        }
        while (true) {
            if (!printPending()) {
                LockSupport.park(PinReports.class);
            }
        }
    }

    /** Prints the reports queued so far, in order; false when there were none. */
    private static synchronized boolean printPending() {
        String[] reports = NativeAgent.takeReports();
        for (String report : reports) {
            String line = line(report);
            if (line != null) {
                System.err.println(NumaspreadAgent.PREFIX + line);
            }
        }
        return reports.length > 0;
    }

    /** The message for one report, or null when it is a success and not verbose. */
    static String line(String report) {
        String[] fields = report.split("\t", 5);
        int errno = Integer.parseInt(fields[0]);
        if (errno < 0) {
            return fields[4] + " pin reports were dropped";
        }
        String thread = "thread \"" + escaped(fields[4]) + "\" (tid " + fields[2] + ")";
        if (errno == 0) {
            return verbose ? "pinned " + thread + " to CPUs " + fields[3] : null;
        }
        return "cannot pin " + thread + " to CPUs " + fields[3] + ": " + fields[1] + " (errno " + errno + ")";
    }

    /**
     * The name with backslashes, quotes and control characters escaped, so that a report stays one line whatever
     * the name holds.
     */
    static String escaped(String name) {
        StringBuilder text = new StringBuilder(name.length());
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            switch (c) {
                case '\n' -> text.append("\\n");
                case '\r' -> text.append("\\r");
                case '\t' -> text.append("\\t");
                case '\\' -> text.append("\\\\");
                case '"' -> text.append("\\\"");
                default -> {
                    if (Character.isISOControl(c)) {
                        text.append("\\u").append(Integer.toHexString(0x10000 | c), 1, 5);
                    } else {
                        text.append(c);
                    }
                }
            }
        }
        return text.toString();
    }
}
