// SPDX-License-Identifier: Apache-2.0
package io.numaspread.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.numaspread.CpuSet;
import io.numaspread.testing.MachineShape;
import io.numaspread.testing.SysfsFixture;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TopologyCommandTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path root;

    @Test
    void jsonOfACopiedManaTree() throws Exception {
        SysfsFixture.write(MachineShape.mana().withOffline(CpuSet.of(7)), root);
        CliRun run = CliRun.of("topology", "--json", "--sysfs-root", root.toString());
        assertEquals(0, run.exitCode(), run.err());
        JsonNode topology = JSON.readTree(run.out());
        assertEquals("sysfs", topology.get("backend").asText());
        assertEquals(List.of(0, 1, 2, 3), ints(topology.at("/nodes/0/cpus")));
        assertEquals(List.of(4, 5, 6), ints(topology.at("/nodes/1/cpus")));
        assertEquals(List.of(21, 10), ints(topology.at("/nodes/1/distances")));
        assertEquals(List.of(6), ints(topology.at("/cpus/6/siblings")));
        assertEquals(1, topology.at("/cpus/6/package").asInt());
        assertEquals(List.of(0, 1, 2, 3, 4, 5, 6), ints(topology.get("online")));
        assertEquals(ints(topology.get("online")), ints(topology.get("allowed")));
        assertTrue(topology.get("isolated").isArray());
    }

    @Test
    void liveHostJson() throws Exception {
        CliRun run = CliRun.of("topology", "--json");
        assertEquals(0, run.exitCode(), run.err());
        JsonNode topology = JSON.readTree(run.out());
        String online =
                Files.readString(Path.of("/sys/devices/system/cpu/online")).strip();
        assertEquals(
                CpuSet.parse(online).toArray().length, topology.get("online").size());
        assertFalse(topology.get("nodes").isEmpty());
    }

    @Test
    void humanView() {
        SysfsFixture.write(MachineShape.kunpeng920(), root);
        CliRun run = CliRun.of("topology", "--sysfs-root", root.toString());
        assertEquals(0, run.exitCode(), run.err());
        assertTrue(run.out().contains("   2  48-71"), run.out());
        assertTrue(run.out().contains("   2   32   25   10   16"), run.out());
    }

    @Test
    void badTreeExitsTwoWithOneLineNamingTheFile() {
        SysfsFixture.write(MachineShape.mana(), root);
        SysfsFixture.write(root, "devices/system/node/node0/cpulist", "0-");
        CliRun run = CliRun.of("topology", "--sysfs-root", root.toString());
        assertEquals(2, run.exitCode());
        assertEquals(1, run.err().strip().lines().count(), run.err());
        assertTrue(
                run.err()
                        .contains(root.resolve("devices/system/node/node0/cpulist")
                                .toString()),
                run.err());
        assertFalse(run.err().contains("\tat "), run.err());
    }

    @Test
    void notASysfsTreeExitsTwo() {
        CliRun run = CliRun.of("topology", "--sysfs-root", root.toString());
        assertEquals(2, run.exitCode());
        assertTrue(run.err().contains("is no sysfs tree"), run.err());
    }

    @Test
    void unknownFlagExitsTwo() {
        CliRun run = CliRun.of("topology", "--frobnicate");
        assertEquals(2, run.exitCode());
        assertTrue(run.err().contains("--frobnicate"), run.err());
    }

    private static List<Integer> ints(JsonNode array) {
        List<Integer> values = new ArrayList<>();
        array.forEach(value -> values.add(value.asInt()));
        return values;
    }
}
