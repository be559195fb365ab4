// SPDX-License-Identifier: Apache-2.0
package io.numaspread.nic;

import io.numaspread.NumaspreadException;
import io.numaspread.kernel.InterfaceName;
import io.numaspread.kernel.KernelPaths;
import io.numaspread.kernel.KernelText;
import io.numaspread.nativeaccess.NativeBackend;
import io.numaspread.netlink.NetdevNetlink;
import io.numaspread.netlink.NetdevSession;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.TreeMap;

/**
 * Finds a NIC's NAPI instances and the receive queue each polls, through the kernel's netdev generic netlink
 * family ({@code queue-get} and {@code napi-get}, Linux 6.8+), and says which source it used:
 * <ul>
 *   <li>{@link NapiSource#NETLINK}: the driver links its receive queues to NAPI IDs;
 *   <li>{@link NapiSource#NETLINK_DERIVED}: {@code napi-get} gives the NAPI IDs but no queue is linked to them
 *       (virtio_net before about 6.14), so queue {@code i} is taken to be the {@code i}-th lowest NAPI ID: such
 *       a driver registers one NAPI per receive queue, in queue order, at probe, and the kernel numbers NAPIs
 *       as they are registered;
 *   <li>{@link NapiSource#INTERRUPTS}: no netdev family, no {@code napi-get}, or a backend without netlink;
 *       the queues' IRQs, named in /proc/interrupts, are all there is.
 * </ul>
 */
public final class NapiDiscovery {
    private NapiDiscovery() {}

    /**
     * The NAPI instances of {@code iface}, from netdev netlink where the kernel has it, otherwise a map with
     * source {@link NapiSource#INTERRUPTS} whose detail line says why.
     *
     * @throws NumaspreadException (bad input) when the interface does not exist; (call failed) when a netlink
     *     call fails for another reason than a missing family, naming the call and its errno
     */
    public static NapiMap discover(InterfaceName iface, KernelPaths paths, NativeBackend backend) {
        Path netDir = paths.netDevice(iface);
        if (!Files.isDirectory(netDir)) {
            throw NumaspreadException.badInput("no such interface " + iface + " (" + netDir + " does not exist)");
        }
        Optional<NetdevSession> opened = NetdevSession.open(backend);
        if (opened.isEmpty()) {
            return interrupts(
                    iface,
                    "the " + backend.kind().name().toLowerCase(Locale.ROOT)
                            + " backend has no netlink to ask netdev for NAPI IDs");
        }
        try (NetdevSession session = opened.get()) {
            int ifindex = parseIfindex(netDir.resolve("ifindex"));
            int rxQueues =
                    NicDiscovery.numbersIn(netDir.resolve("queues"), "rx-").size();
            String release = kernelRelease(paths);
            Optional<NetdevNetlink.Family> found = session.family();
            if (found.isEmpty()) {
                return interrupts(
                        iface,
                        "kernel " + release + " has no netdev generic netlink family "
                                + "(queue-get and napi-get need Linux 6.8+)");
            }
            NetdevNetlink.Family family = found.get();
            if (!family.has(NetdevNetlink.NETDEV_CMD_NAPI_GET)) {
                return interrupts(
                        iface, "kernel " + release + "'s netdev netlink family has no napi-get " + "(Linux 6.8+)");
            }
            List<NetdevNetlink.Queue> queues = List.of();
            if (family.has(NetdevNetlink.NETDEV_CMD_QUEUE_GET)) {
                queues = session.queues(family, ifindex, iface.value());
            }
            List<NetdevNetlink.Napi> napis = session.napis(family, ifindex, iface.value());
            return fromNetlink(iface, queues, napis, rxQueues);
        }
    }

    /** The running kernel's release, for messages; "unknown" when /proc does not say. */
    static String kernelRelease(KernelPaths paths) {
        return KernelText.readOptional(paths.procRoot().resolve("sys/kernel/osrelease"))
                .orElse("unknown");
    }

    /**
     * The map from what netdev netlink answered: {@link NapiSource#NETLINK} when any receive queue names its NAPI,
     * otherwise {@link NapiSource#NETLINK_DERIVED}. Pure.
     *
     * @param rxQueues how many receive queues the interface has ({@code queues/rx-*} in sysfs)
     */
    static NapiMap fromNetlink(
            InterfaceName iface, List<NetdevNetlink.Queue> queues, List<NetdevNetlink.Napi> napis, int rxQueues) {
        List<NetdevNetlink.Napi> byId = napis.stream()
                .filter(napi -> napi.id() >= NapiInstance.MIN_NAPI_ID)
                .sorted(Comparator.comparingInt(NetdevNetlink.Napi::id))
                .toList();
        Map<Integer, Integer> rxQueueOfNapi = new TreeMap<>();
        for (NetdevNetlink.Queue queue : queues) {
            if (queue.type() == NetdevNetlink.NETDEV_QUEUE_TYPE_RX
                    && queue.napiId().isPresent()) {
                rxQueueOfNapi.merge(queue.napiId().getAsInt(), queue.id(), Math::min);
            }
        }
        String threads = threadsNote(byId);
        if (!rxQueueOfNapi.isEmpty()) {
            List<NapiInstance> instances = new ArrayList<>();
            for (NetdevNetlink.Napi napi : byId) {
                Integer queue = rxQueueOfNapi.get(napi.id());
                instances.add(new NapiInstance(
                        napi.id(),
                        queue == null ? OptionalInt.empty() : OptionalInt.of(queue),
                        napi.irq(),
                        napi.threadPid(),
                        napi.threaded()));
            }
            return new NapiMap(
                    iface,
                    instances,
                    NapiSource.NETLINK,
                    "netdev netlink: queue-get links "
                            + rxQueueOfNapi.size() + " of " + rxQueues + " rx queues to NAPI IDs; napi-get gives "
                            + napiCount(byId.size()) + irqsNote(byId) + threads);
        }
        boolean derivable = byId.size() == rxQueues;
        List<NapiInstance> instances = new ArrayList<>();
        for (int i = 0; i < byId.size(); i++) {
            NetdevNetlink.Napi napi = byId.get(i);
            instances.add(new NapiInstance(
                    napi.id(),
                    derivable ? OptionalInt.of(i) : OptionalInt.empty(),
                    napi.irq(),
                    napi.threadPid(),
                    napi.threaded()));
        }
        String derivation = derivable
                ? "rx queue i is taken to be the i-th lowest NAPI ID, since a driver that links none (virtio_net "
                        + "before about Linux 6.14) registers one NAPI per rx queue, in queue order, at probe"
                : "the " + napiCount(byId.size()) + " cannot be matched to " + rxQueues + " rx queues, so no queue "
                        + "is assigned";
        return new NapiMap(
                iface,
                instances,
                NapiSource.NETLINK_DERIVED,
                "netdev netlink: napi-get gives "
                        + napiCount(byId.size()) + irqsNote(byId) + threads
                        + ", but queue-get links no rx queue to them; "
                        + derivation);
    }

    private static String napiCount(int count) {
        return count + (count == 1 ? " NAPI" : " NAPIs");
    }

    private static String irqsNote(List<NetdevNetlink.Napi> napis) {
        long withIrq = napis.stream().filter(napi -> napi.irq().isPresent()).count();
        return withIrq == napis.size()
                ? " with their IRQs"
                : withIrq == 0 ? " without IRQs" : ", " + withIrq + " with IRQs";
    }

    private static String threadsNote(List<NetdevNetlink.Napi> napis) {
        long threaded =
                napis.stream().filter(napi -> napi.threadPid().isPresent()).count();
        return threaded == 0
                ? ", NAPI not threaded"
                : threaded == napis.size() ? ", threaded (thread PIDs)" : ", " + threaded + " threaded";
    }

    private static NapiMap interrupts(InterfaceName iface, String why) {
        return new NapiMap(
                iface,
                List.of(),
                NapiSource.INTERRUPTS,
                why + "; queues are known by their IRQs in " + "/proc/interrupts only");
    }

    /** An interface's {@code ifindex} file, read. */
    static int parseIfindex(Path file) {
        String text = KernelText.readRequired(file);
        try {
            return Integer.parseInt(text);
        } catch (NumberFormatException e) {
            throw NumaspreadException.badInput(
                    file + " holds \"" + KernelText.escape(text) + "\", not an interface index");
        }
    }
}
