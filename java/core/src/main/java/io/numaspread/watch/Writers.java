// SPDX-License-Identifier: Apache-2.0
package io.numaspread.watch;

import io.numaspread.irq.Irqbalance;
import io.numaspread.kernel.KernelText;
import io.numaspread.kernel.ProcessFiles;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Who else writes a fought-over IRQ. The kernel does not record a writer, so this names the likely ones: a
 * running irqbalance (unless it bans the IRQ), and any process whose command line names the IRQ's
 * {@code /proc/irq/N/} directory or {@code smp_affinity} (a vendor script or a shell loop).
 */
public final class Writers {
    private Writers() {}

    /**
     * One likely writer: a running irqbalance, or a process whose command line ({@code commandLine}, its
     * arguments joined by spaces, escaped) names the IRQ; empty for irqbalance.
     */
    public record Writer(int pid, boolean irqbalance, String commandLine) {
        public static Writer irqbalance(int pid) {
            return new Writer(pid, true, "");
        }

        public static Writer process(int pid, String commandLine) {
            return new Writer(pid, false, commandLine);
        }
    }

    /** The irqbalance that does not ban {@code irq}, then the processes whose command line names it. */
    public static List<Writer> suspects(Path procRoot, int irq) {
        List<Writer> suspects = new ArrayList<>();
        Irqbalance.find(procRoot).stream()
                .filter(process -> !process.bannedIrqs().contains(irq))
                .forEach(process -> suspects.add(Writer.irqbalance(process.pid())));
        long self = ProcessHandle.current().pid();
        try {
            for (int pid : ProcessFiles.pids(procRoot)) {
                String cmdline = ProcessFiles.read(procRoot, pid, "cmdline");
                String line = KernelText.escape(cmdline.replace('\0', ' ').strip());
                if (pid != self && names(line, irq)) {
                    suspects.add(Writer.process(pid, line));
                }
            }
        } catch (IOException e) {
            // /proc could not be listed: there are no suspects to name, and the caller says "unknown".
        }
        return suspects;
    }

    static boolean names(String commandLine, int irq) {
        return commandLine.contains("/irq/" + irq + "/") || commandLine.contains("smp_affinity");
    }
}
