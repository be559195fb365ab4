// SPDX-License-Identifier: Apache-2.0
package io.numaspread.kernel;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * io_uring_allowed() as the kernel decides it: sysctl values a test cannot set on the live kernel without changing
 * it for every process, in proc trees; the live kernel's own files are judged too.
 */
@Timeout(value = 10, unit = TimeUnit.SECONDS)
class IoUringSysctlTest {
    private static final Path SYSCTL = Path.of("/proc/sys/kernel");
    /** CAP_SYS_ADMIN (bit 21) alone, and no capability. */
    private static final String ADMIN = "CapEff:\t0000000000200000\n";

    private static final String NONE = "CapEff:\t0000000000000000\n";

    private static Optional<String> judge(String disabled, String group, String status) {
        return IoUringSysctl.judge(disabled, group, status, SYSCTL);
    }

    @Test
    void zeroAllowsEveryProcessAndTwoNone() {
        assertEquals(Optional.empty(), judge("0", "-1", NONE));
        assertEquals(
                Optional.of("/proc/sys/kernel/io_uring_disabled is 2: io_uring is disabled for every process"),
                judge("2", "-1", ADMIN));
    }

    @Test
    void oneAllowsCapSysAdminOrTheGroupAlone() {
        assertEquals(Optional.empty(), judge("1", "-1", ADMIN));
        assertEquals(
                Optional.of("/proc/sys/kernel/io_uring_disabled is 1 and io_uring_group is -1: only processes with"
                        + " CAP_SYS_ADMIN may make rings, and this one has none"),
                judge("1", "-1", NONE));
        assertEquals(Optional.empty(), judge("1", "42", NONE + "Gid:\t1000\t1000\t1000\t1000\nGroups:\t27 42\n"));
        assertEquals(Optional.empty(), judge("1", "42", NONE + "Gid:\t1000\t1000\t1000\t42\nGroups:\n"));
        assertEquals(
                Optional.of("/proc/sys/kernel/io_uring_disabled is 1: only processes with CAP_SYS_ADMIN or in group"
                        + " 42 (io_uring_group) may make rings, and this one is neither"),
                judge("1", "42", NONE + "Gid:\t42\t42\t42\t1000\nGroups:\t27\n"));
    }

    @Test
    void aValueTheKernelDoesNotTakeIsNamed() {
        assertEquals(
                Optional.of("/proc/sys/kernel/io_uring_disabled is \"3\", which is none of 0, 1 and 2"),
                judge("3", "-1", ADMIN));
    }

    /** A tree without the sysctl (before 6.6) restricts nothing here; the live kernel (0 on this machine) neither. */
    @Test
    void theFilesAreReadFromTheProcTree(@TempDir Path proc) throws Exception {
        assertEquals(Optional.empty(), IoUringSysctl.refusal(new KernelPaths(proc, Path.of("/sys"))));
        Files.createDirectories(proc.resolve("sys/kernel"));
        Files.createDirectories(proc.resolve("self"));
        Files.writeString(proc.resolve("sys/kernel/io_uring_disabled"), "1\n");
        Files.writeString(proc.resolve("sys/kernel/io_uring_group"), "-1\n");
        Files.writeString(proc.resolve("self/status"), NONE);
        assertEquals(
                Optional.of(proc.resolve("sys/kernel/io_uring_disabled") + " is 1 and io_uring_group is -1: only"
                        + " processes with CAP_SYS_ADMIN may make rings, and this one has none"),
                IoUringSysctl.refusal(new KernelPaths(proc, Path.of("/sys"))));
        assertEquals(Optional.empty(), IoUringSysctl.refusal(KernelPaths.LIVE));
    }
}
