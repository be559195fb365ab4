// SPDX-License-Identifier: Apache-2.0
package io.numaspread.nic;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.numaspread.kernel.InterfaceName;
import java.util.List;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** A bond's members' NAPI maps as one, queue q of member m numbered past the members before it. */
@Timeout(10)
class NapiMapTest {
    private static final InterfaceName BOND0 = new InterfaceName("bond0");

    private static NapiInstance napi(int id, int queue) {
        return new NapiInstance(id, OptionalInt.of(queue), OptionalInt.of(id - 8000), OptionalInt.empty());
    }

    private static NapiMap map(String iface, NapiSource source, NapiInstance... instances) {
        return new NapiMap(new InterfaceName(iface), List.of(instances), source, iface + "'s detail");
    }

    @Test
    void eachMembersQueuesFollowThoseOfTheMembersBefore() {
        NapiMap eth0 = map("eth0", NapiSource.NETLINK, napi(8193, 0), napi(8194, 1));
        NapiMap eth1 = map("eth1", NapiSource.NETLINK_DERIVED, napi(8200, 1), napi(8199, 0));
        NapiMap merged = NapiMap.merged(BOND0, List.of(eth0, eth1), List.of(2, 2));
        assertEquals(BOND0, merged.iface());
        assertEquals(
                List.of(8193, 8194, 8199, 8200),
                merged.instances().stream().map(NapiInstance::id).toList());
        assertEquals(OptionalInt.of(1), merged.queueOf(8194));
        assertEquals(OptionalInt.of(2), merged.queueOf(8199));
        assertEquals(OptionalInt.of(3), merged.queueOf(8200));
        assertEquals(
                OptionalInt.of(8200 - 8000), merged.byId(8200).orElseThrow().irq());
        assertEquals(NapiSource.NETLINK_DERIVED, merged.source(), "the least trusted member's source");
        assertEquals("eth0: eth0's detail; eth1: eth1's detail", merged.detail());
    }

    @Test
    void aQueueBeyondItsMembersShareHasNoPlace() {
        NapiMap eth0 = map("eth0", NapiSource.NETLINK, napi(8193, 0), napi(8194, 1));
        NapiMap eth1 = map("eth1", NapiSource.NETLINK, napi(8199, 0), napi(8200, 1));
        NapiMap merged = NapiMap.merged(BOND0, List.of(eth0, eth1), List.of(1, 1));
        assertEquals(OptionalInt.of(0), merged.queueOf(8193));
        assertEquals(OptionalInt.empty(), merged.queueOf(8194));
        assertEquals(OptionalInt.of(1), merged.queueOf(8199));
        assertEquals(OptionalInt.empty(), merged.queueOf(8200));
    }

    @Test
    void oneNapiIdInTwoMembersIsRefused() {
        NapiMap eth0 = map("eth0", NapiSource.NETLINK, napi(8193, 0));
        NapiMap eth1 = map("eth1", NapiSource.NETLINK, napi(8193, 0));
        IllegalArgumentException e = assertThrows(
                IllegalArgumentException.class, () -> NapiMap.merged(BOND0, List.of(eth0, eth1), List.of(1, 1)));
        assertEquals("NAPI ID 8193 is in two maps, eth1's and another's", e.getMessage());
    }
}
