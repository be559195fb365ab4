// SPDX-License-Identifier: Apache-2.0
package io.numaspread.netlink;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.numaspread.testing.NetlinkDatagrams;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * rtnetlink and uevent parsing from bytes the kernel sent: {@code rtm_newlink_lo.bin} is Linux 6.18's answer to
 * RTM_GETLINK for lo (the same RTM_NEWLINK layout it multicasts), {@code uevent_change_lo.bin} the uevent after
 * writing "change" to {@code /sys/class/net/lo/uevent}.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class NetlinkMessagesTest {
    private static byte[] captured(String name) throws IOException {
        try (InputStream in = NetlinkMessagesTest.class.getResourceAsStream(name)) {
            return in.readAllBytes();
        }
    }

    @Test
    void aCapturedLinkMessageNamesLoAndItsState() throws IOException {
        byte[] bytes = captured("rtm_newlink_lo.bin");
        List<NetlinkMessages.Link> links = NetlinkMessages.links(bytes, bytes.length);
        assertEquals(1, links.size());
        NetlinkMessages.Link lo = links.get(0);
        assertAll(
                () -> assertEquals(NetlinkMessages.RTM_NEWLINK, lo.type()),
                () -> assertEquals(1, lo.index()),
                () -> assertEquals(Optional.of("lo"), lo.name()),
                () -> assertFalse(lo.deleted()),
                () -> assertEquals("lo RTM_NEWLINK (up)", lo.describe()));
    }

    @Test
    void everyMessageOfAMultiMessageDatagramIsRead() throws IOException {
        byte[] one = captured("rtm_newlink_lo.bin");
        byte[] two =
                ByteBuffer.allocate(2 * one.length).put(one).put(deleted(one)).array();
        List<NetlinkMessages.Link> links = NetlinkMessages.links(two, two.length);
        assertEquals(
                List.of("lo RTM_NEWLINK (up)", "lo RTM_DELLINK (removed)"),
                links.stream().map(NetlinkMessages.Link::describe).toList());
    }

    @Test
    void otherMessageTypesAreSkipped() {
        byte[] done = ByteBuffer.allocate(20)
                .order(ByteOrder.nativeOrder())
                .putInt(20)
                .putShort((short) 3)
                .putShort((short) 2)
                .putInt(1)
                .putInt(0)
                .putInt(0)
                .array();
        assertEquals(List.of(), NetlinkMessages.links(done, done.length));
    }

    @Test
    void aTruncatedDatagramIsRefusedNamingTheByte() throws IOException {
        byte[] bytes = captured("rtm_newlink_lo.bin");
        IllegalArgumentException e =
                assertThrows(IllegalArgumentException.class, () -> NetlinkMessages.links(bytes, 100));
        assertEquals(
                "rtnetlink: message at byte 0 claims " + bytes.length + " bytes; the datagram has 100 left",
                e.getMessage());
    }

    @Test
    void aCorruptAttributeLengthIsRefused() throws IOException {
        byte[] bytes = captured("rtm_newlink_lo.bin");
        ByteBuffer.wrap(bytes).order(ByteOrder.nativeOrder()).putShort(32, (short) 0xfff0);
        IllegalArgumentException e =
                assertThrows(IllegalArgumentException.class, () -> NetlinkMessages.links(bytes, bytes.length));
        assertTrue(e.getMessage().startsWith("netlink attribute at byte 32 claims 65520 bytes"), e.getMessage());
    }

    /**
     * The audit's datagram: a valid first message, then one at byte 16 whose nlmsg_len is near Integer.MAX_VALUE.
     * Added to the offset it wrapped negative, passed the check, and the next read threw
     * IndexOutOfBoundsException, which nothing caught: the event reader thread died.
     */
    @Test
    void aMessageLengthNearIntegerMaxIsRefusedNamingItsByte() {
        byte[] datagram = NetlinkDatagrams.twoMessages(Integer.MAX_VALUE - 8);
        MalformedNetlinkException e =
                assertThrows(MalformedNetlinkException.class, () -> NetlinkMessages.links(datagram, datagram.length));
        assertEquals("rtnetlink: message at byte 16 claims 2147483639 bytes; the datagram has 32 left", e.getMessage());
    }

    /** nlmsg_len is the kernel's u32: 0xFFFFFFFF is named as such, not as -1. */
    @Test
    void theLargestUnsignedMessageLengthIsRefusedAsUnsigned() {
        byte[] datagram = NetlinkDatagrams.twoMessages(0xFFFFFFFF);
        MalformedNetlinkException e =
                assertThrows(MalformedNetlinkException.class, () -> NetlinkMessages.links(datagram, datagram.length));
        assertEquals("rtnetlink: message at byte 16 claims 4294967295 bytes; the datagram has 32 left", e.getMessage());
    }

    /** nla_len is a u16: 0xFFFF in the last attribute of a message is refused, not read past the message. */
    @Test
    void anAttributeLengthOf0xffffIsRefusedNamingItsByte() throws IOException {
        byte[] bytes = captured("rtm_newlink_lo.bin");
        ByteBuffer.wrap(bytes).order(ByteOrder.nativeOrder()).putShort(32, (short) 0xffff);
        MalformedNetlinkException e =
                assertThrows(MalformedNetlinkException.class, () -> NetlinkMessages.links(bytes, bytes.length));
        assertEquals(
                "netlink attribute at byte 32 claims 65535 bytes; its message has " + (bytes.length - 32) + " left",
                e.getMessage());
    }

    @Test
    void aCapturedUeventOfLo() throws IOException {
        byte[] bytes = captured("uevent_change_lo.bin");
        NetlinkMessages.Uevent uevent =
                NetlinkMessages.uevent(bytes, bytes.length).orElseThrow();
        assertAll(
                () -> assertEquals("change", uevent.action()),
                () -> assertEquals("/devices/virtual/net/lo", uevent.devpath()),
                () -> assertEquals(Optional.of("net"), uevent.get("SUBSYSTEM")),
                () -> assertEquals(Optional.of("lo"), uevent.get("INTERFACE")));
    }

    @Test
    void udevRebroadcastsAreNotUevents() {
        byte[] udev = "libudev\0\u00fe\u00ed\u00ca\u00fe".getBytes(StandardCharsets.ISO_8859_1);
        assertEquals(Optional.empty(), NetlinkMessages.uevent(udev, udev.length));
    }

    /** The captured message as RTM_DELLINK. */
    private static byte[] deleted(byte[] message) {
        byte[] copy = message.clone();
        ByteBuffer.wrap(copy).order(ByteOrder.nativeOrder()).putShort(4, (short) NetlinkMessages.RTM_DELLINK);
        return copy;
    }
}
