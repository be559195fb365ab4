// SPDX-License-Identifier: Apache-2.0
package io.numaspread.watch;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The writers named for a fought-over IRQ, from a stand-in /proc whose processes are written as the kernel does. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class WritersTest {
    @TempDir
    Path proc;

    private void process(int pid, String comm, String... argv) throws IOException {
        Path dir = Files.createDirectories(proc.resolve(Integer.toString(pid)));
        Files.writeString(dir.resolve("comm"), comm + "\n");
        Files.writeString(dir.resolve("cmdline"), String.join("\0", argv) + "\0");
        Files.writeString(dir.resolve("environ"), "PATH=/usr/bin\0");
    }

    @Test
    void namesAnIrqbalanceThatDoesNotBanItAndAShellLoopThatWritesIt() throws IOException {
        process(412, "irqbalance", "/usr/sbin/irqbalance", "--foreground");
        process(500, "irqbalance", "/usr/sbin/irqbalance", "--banirq=38");
        process(977, "bash", "bash", "-c", "while true; do echo 0 > /proc/irq/38/smp_affinity_list\nsleep 1; done");
        process(978, "bash", "bash", "-c", "cat /proc/irq/380/node");
        Files.createDirectories(proc.resolve("979")); // exited while we looked: no files
        assertEquals(
                List.of(
                        Writers.Writer.irqbalance(412),
                        Writers.Writer.process(
                                977, "bash -c while true; do echo 0 > /proc/irq/38/smp_affinity_list\\nsleep 1; done")),
                Writers.suspects(proc, 38));
    }
}
