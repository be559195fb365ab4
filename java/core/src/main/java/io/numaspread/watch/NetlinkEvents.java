// SPDX-License-Identifier: Apache-2.0
package io.numaspread.watch;

import io.numaspread.NumaspreadException;
import io.numaspread.kernel.Errno;
import io.numaspread.nativeaccess.NativeBackend;
import io.numaspread.nativeaccess.NativeCallException;
import io.numaspread.netlink.DatagramSource;
import io.numaspread.netlink.MalformedNetlinkException;
import io.numaspread.netlink.NetlinkMessages;
import io.numaspread.netlink.NetlinkSocket;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * The kernel's events, from two netlink sockets opened through the native backend: rtnetlink's link group
 * (RTM_NEWLINK, RTM_DELLINK) and the kobject uevents. One daemon thread reads each and passes what concerns
 * NIC placement to the sink, as {@link KernelEvent}s. A malformed datagram is skipped, said, and the reader goes
 * on; a reader that cannot go on (its socket fails, or anything it does not expect is thrown) is never silent:
 * it says that it died, and why, to {@link Reports#died}, whose caller stops (watch exits 5).
 */
public final class NetlinkEvents implements AutoCloseable {
    private static final int POLL_MILLIS = 500;

    /** Where the two readers' datagrams come from: rtnetlink's link group, and the kernel's uevents. */
    public record Sockets(DatagramSource route, DatagramSource uevents) {}

    /** What the readers say, from their threads. */
    public interface Reports {
        /** A datagram was skipped as malformed; the reader goes on. */
        void skipped(String line);

        /** A reader died: no more events come from its socket. Said once per reader, not after {@link #close}. */
        void died(String line);
    }

    private final List<DatagramSource> sources;
    private final List<Thread> readers = new ArrayList<>();
    private volatile boolean closed;

    private NetlinkEvents(List<DatagramSource> sources) {
        this.sources = List.copyOf(sources);
    }

    /**
     * Opens both sockets.
     *
     * @return empty when the backend cannot open netlink sockets (the sysfs backend)
     * @throws NativeCallException when a socket cannot be opened or bound
     */
    public static Optional<Sockets> open(NativeBackend backend) {
        NetlinkSocket route;
        try {
            route = NetlinkSocket.open(backend, NetlinkSocket.NETLINK_ROUTE, NetlinkSocket.RTMGRP_LINK);
        } catch (UnsupportedOperationException e) {
            return Optional.empty();
        }
        try {
            return Optional.of(new Sockets(
                    route,
                    NetlinkSocket.open(
                            backend, NetlinkSocket.NETLINK_KOBJECT_UEVENT, NetlinkSocket.UEVENT_KERNEL_GROUP)));
        } catch (RuntimeException e) {
            route.close();
            throw e;
        }
    }

    /** Starts reading both sockets, until {@link #close}, which closes them. */
    public static NetlinkEvents start(Sockets sockets, Consumer<KernelEvent> sink, Reports reports) {
        NetlinkEvents events = new NetlinkEvents(List.of(sockets.route(), sockets.uevents()));
        events.read(
                "rtnetlink",
                sockets.route(),
                (bytes, length) -> NetlinkMessages.links(bytes, length).stream()
                        .map(NetlinkEvents::event)
                        .toList(),
                sink,
                reports);
        events.read(
                "uevent",
                sockets.uevents(),
                (bytes, length) -> NetlinkMessages.uevent(bytes, length).flatMap(NetlinkEvents::event).stream()
                        .toList(),
                sink,
                reports);
        return events;
    }

    /**
     * What a link message means to a watcher: every link message names its interface, and the watcher of
     * that interface looks again.
     */
    static KernelEvent event(NetlinkMessages.Link link) {
        return new KernelEvent("rtnetlink", link.describe(), link.name());
    }

    /**
     * What a uevent means to a watcher, or empty when it cannot change a NIC's queue IRQs: CPUs going offline
     * or online, network interfaces and their queues added or removed, and devices bound or unbound (the NIC's
     * PCI function or virtio device, whose interface is then gone or new).
     */
    static Optional<KernelEvent> event(NetlinkMessages.Uevent uevent) {
        String subsystem = uevent.get("SUBSYSTEM").orElse("");
        String device = uevent.devpath().substring(uevent.devpath().lastIndexOf('/') + 1);
        String action = uevent.action();
        switch (subsystem) {
            case "cpu":
                if (action.equals("online")
                        || action.equals("offline")
                        || action.equals("add")
                        || action.equals("remove")) {
                    return Optional.of(new KernelEvent("uevent", device + " " + action, Optional.empty()));
                }
                return Optional.empty();
            case "net":
                return Optional.of(new KernelEvent(
                        "uevent",
                        uevent.get("INTERFACE").orElse(device) + " " + action,
                        Optional.of(uevent.get("INTERFACE").orElse(device))));
            case "queues":
                return interfaceOfQueue(uevent.devpath())
                        .map(iface -> new KernelEvent(
                                "uevent", iface + " queue " + device + " " + action, Optional.of(iface)));
            default:
                if (action.equals("bind") || action.equals("unbind")) {
                    String driver = uevent.get("DRIVER")
                            .map(d -> (action.equals("bind") ? " to " : " from ") + d)
                            .orElse("");
                    return Optional.of(new KernelEvent("uevent", device + " " + action + driver, Optional.empty()));
                }
                return Optional.empty();
        }
    }

    /** ".../net/eth0/queues/rx-2" names eth0. */
    private static Optional<String> interfaceOfQueue(String devpath) {
        String[] parts = devpath.split("/");
        for (int i = 0; i + 2 < parts.length; i++) {
            if (parts[i].equals("net") && parts[i + 2].equals("queues")) {
                return Optional.of(parts[i + 1]);
            }
        }
        return Optional.empty();
    }

    private interface Parser {
        List<KernelEvent> parse(byte[] datagram, int length);
    }

    private void read(String name, DatagramSource source, Parser parser, Consumer<KernelEvent> sink, Reports reports) {
        Thread reader = new Thread(
                () -> {
                    try {
                        readUntilClosed(name, source, parser, sink, reports);
                    } catch (RuntimeException | Error e) {
                        // Whatever ends the loop ends the events: said, so that the caller stops rather than keep
                        // the NIC without them (before, an IndexOutOfBoundsException ended the thread unheard).
                        if (!closed) {
                            reports.died("the " + name + " event reader died: "
                                    + (e instanceof NumaspreadException ? e.getMessage() : e.toString()));
                        }
                    }
                },
                "numaspread-" + name);
        reader.setDaemon(true);
        reader.start();
        readers.add(reader);
    }

    private void readUntilClosed(
            String name, DatagramSource source, Parser parser, Consumer<KernelEvent> sink, Reports reports) {
        byte[] buffer = new byte[64 * 1024];
        while (!closed) {
            int length;
            try {
                length = source.receive(buffer, POLL_MILLIS);
            } catch (NativeCallException e) {
                // ENOBUFS: the socket's buffer overflowed and messages were lost; every NIC is read again.
                if (e.errno() != Errno.ENOBUFS.number()) {
                    throw e;
                }
                sink.accept(new KernelEvent(name, "overrun (the kernel dropped messages)", Optional.empty()));
                continue;
            }
            if (length > 0) {
                try {
                    parser.parse(buffer, length).forEach(sink);
                } catch (MalformedNetlinkException e) {
                    reports.skipped("events: skipped a malformed " + name + " message: " + e.getMessage());
                }
            }
        }
    }

    @Override
    public void close() {
        closed = true;
        sources.forEach(DatagramSource::close);
        for (Thread reader : readers) {
            try {
                reader.join(2L * POLL_MILLIS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }
}
