// SPDX-License-Identifier: Apache-2.0
package io.numaspread.watch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.numaspread.CpuSet;
import io.numaspread.NumaspreadException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The kubelet's cpu_manager_state, in the format its static policy writes (kubelet's checkpoint v2). */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class KubeletCpuStateTest {
    private static final Path FILE = Path.of("/var/lib/kubelet/cpu_manager_state");

    @Test
    void theExclusiveCpusAreEveryContainersCpus() {
        String state = "{\"policyName\":\"static\",\"defaultCpuSet\":\"0-1,8-15\",\"entries\":{"
                + "\"0f6c1f1e-5b0a-4f7e-9a55-1d2c3b4a5e6f\":{\"server\":\"2-3\",\"sidecar\":\"7\"},"
                + "\"a4b9c2d1-0000-4c1e-8f00-123456789abc\":{\"db\":\"4-5\"}},\"checksum\":3912345}";
        assertEquals(CpuSet.parse("2-5,7"), KubeletCpuState.parse(FILE, state));
    }

    @Test
    void noEntriesOrTheNonePolicyMeanNone() {
        assertEquals(
                CpuSet.EMPTY,
                KubeletCpuState.parse(
                        FILE, "{\"policyName\":\"none\",\"defaultCpuSet\":\"\",\"checksum\":1353318690}"));
        assertEquals(
                CpuSet.EMPTY,
                KubeletCpuState.parse(
                        FILE, "{\"policyName\":\"static\",\"defaultCpuSet\":\"0-7\",\"entries\":{},\"checksum\":1}"));
    }

    @Test
    void anAbsentFileMeansNoneAndAnUnreadableOneNamesIt(@TempDir Path directory) throws IOException {
        assertEquals(CpuSet.EMPTY, KubeletCpuState.exclusiveCpus(directory.resolve("cpu_manager_state")));
        NumaspreadException e = assertThrows(NumaspreadException.class, () -> KubeletCpuState.exclusiveCpus(directory));
        assertEquals(NumaspreadException.Kind.BAD_INPUT, e.kind());
        assertEquals(
                "cannot read the kubelet's CPU state " + directory
                        + ": not a regular file (a directory, FIFO, socket or device)",
                e.getMessage());
        Files.writeString(directory.resolve("half"), "{\"entries\":{\"pod\":{\"c\":\"2-");
        assertThrows(NumaspreadException.class, () -> KubeletCpuState.exclusiveCpus(directory.resolve("half")));
    }

    @Test
    void aBadCpuListNamesThePodAndContainer() {
        NumaspreadException e = assertThrows(
                NumaspreadException.class,
                () -> KubeletCpuState.parse(FILE, "{\"entries\":{\"pod-1\":{\"server\":\"3-x\"}}}"));
        assertEquals(
                FILE + ": pod pod-1 container server: ",
                e.getMessage().substring(0, (FILE + ": pod pod-1 container server: ").length()));
        assertThrows(NumaspreadException.class, () -> KubeletCpuState.parse(FILE, "[1, 2]"));
        assertThrows(NumaspreadException.class, () -> KubeletCpuState.parse(FILE, "{\"entries\": 3}"));
    }
}
