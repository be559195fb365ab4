// SPDX-License-Identifier: Apache-2.0
package io.numaspread.nic;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.numaspread.kernel.InterfaceName;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class QueueNamingTest {
    /** Names for IRQs 100, 101, ... in order. */
    private static Map<Integer, String> names(String... names) {
        Map<Integer, String> byIrq = new LinkedHashMap<>();
        for (int i = 0; i < names.length; i++) {
            byIrq.put(100 + i, names[i]);
        }
        return byIrq;
    }

    /** "Q" for a queue vector of queue Q, "c" for control, "?" for other. */
    private static String roles(QueueNaming.Grouping grouping) {
        StringBuilder roles = new StringBuilder();
        for (NicVector vector : grouping.vectors()) {
            roles.append(
                    switch (vector.role()) {
                        case QUEUE -> Integer.toString(vector.queue());
                        case CONTROL -> "c";
                        case OTHER -> "?";
                    });
        }
        return roles.toString();
    }

    private static QueueNaming.Grouping group(String iface, String... names) {
        return QueueNaming.group(new InterfaceName(iface), names(names));
    }

    @Test
    void virtioInputAndOutputOfAQueueShareIt() {
        QueueNaming.Grouping g = group(
                "eth0",
                "virtio2-config",
                "virtio2-input.0",
                "virtio2-output.0",
                "virtio2-input.1",
                "virtio2-output.1",
                "virtio2-control");
        assertEquals("virtio", g.scheme());
        assertEquals("c0011c", roles(g));
        assertEquals(List.of(0, 1), g.queues());
    }

    @Test
    void intelWithDriverPrefixAndSeparateRxTx() {
        assertEquals(
                "c012",
                roles(group(
                        "eth0", "i40e-0000:3b:00.0:misc", "i40e-eth0-TxRx-0", "i40e-eth0-TxRx-1", "i40e-eth0-TxRx-2")));
        assertEquals(
                "c0011",
                roles(group(
                        "ens1f0",
                        "ice-0000:5e:00.0:misc",
                        "ice-ens1f0-rx-0",
                        "ice-ens1f0-tx-0",
                        "ice-ens1f0-rx-1",
                        "ice-ens1f0-tx-1")));
        QueueNaming.Grouping ixgbe = group("eth2", "eth2-TxRx-0", "eth2-TxRx-1", "eth2");
        assertEquals("01c", roles(ixgbe));
        assertTrue(ixgbe.scheme().contains("ixgbe"), ixgbe.scheme());
    }

    @Test
    void mellanoxCompletionVectorsAreQueuesAndAsyncIsControl() {
        QueueNaming.Grouping g = group(
                "enp8s0f0",
                "mlx5_async0@pci:0000:08:00.0",
                "mlx5_comp0@pci:0000:08:00.0",
                "mlx5_comp1@pci:0000:08:00.0",
                "mlx5_comp2@pci:0000:08:00.0");
        assertEquals("mlx5", g.scheme());
        assertEquals("c012", roles(g));
    }

    @Test
    void manaQueuesAndHardwareChannel() {
        QueueNaming.Grouping g =
                group("eth1", "mana_hwc@pci:7870:00:00.0", "mana_q0@pci:7870:00:00.0", "mana_q1@pci:7870:00:00.0");
        assertEquals("mana", g.scheme());
        assertEquals("c01", roles(g));
    }

    @Test
    void bnxtEnaAndVmxnet3() {
        assertEquals("01", roles(group("ens5", "ens5-TxRx-0", "ens5-TxRx-1")));
        assertEquals("c01", roles(group("ens5", "ena-mgmnt@pci:0000:00:05.0", "ens5-Tx-Rx-0", "ens5-Tx-Rx-1")));
        assertEquals("01c", roles(group("ens192", "ens192-rxtx-0", "ens192-rxtx-1", "ens192-event-2")));
    }

    @Test
    void anotherInterfacesNamesAreNotOurs() {
        QueueNaming.Grouping g = group("eth0", "i40e-eth01-TxRx-0", "i40e-eth01-TxRx-1");
        assertFalse(g.recognised());
    }

    @Test
    void aNameTheSchemeDoesNotExplainIsLeftAlone() {
        assertEquals("01?", roles(group("eth0", "eth0-TxRx-0", "eth0-TxRx-1", "eth0-fdir")));
    }

    @Test
    void unknownNamingMakesEveryVectorAQueueInVectorOrder() {
        QueueNaming.Grouping g = group("eth0", "foo-a", "foo-b", "foo-c");
        assertFalse(g.recognised());
        assertEquals(QueueNaming.FALLBACK, g.scheme());
        assertEquals("012", roles(g));
        assertEquals(
                List.of(100, 101, 102), g.vectors().stream().map(NicVector::irq).toList());
    }
}
