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
    private Writers() {
    }

    /** "irqbalance (pid 412)", "pid 977 (bash -c while true; do echo 0 > /proc/irq/38/smp_affinity_list ...)". */
    public static List<String> suspects(Path procRoot, int irq) {
        List<String> suspects = new ArrayList<>();
        Irqbalance.find(procRoot).stream().filter(process -> !process.bannedIrqs().contains(irq))
                .forEach(process -> suspects.add("irqbalance (pid " + process.pid() + ")"));
        long self = ProcessHandle.current().pid();
        try {
            for (int pid : ProcessFiles.pids(procRoot)) {
                String cmdline = ProcessFiles.read(procRoot, pid, "cmdline");
                String line = KernelText.escape(cmdline.replace('\0', ' ').strip());
                if (pid != self && names(line, irq)) {
                    suspects.add("pid " + pid + " (" + shorten(line) + ")");
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

    private static String shorten(String line) {
        return line.length() <= 100 ? line : line.substring(0, 97) + "...";
    }
}
