// SPDX-License-Identifier: Apache-2.0
package io.numaspread.nic;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import org.junit.jupiter.api.Test;

class InterruptTableTest {
    private static final String TABLE = String.join(
            "\n",
            "           CPU0       CPU1       ",
            "  0:         44          0   IO-APIC   2-edge      timer",
            " 38:          0       6644 PCI-MSIX-0000:00:03.0   1-edge      virtio2-input.0",
            " 67:          5          0  PCI-MSI 67633153-edge      eth0-TxRx-0",
            " 70:          1          2  IR-PCI-MSI 524288-edge      mlx5_comp0@pci:0000:08:00.0",
            " 80:          3          4  ITS-MSI 524288 Edge      mana_q0@pci:7870:00:00.0",
            " 90:          1          1  PCI-MSI-edge      eth1",
            " 91:          0          0  PCI-MSI 12-edge      ehci_hcd:usb1, uhci_hcd:usb2",
            " 92:          7          0  PCI-MSI 13-edge",
            "NMI:          0          0   Non-maskable interrupts",
            "ERR:          0",
            "");

    @Test
    void namesEveryKernelsChipColumns() {
        InterruptTable table = InterruptTable.parse(TABLE);
        assertEquals("timer", table.name(0));
        assertEquals("virtio2-input.0", table.name(38));
        assertEquals("eth0-TxRx-0", table.name(67));
        assertEquals("mlx5_comp0@pci:0000:08:00.0", table.name(70));
        assertEquals("mana_q0@pci:7870:00:00.0", table.name(80));
        assertEquals("eth1", table.name(90));
        assertEquals("ehci_hcd:usb1, uhci_hcd:usb2", table.name(91));
        assertEquals("", table.name(92), "counts but no handler: no name");
        assertEquals("", table.name(12345), "absent");
    }

    @Test
    void countsBelongToTheHeadersCpus() {
        String offlineCpu1 = "           CPU0       CPU2\n 38:          5       6644 PCI-MSI 1-edge  virtio2-input.0\n";
        InterruptTable table = InterruptTable.parse(offlineCpu1);
        assertEquals(Map.of(0, 5L, 2, 6644L), table.line(38).orElseThrow().countsByCpu());
        assertEquals(6649L, table.line(38).orElseThrow().total());
    }

    @Test
    void aShortLineIsAnErrorNamingTheIrq() {
        IllegalArgumentException e = assertThrows(
                IllegalArgumentException.class,
                () -> InterruptTable.parse("  CPU0 CPU1\n 38:  5  PCI-MSI 1-edge virtio2-input.0\n"));
        assertTrue(e.getMessage().contains("IRQ 38"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> InterruptTable.parse(" 38: 5\n"));
    }
}
