// SPDX-License-Identifier: Apache-2.0
package io.numaspread.watch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.numaspread.netlink.DatagramSource;
import io.numaspread.netlink.NetlinkMessages;
import io.numaspread.testing.NetlinkDatagrams;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What the kernel's netlink messages mean to a watcher: the captured {@code rtm_newlink_lo.bin} and
 * {@code uevent_change_lo.bin} (beside {@code NetlinkMessages}' test), and uevents the host cannot safely
 * produce (a CPU going offline, a driver unbound) written in the kernel's format.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class NetlinkEventsTest {
    private static byte[] captured(String name) throws IOException {
        try (InputStream in = NetlinkMessages.class.getResourceAsStream("/io/numaspread/netlink/" + name)) {
            return in.readAllBytes();
        }
    }

    private static byte[] uevent(String... strings) {
        return (String.join("\0", strings) + "\0").getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void aLinkMessageConcernsItsInterface() throws IOException {
        byte[] bytes = captured("rtm_newlink_lo.bin");
        List<NetlinkMessages.Link> links = NetlinkMessages.links(bytes, bytes.length);
        assertEquals(1, links.size());
        KernelEvent event = NetlinkEvents.event(links.get(0));
        assertEquals("rtnetlink lo RTM_NEWLINK (up)", event.toString());
        assertTrue(event.concerns("lo"));
        assertFalse(event.concerns("eth0"));
    }

    @Test
    void aCapturedUeventOfLoConcernsLo() throws IOException {
        byte[] bytes = captured("uevent_change_lo.bin");
        KernelEvent event = NetlinkEvents.event(
                        NetlinkMessages.uevent(bytes, bytes.length).orElseThrow())
                .orElseThrow();
        assertEquals("uevent lo change", event.toString());
        assertTrue(event.concerns("lo"));
        assertFalse(event.concerns("eth0"));
    }

    @Test
    void aCpuGoingOfflineConcernsEveryNic() {
        byte[] bytes = uevent(
                "offline@/devices/system/cpu/cpu5",
                "ACTION=offline",
                "DEVPATH=/devices/system/cpu/cpu5",
                "SUBSYSTEM=cpu",
                "SEQNUM=2301");
        KernelEvent event = NetlinkEvents.event(
                        NetlinkMessages.uevent(bytes, bytes.length).orElseThrow())
                .orElseThrow();
        assertEquals("uevent cpu5 offline", event.toString());
        assertTrue(event.concerns("eth0"));
    }

    @Test
    void aQueueRemovedConcernsItsInterface() {
        String path = "/devices/pci0000:00/0000:00:03.0/virtio0/net/eth0/queues/rx-2";
        byte[] bytes = uevent("remove@" + path, "ACTION=remove", "DEVPATH=" + path, "SUBSYSTEM=queues", "SEQNUM=7");
        KernelEvent event = NetlinkEvents.event(
                        NetlinkMessages.uevent(bytes, bytes.length).orElseThrow())
                .orElseThrow();
        assertEquals("uevent eth0 queue rx-2 remove", event.toString());
        assertTrue(event.concerns("eth0"));
        assertFalse(event.concerns("eth1"));
    }

    @Test
    void aDriverUnbindNamesTheDeviceAndDriver() {
        String path = "/devices/pci0000:00/0000:00:03.0/virtio0";
        byte[] bytes = uevent(
                "unbind@" + path,
                "ACTION=unbind",
                "DEVPATH=" + path,
                "SUBSYSTEM=virtio",
                "DRIVER=virtio_net",
                "SEQNUM=9");
        KernelEvent event = NetlinkEvents.event(
                        NetlinkMessages.uevent(bytes, bytes.length).orElseThrow())
                .orElseThrow();
        assertEquals("uevent virtio0 unbind from virtio_net", event.toString());
        assertTrue(event.concerns("eth0"));
    }

    /**
     * The reader goes on after the audit's datagram (a message length near Integer.MAX_VALUE, which threw
     * IndexOutOfBoundsException and ended the thread): it says it skipped it and hands on the next link message.
     */
    @Test
    @SuppressWarnings("try") // the readers run while it is open
    void aReaderSkipsAnOverflowingDatagramInOneLineAndGoesOn() throws Exception {
        byte[] overflowing = NetlinkDatagrams.twoMessages(Integer.MAX_VALUE - 8);
        BlockingQueue<String> said = new LinkedBlockingQueue<>();
        BlockingQueue<KernelEvent> heard = new LinkedBlockingQueue<>();
        try (NetlinkEvents events = NetlinkEvents.start(
                new NetlinkEvents.Sockets(new Datagrams(overflowing, captured("rtm_newlink_lo.bin")), new Datagrams()),
                heard::add,
                reports(said))) {
            assertEquals("rtnetlink lo RTM_NEWLINK (up)", String.valueOf(heard.poll(10, TimeUnit.SECONDS)));
        }
        assertEquals(
                List.of("skipped: events: skipped a malformed rtnetlink message: rtnetlink: message at byte 16 claims"
                        + " 2147483639 bytes; the datagram has 32 left"),
                List.copyOf(said));
    }

    /** Whatever else ends a reader (here the sink failing) is said as its death, with the exception. */
    @Test
    @SuppressWarnings("try") // the readers run while it is open
    void aReaderThatDiesSaysSoOnce() throws Exception {
        BlockingQueue<String> said = new LinkedBlockingQueue<>();
        try (NetlinkEvents events = NetlinkEvents.start(
                new NetlinkEvents.Sockets(new Datagrams(captured("rtm_newlink_lo.bin")), new Datagrams()),
                event -> {
                    throw new IllegalStateException("full");
                },
                reports(said))) {
            assertEquals(
                    "died: the rtnetlink event reader died: java.lang.IllegalStateException: full",
                    said.poll(10, TimeUnit.SECONDS));
        }
        assertEquals(List.of(), List.copyOf(said));
    }

    private static NetlinkEvents.Reports reports(BlockingQueue<String> said) {
        return new NetlinkEvents.Reports() {
            @Override
            public void skipped(String line) {
                said.add("skipped: " + line);
            }

            @Override
            public void died(String line) {
                said.add("died: " + line);
            }
        };
    }

    /** {@code datagrams}, one per receive, then nothing (each later receive waits its timeout). */
    private static final class Datagrams implements DatagramSource {
        private final Deque<byte[]> left;

        Datagrams(byte[]... datagrams) {
            left = new ArrayDeque<>(List.of(datagrams));
        }

        @Override
        public synchronized int receive(byte[] buffer, int timeoutMillis) {
            byte[] next = left.poll();
            if (next == null) {
                try {
                    wait(timeoutMillis);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                return 0;
            }
            System.arraycopy(next, 0, buffer, 0, next.length);
            return next.length;
        }

        @Override
        public void close() {}
    }

    @Test
    void unrelatedUeventsAreIgnored() {
        byte[] block = uevent("change@/devices/virtual/block/loop0", "ACTION=change", "SUBSYSTEM=block");
        assertEquals(
                Optional.empty(),
                NetlinkEvents.event(NetlinkMessages.uevent(block, block.length).orElseThrow()));
    }
}
