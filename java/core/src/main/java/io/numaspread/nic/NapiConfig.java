// SPDX-License-Identifier: Apache-2.0
package io.numaspread.nic;

import io.numaspread.NumaspreadException;
import io.numaspread.kernel.KernelPaths;
import io.numaspread.nativeaccess.NativeBackend;
import io.numaspread.netlink.NetdevNetlink;
import io.numaspread.netlink.NetdevSession;
import io.numaspread.netlink.NetlinkCodec;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Reads and writes one NAPI instance's busy-polling settings ({@link NapiSettings}) through netdev netlink:
 * {@code napi-get} reports them and {@code napi-set} writes them, both from Linux 6.13. On an older kernel, or
 * a backend without netlink, both refuse, naming what is needed and what was found.
 */
public final class NapiConfig {
    /** The kernel that first has {@code napi-set} and the settings in {@code napi-get}. */
    public static final String NEEDED_KERNEL = "Linux 6.13";

    private NapiConfig() {}

    /**
     * NAPI {@code napiId}'s settings, from {@code napi-get}.
     *
     * @throws NumaspreadException (refused) on a kernel or backend that cannot report them; (call failed) when
     *     the call fails, naming it and its errno (ENOENT: no such NAPI)
     */
    public static NapiSettings read(KernelPaths paths, NativeBackend backend, int napiId) {
        try (NetdevSession session = openSession(paths, backend, "reading NAPI settings")) {
            NetdevNetlink.Family family = requireNapiSet(paths, session, "reading NAPI settings");
            String call = "netdev napi-get " + napiId;
            List<NetdevNetlink.Napi> napis = NetdevSession.parse(
                    session.request(sequence -> NetdevNetlink.napiGetRequest(family, sequence, napiId), call),
                    NapiConfig::anyInterface,
                    call);
            NetdevNetlink.Napi napi = napis.stream()
                    .filter(found -> found.id() == napiId)
                    .findFirst()
                    .orElseThrow(() -> new NumaspreadException(
                            NumaspreadException.Kind.CALL_FAILED,
                            "netlink " + call + ": the kernel answered without NAPI " + napiId));
            if (napi.deferHardIrqs().isEmpty()
                    || napi.groFlushTimeoutNanos().isEmpty()
                    || napi.irqSuspendTimeoutNanos().isEmpty()) {
                throw new NumaspreadException(
                        NumaspreadException.Kind.REFUSED,
                        "reading NAPI settings needs "
                                + NEEDED_KERNEL + " or newer; kernel " + NapiDiscovery.kernelRelease(paths)
                                + "'s napi-get does not report them");
            }
            return new NapiSettings(
                    napi.deferHardIrqs().getAsLong(),
                    napi.groFlushTimeoutNanos().getAsLong(),
                    napi.irqSuspendTimeoutNanos().getAsLong());
        }
    }

    /**
     * Writes NAPI {@code napiId}'s settings with {@code napi-set}, which needs CAP_NET_ADMIN.
     *
     * @throws NumaspreadException (refused) on a kernel or backend without {@code napi-set}; (call failed) when
     *     the call fails, naming it and its errno (EPERM: not privileged; ENOENT: no such NAPI)
     */
    public static void write(KernelPaths paths, NativeBackend backend, int napiId, NapiSettings settings) {
        try (NetdevSession session = openSession(paths, backend, "napi-set")) {
            NetdevNetlink.Family family = requireNapiSet(paths, session, "napi-set");
            session.request(
                    sequence -> NetdevNetlink.napiSetRequest(
                            family,
                            sequence,
                            napiId,
                            settings.deferHardIrqs(),
                            settings.groFlushTimeoutNanos(),
                            settings.irqSuspendTimeoutNanos()),
                    "netdev napi-set " + napiId);
        }
    }

    /**
     * Sets NAPI {@code napiId}'s own {@code threaded} with {@code napi-set} (Linux 6.17; CAP_NET_ADMIN): 1 starts
     * its {@code napi/IFACE-ID} thread, 0 stops it. The kernel keeps the value in the NAPI's persistent config, so
     * it outlives the caller: whoever sets it must record the previous value to put back.
     *
     * @throws NumaspreadException (refused) on a kernel or backend without {@code napi-set}; (call failed) when
     *     the call fails, naming it and its errno (EPERM: not privileged; ENOENT: no such NAPI)
     */
    public static void writeThreaded(KernelPaths paths, NativeBackend backend, int napiId, int threaded) {
        try (NetdevSession session = openSession(paths, backend, "napi-set threaded")) {
            NetdevNetlink.Family family = requireNapiSet(paths, session, "napi-set threaded");
            session.request(
                    sequence -> NetdevNetlink.napiSetThreadedRequest(family, sequence, napiId, threaded),
                    "netdev napi-set " + napiId + " threaded " + threaded);
        }
    }

    /**
     * The largest {@code threaded} that the kernel's {@code napi-set} policy accepts ({@code nlctrl getpolicy}):
     * 2 ({@link NetdevNetlink#NETDEV_NAPI_THREADED_BUSY_POLL}) from Linux 6.19, which has threaded busy polling,
     * 1 on 6.17 and 6.18, 0 when the policy has no {@code threaded}.
     *
     * @throws NumaspreadException (refused) on a kernel or backend without {@code napi-set}; (call failed) when the
     *     policy cannot be read
     */
    public static long threadedMaximum(KernelPaths paths, NativeBackend backend) {
        try (NetdevSession session = openSession(paths, backend, "napi-set threaded")) {
            requireNapiSet(paths, session, "napi-set threaded");
            String call = "nlctrl getpolicy netdev napi-set";
            NetdevNetlink.Policy policy = NetdevSession.parse(
                    session.request(
                            sequence -> NetdevNetlink.policyRequest(sequence, NetdevNetlink.NETDEV_CMD_NAPI_SET), call),
                    answer -> NetdevNetlink.policy(answer, NetdevNetlink.NETDEV_CMD_NAPI_SET),
                    call);
            if (!policy.accepts(NetdevNetlink.NETDEV_A_NAPI_THREADED)) {
                return 0;
            }
            // The kernel bounds it (NLA_POLICY_MAX); unbounded would take any value.
            return policy.max(NetdevNetlink.NETDEV_A_NAPI_THREADED).orElse(Long.MAX_VALUE);
        }
    }

    /** {@code napi-get} of one NAPI answers for whichever interface it belongs to. */
    private static List<NetdevNetlink.Napi> anyInterface(List<byte[]> answer) {
        return answer.stream()
                .flatMap(message -> {
                    int ifindex = NetdevNetlink.attributes(message).stream()
                            .filter(attribute -> attribute.type() == NetdevNetlink.NETDEV_A_NAPI_IFINDEX)
                            .mapToInt(NetlinkCodec.Attribute::u32)
                            .findFirst()
                            .orElse(-1);
                    return NetdevNetlink.napis(List.of(message), ifindex).stream();
                })
                .toList();
    }

    private static NetdevSession openSession(KernelPaths paths, NativeBackend backend, String what) {
        Optional<NetdevSession> session = NetdevSession.open(backend);
        if (session.isEmpty()) {
            throw new NumaspreadException(
                    NumaspreadException.Kind.REFUSED,
                    what + " needs netdev netlink ("
                            + NEEDED_KERNEL + " or newer) through the ffm or jna backend; the "
                            + backend.kind().name().toLowerCase(Locale.ROOT) + " backend has no netlink");
        }
        return session.get();
    }

    private static NetdevNetlink.Family requireNapiSet(KernelPaths paths, NetdevSession session, String what) {
        Optional<NetdevNetlink.Family> family = session.family();
        if (family.isEmpty() || !family.get().has(NetdevNetlink.NETDEV_CMD_NAPI_SET)) {
            throw new NumaspreadException(
                    NumaspreadException.Kind.REFUSED,
                    what + " needs " + NEEDED_KERNEL
                            + " or newer (netdev netlink napi-set); kernel " + NapiDiscovery.kernelRelease(paths)
                            + (family.isEmpty() ? " has no netdev netlink family" : "'s netdev family lacks napi-set"));
        }
        return family.get();
    }
}
