// SPDX-License-Identifier: Apache-2.0
package io.numaspread.cli.containers;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.numaspread.CpuSet;
import io.numaspread.testing.NeedsContainerEngine;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** A container limited to CPU 1 (--cpuset-cpus=1) on a host with more CPUs. */
@NeedsContainerEngine
class CpusetContainerIT {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static NumaspreadContainer container;

    @BeforeAll
    static void start() {
        container = NumaspreadContainer.start(host -> host.withCpusetCpus("1"));
    }

    @AfterAll
    static void stop() {
        container.close();
    }

    @Test
    void topologyReportsTheCpusetAsAllowedAndTheHostsCpusAsOnline() throws Exception {
        JsonNode inside = JSON.readTree(
                container.numaspread("topology", "--json").expectSuccess().out());
        JsonNode host = JSON.readTree(
                HostCommands.numaspread("topology", "--json").expectSuccess().out());
        assertEquals(List.of(1), ints(inside.get("allowed")));
        assertEquals(
                ints(CpuSet.parse(Files.readString(Path.of("/sys/devices/system/cpu/online"))
                        .strip())),
                ints(inside.get("online")));
        // The cpuset narrows what the process may use, not the machine it sees.
        for (String field : List.of("backend", "nodes", "cpus", "online", "isolated")) {
            assertEquals(host.get(field), inside.get(field), field);
        }
    }

    @Test
    void pinnedThreadFactoryPutsEveryThreadOnTheCpusetAndPlansNothingOutsideIt() {
        NumaspreadContainer.Run run =
                container.testProgram(List.of(), PinnedFactoryProbe.class, "4").expectSuccess();
        List<String> lines = run.out().lines().toList();
        assertEquals(
                List.of("plan 1", "plan 1", "plan 1", "plan 1"),
                lines.stream().filter(line -> line.startsWith("plan ")).toList(),
                run.toString());
        assertEquals(
                List.of("worker-0 1", "worker-1 1", "worker-2 1", "worker-3 1"),
                lines.stream().filter(line -> line.startsWith("worker-")).toList(),
                run.toString());
        assertEquals(
                List.of("pinned worker-0 1", "pinned worker-1 1", "pinned worker-2 1", "pinned worker-3 1"),
                lines.stream()
                        .filter(line -> line.matches("(pinned|failed) .*"))
                        .toList(),
                run.toString());
    }

    static List<Integer> ints(JsonNode array) {
        List<Integer> ints = new ArrayList<>();
        array.forEach(node -> ints.add(node.asInt()));
        return ints;
    }

    static List<Integer> ints(CpuSet cpus) {
        return cpus.stream().boxed().toList();
    }
}
