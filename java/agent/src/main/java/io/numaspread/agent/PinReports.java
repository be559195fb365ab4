package io.numaspread.agent;

/**
 * Prints what the native hook did, from a daemon thread that blocks in the library until there is news:
 * failed pins always, successful ones when verbose. The hook itself never prints, since it runs on the
 * application's starting threads.
 */
final class PinReports {
    private static volatile boolean verbose;
    private static Thread reader;

    private PinReports() {
    }

    static synchronized void start(boolean printPins) {
        verbose = printPins;
        if (reader == null) {
            reader = new Thread(PinReports::drain, "numaspread-agent-reports");
            reader.setDaemon(true);
            reader.start();
        }
    }

    private static void drain() {
        while (true) {
            for (String report : NativeAgent.awaitReports()) {
                String line = line(report);
                if (line != null) {
                    System.err.println(NumaspreadAgent.PREFIX + line);
                }
            }
        }
    }

    /** The message for one report, or null when it is a success and not verbose. */
    static String line(String report) {
        String[] fields = report.split("\t", 5);
        int errno = Integer.parseInt(fields[0]);
        if (errno < 0) {
            return fields[4] + " pin reports were dropped";
        }
        String thread = "thread \"" + fields[4] + "\" (tid " + fields[2] + ")";
        if (errno == 0) {
            return verbose ? "pinned " + thread + " to CPUs " + fields[3] : null;
        }
        return "cannot pin " + thread + " to CPUs " + fields[3] + ": " + fields[1] + " (errno " + errno + ")";
    }
}
