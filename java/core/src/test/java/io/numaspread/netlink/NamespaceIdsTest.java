// SPDX-License-Identifier: Apache-2.0
package io.numaspread.netlink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;
import java.util.OptionalInt;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** RTM_GETNSID's request as built, and its answers as a 6.18 and a 7.3 kernel gave them, and with an id assigned. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class NamespaceIdsTest {
    private static final String SELF = "rtnl-6.18-getnsid-self.hex";
    /** In the captured answer: NETNSA_NSID's value, after the headers (16 + 4) and the attribute's own (4). */
    private static final int NSID_AT = 24;

    @Test
    void theRequestNamesTheProcessAfterAPaddedRtgenmsgAndAsksForAnAcknowledgement() {
        byte[] request = NamespaceIds.request(7, 1415);
        ByteBuffer buffer = ByteBuffer.wrap(request).order(ByteOrder.nativeOrder());
        assertEquals(28, request.length);
        assertEquals(28, buffer.getInt(0));
        assertEquals(90, buffer.getShort(4), "RTM_GETNSID");
        assertEquals(0x5, buffer.getShort(6), "NLM_F_REQUEST | NLM_F_ACK");
        assertEquals(7, buffer.getInt(8));
        assertEquals(0, buffer.getInt(16), "rtgenmsg AF_UNSPEC and its padding");
        assertEquals(8, buffer.getShort(20));
        assertEquals(2, buffer.getShort(22), "NETNSA_PID");
        assertEquals(1415, buffer.getInt(24));
    }

    @Test
    void aNamespaceWithoutAnIdHereIsEmptyAsTheKernelAnswered() {
        assertEquals(OptionalInt.empty(), NamespaceIds.id(CapturedNetlink.messages(SELF)));
    }

    @Test
    void aLesseesNamespaceIdIsReadAsA73KernelGaveIt() {
        assertEquals(OptionalInt.of(5), NamespaceIds.id(CapturedNetlink.messages("rtnl-7.3-getnsid-lessee.hex")));
    }

    @Test
    void anAssignedIdIsRead() {
        byte[] message = CapturedNetlink.messages(SELF).get(0).clone();
        ByteBuffer.wrap(message).order(ByteOrder.nativeOrder()).putInt(NSID_AT, 3);
        assertEquals(OptionalInt.of(3), NamespaceIds.id(List.of(message)));
        ByteBuffer.wrap(message).order(ByteOrder.nativeOrder()).putInt(NSID_AT, 0);
        assertEquals(OptionalInt.of(0), NamespaceIds.id(List.of(message)), "0 is an id, as ip netns list shows");
    }

    @Test
    void anAnswerWithoutAnIdIsRefused() {
        byte[] message = CapturedNetlink.messages(SELF).get(0).clone();
        ByteBuffer.wrap(message).order(ByteOrder.nativeOrder()).putShort(NSID_AT - 2, (short) 9);
        IllegalArgumentException e =
                assertThrows(IllegalArgumentException.class, () -> NamespaceIds.id(List.of(message)));
        assertEquals("the kernel's RTM_GETNSID answer has no RTM_NEWNSID message with an id", e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> NamespaceIds.id(List.of()));
    }
}
