// SPDX-License-Identifier: Apache-2.0
package io.numaspread.netlink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.numaspread.netlink.NetdevNetlink.Lease;
import io.numaspread.netlink.NetdevNetlink.Queue;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

/**
 * Leased queues (Linux 7.0+) in {@code queue-get}: a real lease as Debian's 7.3 kernel answers it (a netdevsim rx
 * queue leased to a netkit device in another namespace, captured in the guest), a dump built per the netdev spec
 * for the cases no kernel here gives on demand (a lessee in the NIC's own namespace, malformed nests), and the
 * captured dumps of kernels without leases.
 */
class QueueLeaseTest {
    private static final String LEASED = "netdev-7.0-leased-queues.hex";
    private static final int NIC = 4;
    private static final int RX = NetdevNetlink.NETDEV_QUEUE_TYPE_RX;
    private static final int TX = NetdevNetlink.NETDEV_QUEUE_TYPE_TX;
    /** The dump's third message: rx queue 2, leased to ifindex 8's queue 1 in namespace 0. */
    private static final int LEASED_RX_2 = 2;
    /** In that message: the lease nest's first nested attribute (queue), its ifindex and its netns-id. */
    private static final int LEASE_QUEUE_AT = 56;

    private static final int LEASE_IFINDEX_AT = 76;
    private static final int LEASE_NETNS_AT = 84;

    @Test
    void aLeasingKernelNamesTheLesseeOfEachLeasedRxQueueAndOnlyOfThose() {
        List<Queue> queues = NetdevNetlink.queues(CapturedNetlink.messages(LEASED), NIC);
        assertEquals(
                List.of(
                        new Queue(0, RX, NIC, OptionalInt.of(8225)),
                        new Queue(1, RX, NIC, OptionalInt.of(8226)),
                        new Queue(
                                2, RX, NIC, OptionalInt.of(8227), Optional.of(new Lease(8, 1, RX, OptionalInt.of(0)))),
                        new Queue(
                                3,
                                RX,
                                NIC,
                                OptionalInt.of(8228),
                                Optional.of(new Lease(9, 1, RX, OptionalInt.empty()))),
                        new Queue(0, TX, NIC, OptionalInt.of(8225)),
                        new Queue(1, TX, NIC, OptionalInt.of(8226)),
                        new Queue(2, TX, NIC, OptionalInt.of(8227)),
                        new Queue(3, TX, NIC, OptionalInt.of(8228))),
                queues,
                "netns-id 0 is a namespace's id, not its absence; rx 3's lessee shares the NIC's namespace");
    }

    @Test
    void aRealLeaseAsDebians73KernelNamesItIsReadAsTheSpecSays() {
        List<Queue> queues = NetdevNetlink.queues(CapturedNetlink.messages("netdev-7.3-netdevsim-leased-queue.hex"), 3);
        assertEquals(8, queues.size());
        assertEquals(
                new Queue(1, RX, 3, OptionalInt.of(8202), Optional.of(new Lease(4, 1, RX, OptionalInt.of(5)))),
                queues.get(1),
                "netdevsim's rx 1, leased to netkit ifindex 4's rx queue 1 in the namespace the NIC's calls 5");
        assertEquals(
                List.of(1),
                queues.stream()
                        .filter(queue -> queue.lease().isPresent())
                        .map(Queue::id)
                        .toList(),
                "no other queue, and no tx queue, has a lease");
    }

    @Test
    void kernelsWithoutLeasesGiveTodaysQueuesWithNoLease() {
        List<Queue> host = NetdevNetlink.queues(CapturedNetlink.messages("netdev-6.18-virtio-queues.hex"), 4);
        List<Queue> guest = NetdevNetlink.queues(CapturedNetlink.messages("netdev-6.12-virtio-queues.hex"), 2);
        assertEquals(2, host.size());
        assertEquals(8, guest.size());
        assertTrue(host.stream().allMatch(queue -> queue.lease().isEmpty()), host.toString());
        assertTrue(guest.stream().allMatch(queue -> queue.lease().isEmpty()), guest.toString());
    }

    @Test
    void anAttributeALaterKernelAddsToTheLeaseIsSkipped() {
        byte[] message = leasedRx2();
        message[LEASE_NETNS_AT + 2] = 9; // netns-id's type, now one the spec does not define
        assertEquals(
                Optional.of(new Lease(8, 1, RX, OptionalInt.empty())),
                NetdevNetlink.queues(List.of(message), NIC).get(0).lease());
    }

    @Test
    void aLeaseRunningPastItsNestIsRefusedNamingTheByte() {
        byte[] message = leasedRx2();
        message[LEASE_QUEUE_AT] = 0x30; // the nested queue's length: 48 bytes, where the lease has 36 left
        MalformedNetlinkException e =
                assertThrows(MalformedNetlinkException.class, () -> NetdevNetlink.queues(List.of(message), NIC));
        assertEquals("netlink attribute at byte 56 claims 48 bytes; its message has 36 left", e.getMessage());
    }

    @Test
    void aLesseeIfindexShorterThanAU32IsRefused() {
        byte[] message = leasedRx2();
        message[LEASE_IFINDEX_AT] = 6; // 2 bytes of value; padded, the netns-id still follows at byte 84
        MalformedNetlinkException e =
                assertThrows(MalformedNetlinkException.class, () -> NetdevNetlink.queues(List.of(message), NIC));
        assertEquals("netlink attribute 1 has 2 bytes, fewer than its 4", e.getMessage());
    }

    @Test
    void aLeaseWithoutItsLesseeIsRefusedNotReadAsNoLease() {
        byte[] withoutIfindex = leasedRx2();
        withoutIfindex[LEASE_IFINDEX_AT + 2] = 9;
        MalformedNetlinkException e =
                assertThrows(MalformedNetlinkException.class, () -> NetdevNetlink.queues(List.of(withoutIfindex), NIC));
        assertEquals("a queue's lease attribute at byte 52 lacks the lessee's ifindex", e.getMessage());

        byte[] withoutQueue = leasedRx2();
        withoutQueue[LEASE_QUEUE_AT + 2] = 9;
        e = assertThrows(MalformedNetlinkException.class, () -> NetdevNetlink.queues(List.of(withoutQueue), NIC));
        assertEquals("a queue's lease attribute at byte 52 lacks the lessee's queue id or type", e.getMessage());
    }

    @Test
    void anotherInterfacesLeasedQueuesAreLeftOut() {
        assertEquals(
                List.of(),
                NetdevNetlink.queues(CapturedNetlink.messages(LEASED), 8),
                "the lessee's ifindex is not the queue's owner");
    }

    private static byte[] leasedRx2() {
        byte[] message = CapturedNetlink.messages(LEASED).get(LEASED_RX_2).clone();
        assertEquals(0x08, message[LEASE_QUEUE_AT - 2] & 0x3f, "the lease nest (attribute 8) precedes byte 56");
        return message;
    }
}
