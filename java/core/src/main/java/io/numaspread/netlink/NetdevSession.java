// SPDX-License-Identifier: Apache-2.0
package io.numaspread.netlink;

import io.numaspread.NumaspreadException;
import io.numaspread.kernel.Errno;
import io.numaspread.nativeaccess.NativeBackend;
import io.numaspread.nativeaccess.NativeCallException;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.IntFunction;

/**
 * One generic netlink socket talking to the netdev family: it numbers the requests and finds the family once.
 * An answer the parsers cannot read is a failed call, not a bad argument of the caller's.
 */
public final class NetdevSession implements AutoCloseable {
    /** How long one request waits for the kernel's answer; the kernel answers netdev requests at once. */
    static final int TIMEOUT_MILLIS = 5_000;

    private final NetlinkSocket socket;
    private int sequence;

    private NetdevSession(NetlinkSocket socket) {
        this.socket = socket;
    }

    /** A session, or empty when the backend has no netlink (the sysfs backend). */
    public static Optional<NetdevSession> open(NativeBackend backend) {
        try {
            return Optional.of(new NetdevSession(NetlinkSocket.open(backend, NetlinkSocket.NETLINK_GENERIC, 0)));
        } catch (UnsupportedOperationException e) {
            return Optional.empty();
        }
    }

    /** The netdev family, or empty when the kernel has none (before Linux 6.5). */
    public Optional<NetdevNetlink.Family> family() {
        try {
            return Optional.of(parse(
                    request(NetdevNetlink::getFamilyRequest, "nlctrl getfamily netdev"),
                    NetdevNetlink::family,
                    "nlctrl getfamily netdev"));
        } catch (NativeCallException e) {
            // ENOENT: the control family's answer when no family has the name asked for.
            if (e.errno() == Errno.ENOENT.number()) {
                return Optional.empty();
            }
            throw e;
        }
    }

    /** Sends the request {@code build} makes for the next sequence number; the answering messages. */
    public List<byte[]> request(IntFunction<byte[]> build, String call) {
        try {
            return socket.request(build.apply(++sequence), call, TIMEOUT_MILLIS);
        } catch (IllegalArgumentException e) {
            throw malformed(call, e);
        }
    }

    /** queue-get's dump of the device {@code ifindex}'s queues; {@code iface} names it in a failure. */
    public List<NetdevNetlink.Queue> queues(NetdevNetlink.Family family, int ifindex, String iface) {
        String call = "netdev queue-get " + iface;
        return parse(
                request(sequence -> NetdevNetlink.queueDumpRequest(family, sequence, ifindex), call),
                answer -> NetdevNetlink.queues(answer, ifindex),
                call);
    }

    /** napi-get's dump of the device {@code ifindex}'s NAPI instances; {@code iface} names it in a failure. */
    public List<NetdevNetlink.Napi> napis(NetdevNetlink.Family family, int ifindex, String iface) {
        String call = "netdev napi-get " + iface;
        return parse(
                request(sequence -> NetdevNetlink.napiDumpRequest(family, sequence, ifindex), call),
                answer -> NetdevNetlink.napis(answer, ifindex),
                call);
    }

    /** Parses an answer; an answer that does not parse is the kernel's call failing, named. */
    public static <T> T parse(List<byte[]> answer, Function<List<byte[]>, T> parser, String call) {
        try {
            return parser.apply(answer);
        } catch (IllegalArgumentException e) {
            throw malformed(call, e);
        }
    }

    private static NumaspreadException malformed(String call, IllegalArgumentException e) {
        return new NumaspreadException(
                NumaspreadException.Kind.CALL_FAILED,
                "netlink " + call + ": the kernel's answer is malformed: " + e.getMessage(),
                e);
    }

    @Override
    public void close() {
        socket.close();
    }
}
