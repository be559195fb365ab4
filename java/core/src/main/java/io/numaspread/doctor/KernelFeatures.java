// SPDX-License-Identifier: Apache-2.0
package io.numaspread.doctor;

import static io.numaspread.netlink.NetdevNetlink.NETDEV_A_NAPI_IRQ_SUSPEND_TIMEOUT;
import static io.numaspread.netlink.NetdevNetlink.NETDEV_A_NAPI_THREADED;
import static io.numaspread.netlink.NetdevNetlink.NETDEV_CMD_NAPI_GET;
import static io.numaspread.netlink.NetdevNetlink.NETDEV_CMD_NAPI_SET;
import static io.numaspread.netlink.NetdevNetlink.NETDEV_CMD_QUEUE_CREATE;
import static io.numaspread.netlink.NetdevNetlink.NETDEV_CMD_QUEUE_GET;
import static io.numaspread.netlink.NetdevNetlink.NETDEV_NAPI_THREADED_BUSY_POLL;

import io.numaspread.doctor.Finding.Area;
import io.numaspread.kernel.IoUringSysctl;
import io.numaspread.netlink.NetdevNetlink;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The kernel features numaspread uses, judged from what the kernel answered: the netdev family's op list and
 * napi-set's policy, a NIC's queue and NAPI links, sysctl files and the release. Pure.
 */
public final class KernelFeatures {
    /** Drivers that call {@code netif_set_affinity_auto} (Linux 6.15): the kernel keeps their IRQs' affinity. */
    static final Set<String> AUTO_AFFINITY_DRIVERS = Set.of("ice", "idpf", "iavf");

    private static final Map<Integer, String> COMMANDS = Map.of(
            NETDEV_CMD_QUEUE_GET,
            "queue-get",
            NETDEV_CMD_NAPI_GET,
            "napi-get",
            NETDEV_CMD_NAPI_SET,
            "napi-set",
            NETDEV_CMD_QUEUE_CREATE,
            "queue-create");

    private static final Pattern RELEASE = Pattern.compile("^(\\d+)\\.(\\d+)");

    private KernelFeatures() {}

    /** How the netdev family was asked about. */
    public enum Asked {
        /** The family answered. */
        FAMILY,
        /** The control family knows no netdev family. */
        NO_FAMILY,
        /** It could not be asked (no netlink in the backend, or the socket failed): {@code evidence} says why. */
        NOT_ASKED
    }

    /**
     * The netdev family as the running kernel answered.
     *
     * @param commands its op list (empty unless {@link Asked#FAMILY})
     * @param evidence what was asked and what came back, or why nothing was asked
     * @param napiSetPolicy napi-set's policy, when the family has napi-set and the policy could be read
     * @param policyEvidence how the policy was read, or why it was not
     */
    public record Netdev(
            Asked asked,
            Set<Integer> commands,
            String evidence,
            Optional<NetdevNetlink.Policy> napiSetPolicy,
            String policyEvidence) {
        public Netdev {
            commands = Collections.unmodifiableSortedSet(new TreeSet<>(commands));
        }
    }

    /**
     * What one NIC's driver links, by the kernel's netdev answers: its receive queues and how many name a NAPI
     * instance (queue-get), its NAPI instances and how many name an IRQ (napi-get). The kernel lists neither for
     * an interface that is down ({@code IFF_UP} clear), so {@code up} says whether the counts mean anything.
     */
    public record Links(boolean up, int rxQueues, int rxQueuesWithNapi, int napis, int napisWithIrq) {}

    /**
     * The NIC given with {@code --nic}: its name and driver (sysfs), and its links, or why they could not be read.
     */
    public record NicFacts(String name, String driver, Optional<Links> links, String linksEvidence) {}

    /** Major and minor of a release like {@code 6.12.117+deb13-amd64}; empty when it does not start so. */
    static Optional<int[]> version(String release) {
        Matcher matcher = RELEASE.matcher(release);
        if (!matcher.find()) {
            return Optional.empty();
        }
        return Optional.of(new int[] {Integer.parseInt(matcher.group(1)), Integer.parseInt(matcher.group(2))});
    }

    static boolean atLeast(String release, int major, int minor) {
        return version(release)
                .map(v -> v[0] > major || (v[0] == major && v[1] >= minor))
                .orElse(false);
    }

    /** The kernel features, in the report's order. */
    public static List<Finding> findings(
            String release, Netdev netdev, Optional<NicFacts> nic, KernelFile txqReselection) {
        List<Finding> found = new ArrayList<>();
        found.add(family(netdev));
        found.add(op(netdev, "queue_get", NETDEV_CMD_QUEUE_GET, "Linux 6.8"));
        found.add(op(netdev, "napi_get", NETDEV_CMD_NAPI_GET, "Linux 6.8"));
        found.add(queueLinks(netdev, nic));
        found.add(irqLinks(netdev, nic));
        found.add(op(netdev, "napi_set", NETDEV_CMD_NAPI_SET, "Linux 6.13"));
        found.add(policyAttribute(
                netdev, "irq_suspend", NETDEV_A_NAPI_IRQ_SUSPEND_TIMEOUT, "irq-suspend-timeout", "Linux 6.13"));
        found.add(policyAttribute(netdev, "napi_threaded", NETDEV_A_NAPI_THREADED, "threaded", "Linux 6.17"));
        found.add(threadedBusyPoll(netdev));
        found.add(persistentConfig(netdev, nic));
        // queue-create and queue-get's lease nest came in one series (Linux 7.0); the op is what the op list shows
        found.add(op(netdev, "queue_leasing", NETDEV_CMD_QUEUE_CREATE, "Linux 7.0"));
        found.add(driverAffinity(release, nic));
        found.add(txqReselection(txqReselection));
        return found;
    }

    private static Finding family(Netdev netdev) {
        return switch (netdev.asked()) {
            case FAMILY -> Finding.present(Area.KERNEL, "netdev_family", netdev.evidence());
            case NO_FAMILY -> Finding.absent(Area.KERNEL, "netdev_family", netdev.evidence(), "Linux 6.3");
            case NOT_ASKED -> notAsked(netdev, "netdev_family");
        };
    }

    private static Finding notAsked(Netdev netdev, String feature) {
        return Finding.unknown(
                Area.KERNEL, feature, netdev.evidence(), "a native backend (FFM or JNA) on the live kernel");
    }

    private static Finding op(Netdev netdev, String feature, int command, String need) {
        String name = COMMANDS.get(command) + " (" + command + ")";
        return switch (netdev.asked()) {
            case FAMILY ->
                netdev.commands().contains(command)
                        ? Finding.present(Area.KERNEL, feature, name + " is in the netdev family's op list")
                        : Finding.absent(
                                Area.KERNEL,
                                feature,
                                name + " is not in the netdev family's op list " + netdev.commands(),
                                need);
            case NO_FAMILY -> Finding.absent(Area.KERNEL, feature, "no netdev family", need);
            case NOT_ASKED -> notAsked(netdev, feature);
        };
    }

    private static Finding queueLinks(Netdev netdev, Optional<NicFacts> nic) {
        Finding kernel = op(netdev, "queue_napi_links", NETDEV_CMD_QUEUE_GET, "Linux 6.8");
        if (kernel.state() != Finding.State.PRESENT) {
            return kernel;
        }
        if (nic.isEmpty()) {
            return Finding.unknown(
                    Area.KERNEL,
                    "queue_napi_links",
                    "the kernel has queue-get; whether a driver links its queues to NAPI instances is per NIC",
                    "--nic IFACE");
        }
        NicFacts facts = nic.get();
        if (facts.links().isEmpty()) {
            return Finding.unknown(Area.KERNEL, "queue_napi_links", facts.linksEvidence(), "--nic IFACE readable");
        }
        Links links = facts.links().get();
        if (!links.up()) {
            return down("queue_napi_links", facts);
        }
        String evidence = "queue-get: " + links.rxQueuesWithNapi() + " of " + facts.name() + "'s " + links.rxQueues()
                + " rx queues name a NAPI ID (driver " + facts.driver() + ")";
        return links.rxQueuesWithNapi() > 0
                ? Finding.present(Area.KERNEL, "queue_napi_links", evidence)
                : Finding.absent(
                        Area.KERNEL,
                        "queue_napi_links",
                        evidence,
                        "a driver that calls netif_queue_set_napi (Linux 6.8 and the driver's support)");
    }

    private static Finding irqLinks(Netdev netdev, Optional<NicFacts> nic) {
        Finding kernel = op(netdev, "napi_irq_links", NETDEV_CMD_NAPI_GET, "Linux 6.8");
        if (kernel.state() != Finding.State.PRESENT) {
            return kernel;
        }
        if (nic.isEmpty()) {
            return Finding.unknown(
                    Area.KERNEL,
                    "napi_irq_links",
                    "the kernel has napi-get; whether a driver links its NAPI instances to IRQs is per NIC",
                    "--nic IFACE");
        }
        NicFacts facts = nic.get();
        if (facts.links().isEmpty()) {
            return Finding.unknown(Area.KERNEL, "napi_irq_links", facts.linksEvidence(), "--nic IFACE readable");
        }
        Links links = facts.links().get();
        if (!links.up()) {
            return down("napi_irq_links", facts);
        }
        String evidence = "napi-get: " + links.napisWithIrq() + " of " + facts.name() + "'s " + links.napis()
                + " NAPI instances name an IRQ (driver " + facts.driver() + ")";
        return links.napisWithIrq() > 0
                ? Finding.present(Area.KERNEL, "napi_irq_links", evidence)
                : Finding.absent(
                        Area.KERNEL,
                        "napi_irq_links",
                        evidence,
                        "a driver that calls netif_napi_set_irq (Linux 6.8 and the driver's support)");
    }

    private static Finding down(String feature, NicFacts facts) {
        return Finding.unknown(
                Area.KERNEL,
                feature,
                facts.name() + " is down: the kernel lists the queues and NAPI instances of an interface that is up",
                "ip link set " + facts.name() + " up");
    }

    /** An attribute napi-set accepts, by its policy; without the policy, unknown. */
    private static Finding policyAttribute(Netdev netdev, String feature, int attribute, String name, String need) {
        Finding napiSet = op(netdev, feature, NETDEV_CMD_NAPI_SET, need);
        if (napiSet.state() != Finding.State.PRESENT) {
            return napiSet.state() == Finding.State.ABSENT
                    ? Finding.absent(Area.KERNEL, feature, "no napi-set: " + napiSet.evidence(), need)
                    : napiSet;
        }
        if (netdev.napiSetPolicy().isEmpty()) {
            return Finding.unknown(Area.KERNEL, feature, netdev.policyEvidence(), need + " (policy unreadable)");
        }
        return netdev.napiSetPolicy().get().accepts(attribute)
                ? Finding.present(
                        Area.KERNEL,
                        feature,
                        "napi-set's policy accepts " + name + " (" + netdev.policyEvidence() + ")")
                : Finding.absent(
                        Area.KERNEL,
                        feature,
                        "napi-set's policy has no " + name + " (" + netdev.policyEvidence() + ")",
                        need);
    }

    private static Finding threadedBusyPoll(Netdev netdev) {
        Finding threaded =
                policyAttribute(netdev, "threaded_busy_poll", NETDEV_A_NAPI_THREADED, "threaded", "Linux 6.19");
        if (threaded.state() != Finding.State.PRESENT) {
            return threaded;
        }
        OptionalLong max = netdev.napiSetPolicy().orElseThrow().max(NETDEV_A_NAPI_THREADED);
        String evidence = "napi-set's policy bounds threaded at " + (max.isPresent() ? max.getAsLong() : "no value")
                + " (busy-poll is " + NETDEV_NAPI_THREADED_BUSY_POLL + "; " + netdev.policyEvidence() + ")";
        return max.isPresent() && max.getAsLong() >= NETDEV_NAPI_THREADED_BUSY_POLL
                ? Finding.present(Area.KERNEL, "threaded_busy_poll", evidence)
                : Finding.absent(Area.KERNEL, "threaded_busy_poll", evidence, "Linux 6.19");
    }

    /**
     * NAPI settings kept per queue across a reset (Linux 6.13, {@code netif_napi_add_config}): the kernel's part
     * came with napi-set; whether a driver uses it is not visible from user space.
     */
    private static Finding persistentConfig(Netdev netdev, Optional<NicFacts> nic) {
        Finding napiSet = op(netdev, "persistent_napi_config", NETDEV_CMD_NAPI_SET, "Linux 6.13");
        if (napiSet.state() != Finding.State.PRESENT) {
            return napiSet;
        }
        String driver = nic.map(facts -> "driver " + facts.driver()).orElse("a driver");
        return Finding.unknown(
                Area.KERNEL,
                "persistent_napi_config",
                "the kernel has it (napi-set came with it in 6.13); whether " + driver + " adds its NAPI instances"
                        + " with netif_napi_add_config is not visible from user space",
                "a driver that uses netif_napi_add_config");
    }

    private static Finding driverAffinity(String release, Optional<NicFacts> nic) {
        String feature = "driver_irq_affinity";
        if (nic.isEmpty()) {
            return Finding.unknown(
                    Area.KERNEL,
                    feature,
                    "drivers that keep their own IRQ affinity (netif_set_affinity_auto, Linux 6.15: ice, idpf,"
                            + " iavf) are known by the NIC's driver",
                    "--nic IFACE");
        }
        String driver = nic.get().driver();
        if (!AUTO_AFFINITY_DRIVERS.contains(driver)) {
            return Finding.without(
                    Area.KERNEL,
                    feature,
                    "driver " + driver + " is not one that calls netif_set_affinity_auto (ice, idpf, iavf)");
        }
        if (!atLeast(release, 6, 15)) {
            return Finding.without(
                    Area.KERNEL,
                    feature,
                    "driver " + driver + " calls netif_set_affinity_auto from Linux 6.15, and this is " + release);
        }
        return Finding.present(
                Area.KERNEL,
                feature,
                "driver " + driver + " on Linux " + release + " calls netif_set_affinity_auto: the kernel keeps each"
                        + " queue IRQ's affinity in its NAPI config and sets it again after each reset");
    }

    /**
     * io_uring for the loops' NAPI busy polling: whether this process may make rings ({@code io_uring_disabled}
     * and {@code io_uring_group} of Linux 6.6, judged as the kernel's {@code io_uring_allowed()} does, with the
     * process's {@code status}), {@code IORING_REGISTER_NAPI} (Linux 6.9) and its static NAPI tracking (6.13), by
     * the release, since a register needs a ring to ask.
     */
    public static List<Finding> ioUring(String release, KernelFile disabled, KernelFile group, KernelFile status) {
        List<Finding> found = new ArrayList<>();
        found.add(ioUringAllowed(release, disabled, group, status));
        found.add(byRelease(
                release,
                "io_uring_napi",
                6,
                9,
                "io_uring_register(IORING_REGISTER_NAPI): each io_uring loop's ring busy-polls its NAPI instances"));
        found.add(byRelease(
                release,
                "io_uring_napi_static",
                6,
                13,
                "IO_URING_NAPI_TRACKING_STATIC: each ring polls exactly its loop's queues' NAPI IDs (before, it"
                        + " tracks those of the sockets it serves)"));
        return found;
    }

    private static Finding ioUringAllowed(String release, KernelFile disabled, KernelFile group, KernelFile status) {
        String feature = "io_uring_allowed";
        if (disabled.error().isPresent()) {
            return Finding.unknown(
                    Area.KERNEL,
                    feature,
                    "cannot read " + disabled.path() + ": " + disabled.error().get(),
                    "read access to it");
        }
        if (disabled.text().isEmpty()) {
            return atLeast(release, 6, 6)
                    ? Finding.absent(
                            Area.KERNEL,
                            feature,
                            disabled.path() + " does not exist on Linux " + release
                                    + ", which has it from 6.6 when built with io_uring",
                            "a kernel built with CONFIG_IO_URING")
                    : Finding.unknown(
                            Area.KERNEL,
                            feature,
                            disabled.path() + " does not exist: Linux " + release + " is older than the sysctl (6.6)",
                            "Linux 6.6, to tell (io_uring busy polling needs 6.9)");
        }
        Optional<String> refusal = IoUringSysctl.judge(
                disabled.text().get(),
                group.text().orElse("-1"),
                status.text().orElse(""),
                disabled.path().getParent());
        String evidence = disabled.path() + " is " + disabled.text().get()
                + group.text().map(value -> ", io_uring_group " + value).orElse("");
        return refusal.isEmpty()
                ? Finding.present(Area.KERNEL, feature, evidence + ": this process may make rings")
                : Finding.absent(
                        Area.KERNEL,
                        feature,
                        refusal.get(),
                        "io_uring_disabled 0, or with 1 CAP_SYS_ADMIN or io_uring_group");
    }

    private static Finding byRelease(String release, String feature, int major, int minor, String what) {
        String need = "Linux " + major + "." + minor;
        if (version(release).isEmpty()) {
            return Finding.unknown(Area.KERNEL, feature, "no kernel release was read", need);
        }
        return atLeast(release, major, minor)
                ? Finding.present(Area.KERNEL, feature, "Linux " + release + " has " + what + " (" + need + ")")
                : Finding.absent(
                        Area.KERNEL, feature, "Linux " + release + " is older than " + need + ": " + what, need);
    }

    private static Finding txqReselection(KernelFile file) {
        String feature = "txq_reselection_ms";
        if (file.text().isPresent()) {
            return Finding.present(
                    Area.KERNEL, feature, file.path() + " is " + file.text().get());
        }
        if (file.error().isPresent()) {
            return Finding.unknown(
                    Area.KERNEL,
                    feature,
                    "cannot read " + file.path() + ": " + file.error().get(),
                    "read access to it");
        }
        return Finding.absent(Area.KERNEL, feature, file.path() + " does not exist", "Linux 6.19");
    }
}
