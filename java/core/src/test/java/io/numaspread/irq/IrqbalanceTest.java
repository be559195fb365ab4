// SPDX-License-Identifier: Apache-2.0
package io.numaspread.irq;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.numaspread.NumaspreadException;
import io.numaspread.testing.NicFixture;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class IrqbalanceTest {
    @TempDir
    Path proc;

    @Test
    void aRunningIrqbalanceIsRefusedWithTheFix() {
        NicFixture.process(proc, 1, "systemd", "/sbin/init");
        NicFixture.process(proc, 612, "irqbalance", "/usr/sbin/irqbalance", "--foreground", "--banirq=38");
        NumaspreadException e = assertThrows(NumaspreadException.class, () -> Irqbalance.refuseIfRunning(proc, List.of(38, 39)));
        assertEquals(NumaspreadException.Kind.REFUSED, e.kind());
        assertTrue(e.getMessage().contains("pid 612") && e.getMessage().contains("--banirq=39")
                && !e.getMessage().contains("--banirq=38") && e.getMessage().contains("systemctl stop irqbalance")
                && e.getMessage().contains("IRQBALANCE_BANNED_CPULIST") && e.getMessage().contains("--force"),
                e.getMessage());
    }

    @Test
    void irqbalanceThatBansEveryIrqIsNoDanger() {
        NicFixture.process(proc, 612, "irqbalance", "irqbalance", "--banirq", "38", "-i", "39");
        assertDoesNotThrow(() -> Irqbalance.refuseIfRunning(proc, List.of(38, 39)));
    }

    @Test
    void noIrqbalanceNoRefusal() {
        NicFixture.process(proc, 1, "systemd", "/sbin/init");
        NicFixture.file(proc.resolve("interrupts"), "CPU0\n");
        assertDoesNotThrow(() -> Irqbalance.refuseIfRunning(proc, List.of(38)));
        assertTrue(Irqbalance.find(proc).isEmpty());
    }
}
