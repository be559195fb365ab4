// SPDX-License-Identifier: Apache-2.0
package io.numaspread.lease;

import io.numaspread.kernel.ProcessFiles;
import java.io.IOException;
import java.util.List;

/**
 * This process as its lease records name it: read once, when the first lease is listed or taken, since none of it
 * changes while the process lives.
 */
final class ThisProcess {
    static final long PID = pid();
    private static final long START = LeaseRecord.startTime(CpuLeases.PROC, PID).orElse(0);
    private static final String COMMAND = command();

    private ThisProcess() {}

    static LeaseRecord record(List<String> pins) {
        return new LeaseRecord(PID, START, COMMAND, pins);
    }

    /** This process's PID as the kernel's lock listing names it ({@link ProcessFiles#selfPid}). */
    private static long pid() {
        try {
            return ProcessFiles.selfPid();
        } catch (IOException e) {
            return ProcessHandle.current().pid();
        }
    }

    /** The main class (or jar) the launcher was given, else the executable. */
    private static String command() {
        String launched = System.getProperty("sun.java.command", "").trim();
        if (!launched.isEmpty()) {
            int end = 0;
            while (end < launched.length() && !Character.isWhitespace(launched.charAt(end))) {
                end++;
            }
            return launched.substring(0, end);
        }
        return ProcessHandle.current().info().command().orElse("java");
    }
}
