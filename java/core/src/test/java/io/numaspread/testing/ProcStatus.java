// SPDX-License-Identifier: Apache-2.0
package io.numaspread.testing;

import io.numaspread.CpuSet;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** What the kernel reports for a thread in {@code /proc/self/task/TID/status}, read independently of any backend. */
public final class ProcStatus {
    private ProcStatus() {}

    public static CpuSet cpusAllowed(int tid) {
        Path status = Path.of("/proc/self/task/" + tid + "/status");
        try {
            return Files.readAllLines(status).stream()
                    .filter(line -> line.startsWith("Cpus_allowed_list:"))
                    .map(line -> CpuSet.parse(line.substring("Cpus_allowed_list:".length())))
                    .findFirst()
                    .orElseThrow(() -> new AssertionError(status + " has no Cpus_allowed_list"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
