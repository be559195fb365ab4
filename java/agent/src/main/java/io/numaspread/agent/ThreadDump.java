// SPDX-License-Identifier: Apache-2.0
package io.numaspread.agent;

import io.numaspread.NumaspreadException;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import javax.management.JMException;
import javax.management.ObjectName;

/**
 * The Linux TIDs of this JVM's running threads. JVMTI lists the threads but has no TID for them; only the JVM's
 * own thread dump ({@code jcmd Thread.print}, reached in-process through the DiagnosticCommand MBean) prints it,
 * as {@code nid=} in each thread's header line.
 *
 * <p>The dump prints thread names raw, so a name can hold a newline and a whole forged header line. So the dump
 * is never parsed line by line: each thread that JVMTI lists is looked up by its exact header start,
 * {@code "NAME" #ID }, built from its real name and id, and its TID is read from the rest of that line, which the
 * JVM writes. A header start found more than once (another name forges it) is skipped, and the native library
 * refuses a TID that is no thread of this process.
 */
final class ThreadDump {
    private ThreadDump() {}

    /** A running Java thread: its Linux TID and its name. */
    record RunningThread(int tid, String name) {}

    /** The TIDs of {@code threads}, now; a thread not found once in the dump (ended, renamed) is left out. */
    static List<RunningThread> running(Thread[] threads) {
        String dump;
        try {
            dump = (String) ManagementFactory.getPlatformMBeanServer()
                    .invoke(
                            new ObjectName("com.sun.management:type=DiagnosticCommand"),
                            "threadPrint",
                            new Object[] {new String[0]},
                            new String[] {String[].class.getName()});
        } catch (JMException e) {
            throw new NumaspreadException(
                    NumaspreadException.Kind.UNAVAILABLE, "cannot take this JVM's thread dump: " + e);
        }
        List<RunningThread> running = new ArrayList<>();
        for (Thread thread : threads) {
            String name = thread.getName();
            int tid = tid(dump, name, id(thread));
            if (tid > 0) {
                running.add(new RunningThread(tid, name));
            }
        }
        return running;
    }

    @SuppressWarnings("deprecation") // Thread.threadId() is JDK 19 and later; the agent runs on 17
    private static long id(Thread thread) {
        return thread.getId();
    }

    /**
     * The TID in the header line of the thread with this name and id, or -1 when there is no such header or more
     * than one. JDK 17 prints {@code nid=0x3039}, JDK 19 and later {@code nid=12345}.
     */
    static int tid(String dump, String name, long id) {
        String text = "\n" + dump;
        String header = "\n\"" + name + "\" #" + id + " ";
        int at = text.indexOf(header);
        if (at < 0 || text.indexOf(header, at + 1) >= 0) {
            return -1;
        }
        int rest = at + header.length();
        int end = text.indexOf('\n', rest);
        String line = text.substring(rest, end < 0 ? text.length() : end);
        int nid = line.indexOf(" nid=");
        if (nid < 0) {
            return -1;
        }
        int start = nid + " nid=".length();
        int stop = start;
        while (stop < line.length() && line.charAt(stop) != ' ') {
            stop++;
        }
        String value = line.substring(start, stop);
        try {
            return value.startsWith("0x") ? Integer.parseInt(value.substring(2), 16) : Integer.parseInt(value);
        } catch (NumberFormatException e) {
            return -1;
        }
    }
}
