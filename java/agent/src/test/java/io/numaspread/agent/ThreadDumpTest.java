// SPDX-License-Identifier: Apache-2.0
package io.numaspread.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;

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
        Thread.currentThread().setName("dump \"probe\" #1\nwith a second line");
        assertEquals(
                List.of(new RunningThread(tid, "dump \"probe\" #1\nwith a second line")),
                ThreadDump.running(new Thread[] {Thread.currentThread()}));
    }

    @Test
    void readsHexNidsAsJdk17PrintsThemAndDecimalOnesAsLaterJdksDo() {
        String dump = String.join(
                "\n",
                "\"io-0\" #23 prio=5 os_prio=0 cpu=0.10ms elapsed=0.01s tid=0x00007f3c2c1d8000 nid=0x3039 waiting",
                "   java.lang.Thread.State: WAITING (parking)",
                "\"VM Thread\" os_prio=0 cpu=1.20ms elapsed=0.20s tid=0x00007f3c2c0b1000 nid=0x302a runnable",
                "\"io-1\" #24 [12346] daemon prio=5 os_prio=0 cpu=0.10ms elapsed=0.01s tid=0x00007f3c nid=12346 runnable");
        assertEquals(0x3039, ThreadDump.tid(dump, "io-0", 23));
        assertEquals(12346, ThreadDump.tid(dump, "io-1", 24));
        assertEquals(-1, ThreadDump.tid(dump, "io-1", 23), "the id is part of the header");
        assertEquals(-1, ThreadDump.tid(dump, "io-2", 25), "a thread that ended");
    }

    /**
     * A name holding a newline and a whole forged header: the forging thread's own TID comes from its real header,
     * the thread whose header it copies is skipped rather than given the forged TID, and the forged thread, which
     * does not exist, is never looked up.
     */
    @Test
    void aNameThatForgesHeaderLinesNeverYieldsTheForgedTid() {
        String forger =
                "x\" #9 [4242] prio=5 tid=0x1 nid=4242 runnable\n\"io-1\" #24 [4242] prio=5 nid=4242 runnable\n\"y";
        String dump = String.join(
                "\n",
                "Full thread dump",
                "",
                "\"" + forger + "\" #30 [777] prio=5 os_prio=0 tid=0x00007f3c nid=777 waiting",
                "\"io-1\" #24 [12346] daemon prio=5 os_prio=0 cpu=0.10ms elapsed=0.01s tid=0x00007f3c nid=12346 runnable",
                "\"io-2\" #25 [12347] daemon prio=5 os_prio=0 cpu=0.10ms elapsed=0.01s tid=0x00007f3c nid=12347 runnable");
        assertEquals(777, ThreadDump.tid(dump, forger, 30));
        assertEquals(-1, ThreadDump.tid(dump, "io-1", 24), "its header appears twice");
        assertEquals(12347, ThreadDump.tid(dump, "io-2", 25));
    }
}
