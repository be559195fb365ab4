// SPDX-License-Identifier: Apache-2.0
package io.numaspread.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.numaspread.agent.ThreadDump.RunningThread;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

class ThreadDumpTest {
    @Test
    void findsThisThreadWithItsLinuxTidInTheLiveDump() throws Exception {
        String self = Files.readSymbolicLink(Path.of("/proc/thread-self")).toString();
        int tid = Integer.parseInt(self.substring(self.lastIndexOf('/') + 1));
        Thread.currentThread().setName("dump \"probe\" #1");
        List<RunningThread> threads = ThreadDump.running();
        assertTrue(threads.contains(new RunningThread(tid, "dump \"probe\" #1")), threads.toString());
    }

    @Test
    void readsHexNidsAsJdk17PrintsThemAndSkipsJvmInternalThreads() {
        String dump = String.join("\n",
                "\"io-0\" #23 prio=5 os_prio=0 cpu=0.10ms elapsed=0.01s tid=0x00007f3c2c1d8000 nid=0x3039 waiting",
                "   java.lang.Thread.State: WAITING (parking)",
                "\"VM Thread\" os_prio=0 cpu=1.20ms elapsed=0.20s tid=0x00007f3c2c0b1000 nid=0x302a runnable",
                "\"io-1\" #24 [12346] daemon prio=5 os_prio=0 cpu=0.10ms elapsed=0.01s tid=0x00007f3c nid=12346 runnable");
        assertEquals(List.of(new RunningThread(0x3039, "io-0"), new RunningThread(12346, "io-1")),
                ThreadDump.parse(dump));
    }
}
