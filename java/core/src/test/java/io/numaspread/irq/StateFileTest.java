// SPDX-License-Identifier: Apache-2.0
package io.numaspread.irq;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.numaspread.NumaspreadException;
import io.numaspread.kernel.InterfaceName;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class StateFileTest {
    @TempDir
    Path dir;

    private static final StateFile.State STATE = new StateFile.State(new InterfaceName("eth0"), List.of(
            new StateFile.Saved(Target.irq(38, "virtio2-input.0"), "0-1"),
            new StateFile.Saved(Target.irq(39, "name \"quoted\" \\ odd"), "0,2-3"),
            new StateFile.Saved(Target.xps(new InterfaceName("eth0"), 0), "00000000,00000003")));

    @Test
    void roundTripsExactlyThroughAnAtomicReplace() throws IOException {
        Path file = dir.resolve("sub/eth0.json");
        StateFile.write(file, STATE);
        StateFile.write(file, STATE);
        assertEquals(Optional.of(STATE), StateFile.read(file));
        try (var entries = Files.list(file.getParent())) {
            assertEquals(List.of(file), entries.toList(), "no temporary file is left behind");
        }
    }

    @Test
    void mergingKeepsTheFirstValueOfEachFile() {
        StateFile.State merged = STATE.mergedWith(List.of(new StateFile.Saved(Target.irq(38, "virtio2-input.0"), "1"),
                new StateFile.Saved(Target.irq(40, "virtio2-input.1"), "0")));
        assertEquals("0-1", merged.find(Target.irq(38, "virtio2-input.0")).orElseThrow().value());
        assertEquals("0", merged.find(Target.irq(40, "virtio2-input.1")).orElseThrow().value());
        assertEquals(4, merged.saved().size());
    }

    @Test
    void aFileThatIsNoStateFileIsNamed() throws IOException {
        Path file = dir.resolve("eth0.json");
        for (String content : List.of("", "{", "{\"version\": 2, \"interface\": \"eth0\", \"saved\": []}",
                "{\"version\": 1, \"interface\": \"../x\", \"saved\": []}", "[1, 2]")) {
            Files.writeString(file, content);
            NumaspreadException e = assertThrows(NumaspreadException.class, () -> StateFile.read(file), content);
            assertEquals(NumaspreadException.Kind.BAD_INPUT, e.kind());
            assertTrue(e.getMessage().contains(file.toString()), e.getMessage());
        }
        assertEquals(Optional.empty(), StateFile.read(dir.resolve("absent.json")));
    }
}
