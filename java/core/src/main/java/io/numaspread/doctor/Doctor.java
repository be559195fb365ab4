// SPDX-License-Identifier: Apache-2.0
package io.numaspread.doctor;

import io.numaspread.NumaspreadException;
import io.numaspread.irq.Irqbalance;
import io.numaspread.irq.LinkIrqPolicy;
import io.numaspread.kernel.InterfaceName;
import io.numaspread.kernel.KernelPaths;
import io.numaspread.kernel.KernelText;
import io.numaspread.nativeaccess.Backends;
import io.numaspread.netlink.NetdevNetlink;
import io.numaspread.netlink.NetdevSession;
import io.numaspread.nic.Nic;
import io.numaspread.nic.NicDiscovery;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * Reads the machine for the doctor's report: the edge where the files and the netlink answers are read; {@link
 * KernelFeatures} and {@link Machine} judge them.
 */
public final class Doctor {
    /** {@code <linux/if.h>}. */
    static final long IFF_UP = 0x1;

    private Doctor() {}

    /**
     * The report for the machine {@code paths} describe, with udev's and the services' files under {@code
     * hostRoot}; the netdev family is asked through {@code selection}'s backend on the live kernel only, since its
     * answers describe this kernel and not a stand-in tree.
     *
     * @throws NumaspreadException (bad input) when {@code nic} is not a network interface of {@code paths}
     */
    public static Report examine(
            KernelPaths paths, Path hostRoot, Optional<InterfaceName> nic, Backends.Selection selection) {
        Path proc = paths.procRoot();
        KernelFile release = KernelFile.read(proc.resolve("sys/kernel/osrelease"));
        String releaseText = release.text().orElse("");
        Optional<Nic> found = nic.map(name -> NicDiscovery.discover(name, paths));
        Optional<String> driver = found.map(Nic::driver);
        List<Finding> findings = new ArrayList<>();
        NetdevReading reading = readNetdev(paths, nic, driver, selection);
        findings.addAll(KernelFeatures.findings(
                releaseText,
                reading.netdev(),
                reading.nic(),
                KernelFile.read(proc.resolve("sys/net/core/txq_reselection_ms"))));
        KernelFile status = KernelFile.read(proc.resolve("self/status"));
        findings.addAll(KernelFeatures.ioUring(
                releaseText,
                KernelFile.read(proc.resolve("sys/kernel/io_uring_disabled")),
                KernelFile.read(proc.resolve("sys/kernel/io_uring_group")),
                status));
        findings.addAll(Machine.backends(selection.backend().kind(), selection.unavailable()));
        Path irqFile = paths.irqRoot().resolve("default_smp_affinity");
        findings.addAll(Machine.privileges(
                status,
                irqFile.toString(),
                Files.exists(irqFile) ? Optional.of(Files.isWritable(irqFile)) : Optional.empty()));
        findings.add(Machine.isolation(
                found.map(each -> new Machine.NicCpus(each.name().value(), each.numaNode(), each.localCpus())),
                KernelFile.read(paths.sysfsRoot().resolve("fs/cgroup/cpuset.cpus.isolated")),
                KernelFile.read(paths.sysfsRoot().resolve("devices/system/cpu/isolated"))));
        findings.add(Machine.cpuset(status));
        findings.add(irqbalance(proc));
        findings.add(linkPolicies(hostRoot, paths, nic));
        findings.add(Machine.tuned(KernelFile.read(hostRoot.resolve("etc/tuned/active_profile"))));
        findings.add(Machine.crio(
                KernelFile.read(hostRoot.resolve("etc/sysconfig/orig_irq_banned_cpus")), irqbalanceConfig(hostRoot)));
        return new Report(releaseText, findings);
    }

    private record NetdevReading(KernelFeatures.Netdev netdev, Optional<KernelFeatures.NicFacts> nic) {}

    private static NetdevReading readNetdev(
            KernelPaths paths, Optional<InterfaceName> nic, Optional<String> driver, Backends.Selection selection) {
        String backend = selection.backend().kind().name().toLowerCase(Locale.ROOT);
        if (!paths.isLive()) {
            return notAsked(
                    "netdev netlink answers for the live kernel, not for the stand-in trees " + paths.procRoot()
                            + " and " + paths.sysfsRoot(),
                    nic,
                    driver);
        }
        Optional<NetdevSession> opened;
        try {
            opened = NetdevSession.open(selection.backend());
        } catch (NumaspreadException e) {
            // a socket the process may not open (a seccomp profile, no NETLINK_GENERIC) is a finding, not a failure
            return notAsked("cannot open a generic netlink socket: " + e.getMessage(), nic, driver);
        }
        if (opened.isEmpty()) {
            return notAsked("the " + backend + " backend has no netlink", nic, driver);
        }
        try (NetdevSession session = opened.get()) {
            Optional<NetdevNetlink.Family> found = session.family();
            if (found.isEmpty()) {
                return new NetdevReading(
                        new KernelFeatures.Netdev(
                                KernelFeatures.Asked.NO_FAMILY,
                                Set.of(),
                                "nlctrl getfamily netdev: ENOENT, no such family",
                                Optional.empty(),
                                "no family"),
                        nic.map(name -> new KernelFeatures.NicFacts(
                                name.value(), driver.orElseThrow(), Optional.empty(), "no netdev family")));
            }
            NetdevNetlink.Family family = found.get();
            Optional<NetdevNetlink.Policy> policy = Optional.empty();
            String policyEvidence = "napi-set is not in the op list";
            if (family.has(NetdevNetlink.NETDEV_CMD_NAPI_SET)) {
                String call = "nlctrl getpolicy netdev napi-set";
                try {
                    policy = Optional.of(NetdevSession.parse(
                            session.request(
                                    sequence ->
                                            NetdevNetlink.policyRequest(sequence, NetdevNetlink.NETDEV_CMD_NAPI_SET),
                                    call),
                            answer -> NetdevNetlink.policy(answer, NetdevNetlink.NETDEV_CMD_NAPI_SET),
                            call));
                    policyEvidence = call;
                } catch (NumaspreadException e) {
                    policyEvidence = call + " failed: " + e.getMessage();
                }
            }
            KernelFeatures.Netdev netdev = new KernelFeatures.Netdev(
                    KernelFeatures.Asked.FAMILY,
                    family.commands(),
                    "nlctrl getfamily netdev: family " + family.id() + ", ops " + new TreeSet<>(family.commands()),
                    policy,
                    policyEvidence);
            return new NetdevReading(
                    netdev, nic.map(name -> links(session, family, paths, name, driver.orElseThrow())));
        } catch (NumaspreadException e) {
            return notAsked("netdev netlink failed: " + e.getMessage(), nic, driver);
        }
    }

    private static NetdevReading notAsked(String why, Optional<InterfaceName> nic, Optional<String> driver) {
        return new NetdevReading(
                new KernelFeatures.Netdev(KernelFeatures.Asked.NOT_ASKED, Set.of(), why, Optional.empty(), why),
                nic.map(name ->
                        new KernelFeatures.NicFacts(name.value(), driver.orElseThrow(), Optional.empty(), why)));
    }

    /** The NIC's rx queues and NAPI instances as queue-get and napi-get answer, when the family has both. */
    private static KernelFeatures.NicFacts links(
            NetdevSession session, NetdevNetlink.Family family, KernelPaths paths, InterfaceName nic, String driver) {
        if (!family.has(NetdevNetlink.NETDEV_CMD_QUEUE_GET) || !family.has(NetdevNetlink.NETDEV_CMD_NAPI_GET)) {
            return new KernelFeatures.NicFacts(
                    nic.value(), driver, Optional.empty(), "the netdev family lacks queue-get or napi-get");
        }
        int ifindex;
        Path ifindexFile = paths.netDevice(nic).resolve("ifindex");
        try {
            ifindex = Integer.parseInt(KernelText.read(ifindexFile));
        } catch (IOException | NumberFormatException e) {
            return new KernelFeatures.NicFacts(
                    nic.value(), driver, Optional.empty(), "cannot read " + ifindexFile + ": " + e.getMessage());
        }
        List<NetdevNetlink.Queue> queues = session.queues(family, ifindex, nic.value());
        List<NetdevNetlink.Napi> napis = session.napis(family, ifindex, nic.value());
        List<NetdevNetlink.Queue> rx = queues.stream()
                .filter(queue -> queue.type() == NetdevNetlink.NETDEV_QUEUE_TYPE_RX)
                .toList();
        return new KernelFeatures.NicFacts(
                nic.value(),
                driver,
                Optional.of(new KernelFeatures.Links(
                        up(paths, nic),
                        rx.size(),
                        (int) rx.stream()
                                .filter(queue -> queue.napiId().isPresent())
                                .count(),
                        napis.size(),
                        (int) napis.stream()
                                .filter(napi -> napi.irq().isPresent())
                                .count())),
                "netdev queue-get " + nic + ", netdev napi-get " + nic);
    }

    /** {@code IFF_UP} in the interface's {@code flags} (sysfs, hex); up when the file cannot say. */
    private static boolean up(KernelPaths paths, InterfaceName nic) {
        KernelFile flags = KernelFile.read(paths.netDevice(nic).resolve("flags"));
        try {
            return flags.text().map(text -> (Long.decode(text) & IFF_UP) != 0).orElse(true);
        } catch (NumberFormatException e) {
            return true;
        }
    }

    private static Finding irqbalance(Path proc) {
        try {
            return Machine.irqbalance(Irqbalance.find(proc), Irqbalance.blindSpot(proc), Optional.empty());
        } catch (NumaspreadException e) {
            return Machine.irqbalance(List.of(), Optional.empty(), Optional.of(e.getMessage()));
        }
    }

    private static Finding linkPolicies(Path hostRoot, KernelPaths paths, Optional<InterfaceName> nic) {
        if (nic.isEmpty()) {
            return Machine.linkPolicies(Optional.empty(), List.of(), Optional.empty());
        }
        try {
            return Machine.linkPolicies(
                    Optional.of(nic.get().value()), LinkIrqPolicy.find(hostRoot, paths, nic.get()), Optional.empty());
        } catch (NumaspreadException e) {
            return Machine.linkPolicies(Optional.of(nic.get().value()), List.of(), Optional.of(e.getMessage()));
        }
    }

    /** irqbalance's configuration as CRI-O rewrites it: Red Hat's path, else Debian's. */
    private static KernelFile irqbalanceConfig(Path hostRoot) {
        KernelFile sysconfig = KernelFile.read(hostRoot.resolve("etc/sysconfig/irqbalance"));
        return sysconfig.exists() ? sysconfig : KernelFile.read(hostRoot.resolve("etc/default/irqbalance"));
    }
}
