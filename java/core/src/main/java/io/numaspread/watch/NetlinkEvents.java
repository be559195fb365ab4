// SPDX-License-Identifier: Apache-2.0
package io.numaspread.watch;

import io.numaspread.nativeaccess.NativeBackend;
import io.numaspread.nativeaccess.NativeCallException;
import io.numaspread.nativeaccess.NetlinkSocket;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * The kernel's events, from two netlink sockets opened through the native backend: rtnetlink's link group
 * (RTM_NEWLINK, RTM_DELLINK) and the kobject uevents. One daemon thread reads each and passes what concerns
 * NIC placement ({@link NetlinkMessages#event}) to the sink.
 */
public final class NetlinkEvents implements AutoCloseable {
    /** ENOBUFS: the socket's buffer overflowed and messages were lost. */
    private static final int ENOBUFS = 105;
    private static final int POLL_MILLIS = 500;

    private final List<NetlinkSocket> sockets;
    private final List<Thread> readers = new ArrayList<>();
    private volatile boolean closed;

    private NetlinkEvents(List<NetlinkSocket> sockets) {
        this.sockets = List.copyOf(sockets);
    }

    /**
     * Opens both sockets and starts reading them.
     *
     * @param log where a reader that stops on an error says so (the drift check then still runs)
     * @return empty when the backend cannot open netlink sockets (the sysfs backend)
     * @throws NativeCallException when a socket cannot be opened or bound
     */
    public static Optional<NetlinkEvents> start(NativeBackend backend, Consumer<KernelEvent> sink,
            Consumer<String> log) {
        NetlinkSocket route;
        try {
            route = backend.openNetlink(NetlinkSocket.NETLINK_ROUTE, NetlinkSocket.RTMGRP_LINK);
        } catch (UnsupportedOperationException e) {
            return Optional.empty();
        }
        NetlinkSocket uevents;
        try {
            uevents = backend.openNetlink(NetlinkSocket.NETLINK_KOBJECT_UEVENT, NetlinkSocket.UEVENT_KERNEL_GROUP);
        } catch (RuntimeException e) {
            route.close();
            throw e;
        }
        NetlinkEvents events = new NetlinkEvents(List.of(route, uevents));
        events.read("rtnetlink", route, (bytes, length) -> NetlinkMessages.links(bytes, length).stream()
                .map(NetlinkMessages::event).toList(), sink, log);
        events.read("uevent", uevents, (bytes, length) -> NetlinkMessages.uevent(bytes, length)
                .flatMap(NetlinkMessages::event).stream().toList(), sink, log);
        return Optional.of(events);
    }

    private interface Parser {
        List<KernelEvent> parse(byte[] datagram, int length);
    }

    private void read(String name, NetlinkSocket socket, Parser parser, Consumer<KernelEvent> sink,
            Consumer<String> log) {
        Thread reader = new Thread(() -> {
            byte[] buffer = new byte[64 * 1024];
            while (!closed) {
                int length;
                try {
                    length = socket.receive(buffer, POLL_MILLIS);
                } catch (NativeCallException e) {
                    if (e.errno() == ENOBUFS) {
                        sink.accept(new KernelEvent(name, "overrun (the kernel dropped messages)", Optional.empty()));
                        continue;
                    }
                    if (!closed) {
                        log.accept("events: the " + name + " reader stopped: " + e.getMessage()
                                + "; the drift check goes on");
                    }
                    return;
                }
                if (length > 0) {
                    try {
                        parser.parse(buffer, length).forEach(sink);
                    } catch (IllegalArgumentException e) {
                        log.accept("events: skipped a malformed " + name + " message: " + e.getMessage());
                    }
                }
            }
        }, "numaspread-" + name);
        reader.setDaemon(true);
        reader.start();
        readers.add(reader);
    }

    @Override
    public void close() {
        closed = true;
        sockets.forEach(NetlinkSocket::close);
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
