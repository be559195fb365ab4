// SPDX-License-Identifier: Apache-2.0
package io.numaspread.cli;

import io.numaspread.nativeaccess.NativeCallException;
import io.numaspread.netlink.DatagramSource;
import io.numaspread.testing.NetlinkDatagrams;
import io.numaspread.watch.NetlinkEvents;
import java.io.PrintWriter;
import java.util.Arrays;
import java.util.Optional;
import picocli.CommandLine;

/**
 * The CLI whose {@code watch} reads events from crafted datagrams instead of the kernel's sockets (a copied /sys
 * has no kernel behind it), run in a JVM of its own ({@link ForkedCli}) so that a test sees its exit code.
 * "overflow": rtnetlink delivers one datagram whose second message claims Integer.MAX_VALUE - 8 bytes, the
 * audit's; "ebadf": rtnetlink's receive fails with EBADF, as a socket closed under the reader would. The uevent
 * source stays quiet.
 */
final class FaultyWatchEvents {
    private FaultyWatchEvents() {}

    /** {@code FAULT ARGS...}: the CLI's {@code ARGS}, with {@code FAULT} in watch's rtnetlink reader. */
    public static void main(String[] args) {
        String fault = args[0];
        CommandLine.IFactory commands = new CommandLine.IFactory() {
            @Override
            public <K> K create(Class<K> type) throws Exception {
                return type == WatchCommand.class
                        ? type.cast(new WatchCommand(
                                backend -> Optional.of(new NetlinkEvents.Sockets(route(fault), new Quiet()))))
                        : CommandLine.defaultFactory().create(type);
            }
        };
        System.exit(Main.run(
                Arrays.copyOfRange(args, 1, args.length),
                new PrintWriter(System.out, true),
                new PrintWriter(System.err, true),
                commands));
    }

    private static DatagramSource route(String fault) {
        return switch (fault) {
            case "overflow" -> new Once(NetlinkDatagrams.twoMessages(Integer.MAX_VALUE - 8));
            case "ebadf" ->
                new Quiet() {
                    @Override
                    public int receive(byte[] buffer, int timeoutMillis) {
                        super.receive(buffer, timeoutMillis);
                        throw new NativeCallException("poll", 9, "Bad file descriptor", "the socket is gone");
                    }
                };
            default -> throw new IllegalArgumentException("no such fault: " + fault);
        };
    }

    /** Nothing arrives: each receive waits its whole timeout. */
    private static class Quiet implements DatagramSource {
        @Override
        public int receive(byte[] buffer, int timeoutMillis) {
            try {
                Thread.sleep(timeoutMillis);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return 0;
        }

        @Override
        public void close() {}
    }

    /** {@code datagram} at the first receive, then nothing. */
    private static final class Once extends Quiet {
        private byte[] datagram;

        Once(byte[] datagram) {
            this.datagram = datagram;
        }

        @Override
        public int receive(byte[] buffer, int timeoutMillis) {
            if (datagram == null) {
                return super.receive(buffer, timeoutMillis);
            }
            System.arraycopy(datagram, 0, buffer, 0, datagram.length);
            int length = datagram.length;
            datagram = null;
            return length;
        }
    }
}
