// SPDX-License-Identifier: Apache-2.0
package io.numaspread.watch;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.numaspread.CpuSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** What a check says changed, in the words of its one line. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class NicSnapshotTest {
    private static final Map<Integer, String> VECTORS = Map.of(38, "virtio0-input.0", 39, "virtio0-output.0",
            40, "virtio0-input.1", 41, "virtio0-output.1");
    private static final NicSnapshot BEFORE = new NicSnapshot(CpuSet.parse("0-7"), CpuSet.EMPTY, VECTORS, 2,
            List.of(CpuSet.parse("4-5"), CpuSet.parse("6-7")));

    @Test
    void nothingChangedSaysNothing() {
        assertEquals(List.of(), BEFORE.differences(BEFORE));
    }

    @Test
    void eachChangeIsOnePhrase() {
        NicSnapshot after = new NicSnapshot(CpuSet.parse("0-4,6-7"), CpuSet.parse("2-3"),
                Map.of(50, "virtio0-input.0", 51, "virtio0-output.0", 52, "virtio0-input.1", 60, "virtio0-output.1"),
                1, List.of(CpuSet.parse("4"), CpuSet.parse("6-7")));
        assertEquals(List.of("CPUs online 0-7 -> 0-4,6-7", "exclusive CPUs none -> 2-3", "active queues 2 -> 1",
                "queue IRQs 38-41 -> 50-52,60"), after.differences(BEFORE));
    }

    @Test
    void aPlanThatChangedAloneIsNamed() {
        NicSnapshot after = new NicSnapshot(BEFORE.online(), BEFORE.keptFree(), VECTORS, 2,
                List.of(CpuSet.parse("4"), CpuSet.parse("6")));
        assertEquals(List.of("plan [4-5, 6-7] -> [4, 6]"), after.differences(BEFORE));
        NicSnapshot renamed = new NicSnapshot(BEFORE.online(), BEFORE.keptFree(), Map.of(38, "virtio1-input.0",
                39, "virtio1-output.0", 40, "virtio1-input.1", 41, "virtio1-output.1"), 2, BEFORE.plan());
        assertEquals(List.of("queue vectors renamed"), renamed.differences(BEFORE));
        assertEquals("none", NicSnapshot.irqs(Map.of()));
        assertEquals("7", NicSnapshot.irqs(Map.of(7, "a")));
    }
}
