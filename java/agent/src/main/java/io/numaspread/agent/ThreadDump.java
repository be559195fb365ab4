// SPDX-License-Identifier: Apache-2.0
package io.numaspread.agent;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.management.JMException;
import javax.management.ObjectName;

/**
 * The Java threads of this JVM with their Linux TIDs, from the JVM's own thread dump ({@code jcmd Thread.print},
 * reached in-process through the DiagnosticCommand MBean). Only the dump has the TID ({@code nid=}).
 */
final class ThreadDump {
    /**
     * A Java thread's header line: {@code "name" #id [tid] daemon prio=... tid=0x... nid=...}. JDK 17 prints the
     * nid in hex ({@code nid=0x3039}), JDK 19 and later in decimal. JVM-internal threads have no {@code #id}.
     * The name is everything up to the last quote before {@code #id}, so names with quotes survive.
     */
    private static final Pattern JAVA_THREAD = Pattern.compile("^\"(.*)\" #\\d+ .*\\bnid=(0x\\p{XDigit}+|\\d+)\\b");

    private ThreadDump() {
    }

    /** A running Java thread: its Linux TID and its name. */
    record RunningThread(int tid, String name) {
    }

    /** This JVM's Java threads, now. */
    static List<RunningThread> running() {
        try {
            Object dump = ManagementFactory.getPlatformMBeanServer().invoke(
                    new ObjectName("com.sun.management:type=DiagnosticCommand"), "threadPrint",
                    new Object[] {new String[0]}, new String[] {String[].class.getName()});
            return parse((String) dump);
        } catch (JMException e) {
            throw new AgentException("cannot take this JVM's thread dump: " + e);
        }
    }

    static List<RunningThread> parse(String dump) {
        List<RunningThread> threads = new ArrayList<>();
        for (String line : dump.split("\n")) {
            Matcher header = JAVA_THREAD.matcher(line);
            if (header.find()) {
                String nid = header.group(2);
                int tid = nid.startsWith("0x") ? Integer.parseInt(nid.substring(2), 16) : Integer.parseInt(nid);
                threads.add(new RunningThread(tid, header.group(1)));
            }
        }
        return threads;
    }
}
