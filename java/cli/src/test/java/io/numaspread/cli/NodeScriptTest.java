// SPDX-License-Identifier: Apache-2.0
package io.numaspread.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.numaspread.CpuSet;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * deploy/bin/numaspread-node's exclude list, run for real with sh: the DaemonSet keeps queue IRQs off these
 * CPUs. The state files are written as the kubelet's static CPU manager writes them.
 */
class NodeScriptTest {
    private static final Path SCRIPT = Repository.path("deploy/bin/numaspread-node");

    /** Two Guaranteed pods, one with two containers; the checksum is a bare number, not a cpulist. */
    private static final String STATIC_STATE = "{\"policyName\":\"static\",\"defaultCpuSet\":\"0,6-7\",\"entries\":{"
            + "\"8f2c1b9e-3d4a-4c5b-9e6f-7a8b9c0d1e2f\":{\"server\":\"1-2\"},"
            + "\"d41d8cd9-8f00-4b20-9e98-0998ecf8427e\":{\"db\":\"3\",\"sidecar\":\"4-5\"}},"
            + "\"checksum\":2887318035}";

    @TempDir
    Path directory;

    @Test
    void exclusiveCpusOfEveryContainerPlusTheConfiguredOnes() throws Exception {
        assertEquals(CpuSet.parse("0-5"), exclude(STATIC_STATE, "0"));
    }

    @Test
    void theSharedPoolIsNotExcluded() throws Exception {
        assertEquals(CpuSet.parse("1-5"), exclude(STATIC_STATE, ""));
    }

    @Test
    void indentedStateReadsTheSame() throws Exception {
        String indented = new ObjectMapper().readTree(STATIC_STATE).toPrettyString();
        assertEquals(CpuSet.parse("1-5,8"), exclude(indented, "8"));
    }

    @Test
    void noneAndEmptyStaticPoliciesExcludeOnlyTheConfiguredCpus() throws Exception {
        assertEquals(CpuSet.parse("2"), exclude("{\"policyName\":\"none\",\"defaultCpuSet\":\"\",\"checksum\":1353318690}", "2"));
        assertEquals(CpuSet.EMPTY,
                exclude("{\"policyName\":\"static\",\"defaultCpuSet\":\"0-7\",\"checksum\":14413152}", ""));
    }

    @Test
    void withoutAStateFileOnlyTheConfiguredCpus() throws Exception {
        assertEquals(CpuSet.parse("0-1,8"), run(Map.of("CPU_MANAGER_STATE", directory.resolve("absent").toString(),
                "EXCLUDE_CPUS", "0-1,8")));
        assertEquals(CpuSet.EMPTY, run(Map.of("CPU_MANAGER_STATE", directory.resolve("absent").toString())));
    }

    private CpuSet exclude(String state, String configured) throws Exception {
        Path file = Files.writeString(directory.resolve("cpu_manager_state"), state);
        return run(Map.of("CPU_MANAGER_STATE", file.toString(), "EXCLUDE_CPUS", configured));
    }

    /** Runs `numaspread-node exclude` and parses what it prints as the cpulist that --exclude receives. */
    private static CpuSet run(Map<String, String> environment) throws IOException, InterruptedException {
        ProcessBuilder builder = new ProcessBuilder("sh", SCRIPT.toString(), "exclude");
        builder.environment().putAll(environment);
        Process process = builder.redirectError(ProcessBuilder.Redirect.INHERIT).start();
        String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        assertEquals(0, process.waitFor(), out);
        return out.isEmpty() ? CpuSet.EMPTY : CpuSet.parse(out);
    }
}
