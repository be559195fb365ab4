// SPDX-License-Identifier: Apache-2.0
package io.numaspread.cli;

import io.numaspread.testing.NicFixture;
import java.nio.file.Path;

/** Threads of a made-up process in a /proc tree: what {@code --threads} reads. */
final class ProcTasks {
    private ProcTasks() {}

    /** Thread {@code tid} of {@code pid}, named {@code comm}, last on {@code cpu}, allowed {@code allowed}. */
    static void write(Path proc, int pid, int tid, String comm, int cpu, String allowed) {
        Path task = proc.resolve(pid + "/task/" + tid);
        StringBuilder stat = new StringBuilder(tid + " (" + comm + ") S 1 " + pid + " " + pid);
        // Fields 7 to 38 are irrelevant here; field 39 is the processor.
        for (int field = 7; field <= 38; field++) {
            stat.append(" 0");
        }
        stat.append(' ').append(cpu).append(" 0 0 0 0 0\n");
        NicFixture.file(task.resolve("comm"), comm);
        NicFixture.file(task.resolve("stat"), stat.toString());
        NicFixture.file(
                task.resolve("status"),
                "Name:\t" + comm + "\nCpus_allowed:\tff\nCpus_allowed_list:\t" + allowed + "\n");
    }
}
