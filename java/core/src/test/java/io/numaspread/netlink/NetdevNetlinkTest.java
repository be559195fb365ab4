// SPDX-License-Identifier: Apache-2.0
package io.numaspread.netlink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The netdev messages, parsed from answers captured on real kernels and built for requests. */
class NetdevNetlinkTest {
    private static final String HOST_618 = "netdev-6.18-virtio-";
    private static final int HOST_IFINDEX = 4;
    private static final String GUEST_612 = "netdev-6.12-virtio-";
    private static final int GUEST_IFINDEX = 2;

    @Test
    void theFamilyAnswerOfA618KernelNamesItsIdAndCommands() {
        NetdevNetlink.Family family = NetdevNetlink.family(CapturedNetlink.messages(HOST_618 + "family.hex"));
        assertEquals(20, family.id());
        assertEquals(Set.of(1, 5, 10, 11, 12, 13, 14, 15), family.commands());
        assertTrue(family.has(NetdevNetlink.NETDEV_CMD_QUEUE_GET)
                && family.has(NetdevNetlink.NETDEV_CMD_NAPI_GET)
                && family.has(NetdevNetlink.NETDEV_CMD_NAPI_SET)
                && family.has(NetdevNetlink.NETDEV_CMD_QSTATS_GET));
    }

    @Test
    void napiSetsPolicyOnA618KernelAcceptsThreadedUpToEnabledAndTheIrqSuspendTimeout() {
        NetdevNetlink.Policy policy = NetdevNetlink.policy(
                CapturedNetlink.messages("netdev-6.18-napi-set-policy.hex"), NetdevNetlink.NETDEV_CMD_NAPI_SET);
        assertEquals(Set.of(2, 5, 6, 7, 8), policy.maxima().keySet(), "id, defer, gro, irq-suspend, threaded");
        assertTrue(policy.accepts(NetdevNetlink.NETDEV_A_NAPI_IRQ_SUSPEND_TIMEOUT));
        assertEquals(OptionalLong.of(1), policy.max(NetdevNetlink.NETDEV_A_NAPI_THREADED), "6.18: no busy-poll (2)");
        assertThrows(
                IllegalArgumentException.class,
                () -> NetdevNetlink.policy(CapturedNetlink.messages("netdev-6.18-napi-set-policy.hex"), 11),
                "the answer has napi-set's policy, not napi-get's");
        byte[] request = NetdevNetlink.policyRequest(7, NetdevNetlink.NETDEV_CMD_NAPI_SET);
        ByteBuffer header = ByteBuffer.wrap(request).order(ByteOrder.nativeOrder());
        assertEquals(request.length, header.getInt(0));
        assertEquals(0x10, header.getShort(4), "to nlctrl");
        assertEquals(10, request[16], "CTRL_CMD_GETPOLICY");
    }

    @Test
    void queueGetOfA618VirtioNicLinksItsRxQueueToItsNapi() {
        List<NetdevNetlink.Queue> queues =
                NetdevNetlink.queues(CapturedNetlink.messages(HOST_618 + "queues.hex"), HOST_IFINDEX);
        assertEquals(
                List.of(
                        new NetdevNetlink.Queue(
                                0, NetdevNetlink.NETDEV_QUEUE_TYPE_RX, HOST_IFINDEX, OptionalInt.of(257)),
                        new NetdevNetlink.Queue(
                                0, NetdevNetlink.NETDEV_QUEUE_TYPE_TX, HOST_IFINDEX, OptionalInt.empty())),
                queues);
        assertEquals(
                List.of(),
                NetdevNetlink.queues(CapturedNetlink.messages(HOST_618 + "queues.hex"), 5),
                "another interface's queues are left out");
    }

    @Test
    void napiGetOfA618VirtioNicHasNoIrqNoThreadTheSettingsAndItsOwnThreadedOff() {
        List<NetdevNetlink.Napi> napis =
                NetdevNetlink.napis(CapturedNetlink.messages(HOST_618 + "napis.hex"), HOST_IFINDEX);
        assertEquals(
                List.of(new NetdevNetlink.Napi(
                        257,
                        HOST_IFINDEX,
                        OptionalInt.empty(),
                        OptionalInt.empty(),
                        OptionalLong.of(0),
                        OptionalLong.of(0),
                        OptionalLong.of(0),
                        OptionalInt.of(0))),
                napis,
                "6.18 reports each NAPI's own threaded (attribute 8, from Linux 6.17): 0 here");
    }

    @Test
    void the612KernelsFamilyHasQueueGetAndNapiGetButNoNapiSet() {
        NetdevNetlink.Family family = NetdevNetlink.family(CapturedNetlink.messages(GUEST_612 + "family.hex"));
        assertEquals(21, family.id());
        assertEquals(Set.of(1, 5, 10, 11, 12, 13), family.commands());
        assertFalse(family.has(NetdevNetlink.NETDEV_CMD_NAPI_SET));
    }

    @Test
    void queueGetOfA612VirtioNicLinksNoQueueToANapi() {
        List<NetdevNetlink.Queue> queues =
                NetdevNetlink.queues(CapturedNetlink.messages(GUEST_612 + "queues.hex"), GUEST_IFINDEX);
        assertEquals(8, queues.size());
        assertEquals(
                List.of(0, 1, 2, 3, 0, 1, 2, 3),
                queues.stream().map(NetdevNetlink.Queue::id).toList());
        assertEquals(
                4,
                queues.stream()
                        .filter(queue -> queue.type() == NetdevNetlink.NETDEV_QUEUE_TYPE_RX)
                        .count());
        assertTrue(queues.stream().allMatch(queue -> queue.napiId().isEmpty()), queues.toString());
    }

    @Test
    void napiGetOfA612VirtioNicGivesIdsNewestFirstAndThreadPidsOnlyWhenThreaded() {
        List<NetdevNetlink.Napi> plain =
                NetdevNetlink.napis(CapturedNetlink.messages(GUEST_612 + "napis.hex"), GUEST_IFINDEX);
        assertEquals(
                List.of(8196, 8195, 8194, 8193),
                plain.stream().map(NetdevNetlink.Napi::id).toList());
        assertTrue(
                plain.stream()
                        .allMatch(napi -> napi.irq().isEmpty()
                                && napi.threadPid().isEmpty()
                                && napi.deferHardIrqs().isEmpty()),
                "6.12 reports neither IRQ, thread nor settings: " + plain);
        List<NetdevNetlink.Napi> threaded =
                NetdevNetlink.napis(CapturedNetlink.messages(GUEST_612 + "napis-threaded.hex"), GUEST_IFINDEX);
        assertEquals(
                List.of(268, 270, 272, 274),
                threaded.stream().map(napi -> napi.threadPid().getAsInt()).toList());
    }

    @Test
    void qstatsGetOfA618VirtioNicCountsEachQueuesPacketsAndBytes() {
        List<NetdevNetlink.QueueCounts> counters =
                NetdevNetlink.queueCounters(CapturedNetlink.messages(HOST_618 + "qstats.hex"), HOST_IFINDEX);
        assertEquals(
                List.of(
                        new NetdevNetlink.QueueCounts(true, 0, OptionalLong.of(31167), OptionalLong.of(1609516783)),
                        new NetdevNetlink.QueueCounts(false, 0, OptionalLong.of(18164), OptionalLong.of(1424862))),
                counters);
    }

    @Test
    void theQstatsRequestAsksForOneAnswerPerQueue() {
        byte[] request = NetdevNetlink.queueStatsDumpRequest(new NetdevNetlink.Family(20, Set.of(12)), 3, 4);
        List<NetlinkCodec.Attribute> attributes = NetdevNetlink.attributes(request);
        assertEquals(
                List.of(1, 4),
                attributes.stream().map(NetlinkCodec.Attribute::type).toList());
        assertEquals(4, attributes.get(0).u32());
        assertEquals(1, attributes.get(1).u32(), "NETDEV_QSTATS_SCOPE_QUEUE");
    }

    @Test
    void aRequestIsOneMessageWithItsLengthSequenceAndAttributes() {
        NetdevNetlink.Family family = new NetdevNetlink.Family(20, Set.of(11));
        byte[] request = NetdevNetlink.napiDumpRequest(family, 77, 4);
        ByteBuffer buffer = ByteBuffer.wrap(request).order(ByteOrder.nativeOrder());
        assertEquals(request.length, buffer.getInt(0));
        assertEquals(20, buffer.getShort(4));
        assertEquals(0x301, buffer.getShort(6), "NLM_F_REQUEST | NLM_F_DUMP");
        assertEquals(77, buffer.getInt(8));
        assertEquals(NetdevNetlink.NETDEV_CMD_NAPI_GET, buffer.get(16));
        List<NetlinkCodec.Attribute> attributes = NetdevNetlink.attributes(request);
        assertEquals(1, attributes.size());
        assertEquals(NetdevNetlink.NETDEV_A_NAPI_IFINDEX, attributes.get(0).type());
        assertEquals(4, attributes.get(0).u32());
    }

    @Test
    void napiSetCarriesTheIdAndAllThreeSettingsAndAsksForAnAcknowledgement() {
        NetdevNetlink.Family family = new NetdevNetlink.Family(20, Set.of(14));
        byte[] request = NetdevNetlink.napiSetRequest(family, 5, 8193, 2, 200_000, 20_000_000_000L);
        ByteBuffer buffer = ByteBuffer.wrap(request).order(ByteOrder.nativeOrder());
        assertEquals(0x5, buffer.getShort(6), "NLM_F_REQUEST | NLM_F_ACK");
        assertEquals(NetdevNetlink.NETDEV_CMD_NAPI_SET, buffer.get(16));
        List<NetlinkCodec.Attribute> attributes = NetdevNetlink.attributes(request);
        assertEquals(
                List.of(2, 5, 6, 7),
                attributes.stream().map(NetlinkCodec.Attribute::type).toList());
        assertEquals(8193, attributes.get(0).u32());
        assertEquals(2, attributes.get(1).unsigned());
        assertEquals(200_000, attributes.get(2).unsigned());
        assertEquals(20_000_000_000L, attributes.get(3).unsigned());
    }

    @Test
    void napiSetThreadedCarriesTheIdAndThreadedAloneAndAsksForAnAcknowledgement() {
        NetdevNetlink.Family family = new NetdevNetlink.Family(30, Set.of(NetdevNetlink.NETDEV_CMD_NAPI_SET));
        byte[] request = NetdevNetlink.napiSetThreadedRequest(family, 6, 8194, 1);
        ByteBuffer buffer = ByteBuffer.wrap(request).order(ByteOrder.nativeOrder());
        assertEquals(30, buffer.getShort(4), "the netdev family's id");
        assertEquals(0x5, buffer.getShort(6), "NLM_F_REQUEST | NLM_F_ACK");
        assertEquals(6, buffer.getInt(8), "the sequence number");
        assertEquals(NetdevNetlink.NETDEV_CMD_NAPI_SET, buffer.get(16));
        List<NetlinkCodec.Attribute> attributes = NetdevNetlink.attributes(request);
        assertEquals(
                List.of(2, 8),
                attributes.stream().map(NetlinkCodec.Attribute::type).toList());
        assertEquals(8194, attributes.get(0).u32());
        assertEquals(4, attributes.get(1).valueLength(), "threaded is a u32");
        assertEquals(1, attributes.get(1).u32());
    }

    @Test
    void theFamilyRequestNamesNetdevNulTerminated() {
        byte[] request = NetdevNetlink.getFamilyRequest(1);
        ByteBuffer buffer = ByteBuffer.wrap(request).order(ByteOrder.nativeOrder());
        assertEquals(0x10, buffer.getShort(4), "GENL_ID_CTRL");
        assertEquals(0x5, buffer.getShort(6), "NLM_F_REQUEST | NLM_F_ACK");
        NetlinkCodec.Attribute name = NetdevNetlink.attributes(request).get(0);
        assertEquals(NetdevNetlink.CTRL_ATTR_FAMILY_NAME, name.type());
        assertEquals(7, name.valueLength(), "\"netdev\" and its NUL");
        assertEquals(0, request.length % 4, "attributes are padded to 4 bytes");
    }

    @Test
    void anAttributeRunningPastItsMessageIsRefusedNamingTheByte() {
        byte[] message = CapturedNetlink.messages(HOST_618 + "napis.hex").get(0).clone();
        message[20] = (byte) 0xf0; // the first attribute's length, now past the message's end
        IllegalArgumentException e =
                assertThrows(IllegalArgumentException.class, () -> NetdevNetlink.napis(List.of(message), HOST_IFINDEX));
        assertTrue(e.getMessage().startsWith("netlink attribute at byte 20 claims 240 bytes"), e.getMessage());
    }

    @Test
    void anAnswerWithoutAFamilyIdIsRefused() {
        IllegalArgumentException e =
                assertThrows(IllegalArgumentException.class, () -> NetdevNetlink.family(List.of()));
        assertEquals("the kernel's answer about the netdev family names no family id", e.getMessage());
    }
}
