// SPDX-License-Identifier: Apache-2.0
package io.numaspread.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.numaspread.kernel.KernelPaths;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code --proc-irq}: the live kernel's /proc/irq mounted elsewhere, as the DaemonSet mounts it (a container's own
 * is read-only, and no mount below /proc is allowed). Its writes into the host's IRQs are checked in a container
 * (DaemonSetContainerIT); here, what it refuses and what it changes in the paths.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ProcIrqOptionTest {
    @Test
    void aDirectoryThatIsNoProcIrqIsRefusedInOneLine(@TempDir Path directory) {
        for (String command : new String[] {"apply", "restore", "watch"}) {
            CliRun run = CliRun.of(command, "--nic", "eth0", "--proc-irq", directory.toString());
            assertEquals(2, run.exitCode(), run.err());
            assertEquals(
                    "numaspread: --proc-irq " + directory + " is not a /proc/irq: it has no default_smp_affinity"
                            + " file\n",
                    run.err(),
                    command);
        }
    }

    @Test
    void itIsTheLiveKernelsAndNotForStandInTrees(@TempDir Path directory) {
        CliRun run = CliRun.of(
                "apply",
                "--nic",
                "eth0",
                "--sysfs-root",
                directory.toString(),
                "--proc-root",
                directory.toString(),
                "--proc-irq",
                "/proc/irq");
        assertEquals(2, run.exitCode(), run.err());
        assertEquals(
                "numaspread: --proc-irq /proc/irq names where the live kernel's /proc/irq is mounted; stand-in trees"
                        + " (--proc-root, --sysfs-root) have their own irq directory\n",
                run.err());
    }

    @Test
    void onlyTheIrqFilesMoveAndTheUndoCommandNamesTheDirectory() {
        KernelPaths paths = KernelPaths.LIVE.withIrqRoot(Path.of("/host/proc/irq"));
        assertTrue(paths.isLive(), "still the live kernel: NAPI features and /run/numaspread stay");
        assertEquals(Path.of("/host/proc/irq/38/smp_affinity_list"), paths.smpAffinityList(38));
        assertEquals(Path.of("/host/proc/irq/38/effective_affinity_list"), paths.effectiveAffinityList(38));
        assertEquals(Path.of("/proc/interrupts"), paths.interrupts());
        assertEquals(
                "numaspread restore --state /run/numaspread/eth0.json --proc-irq /host/proc/irq",
                CommandLines.restore(paths, Path.of("/run/numaspread/eth0.json")));
    }
}
