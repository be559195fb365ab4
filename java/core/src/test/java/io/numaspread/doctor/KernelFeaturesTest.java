// SPDX-License-Identifier: Apache-2.0
package io.numaspread.doctor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.numaspread.doctor.Finding.State;
import io.numaspread.doctor.KernelFeatures.Asked;
import io.numaspread.doctor.KernelFeatures.Links;
import io.numaspread.doctor.KernelFeatures.Netdev;
import io.numaspread.doctor.KernelFeatures.NicFacts;
import io.numaspread.netlink.NetdevNetlink;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The kernel features judged from values: op lists, napi-set's policy, a NIC's links, the txq sysctl. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class KernelFeaturesTest {
    private static final Path TXQ = Path.of("/proc/sys/net/core/txq_reselection_ms");
    private static final KernelFile NO_TXQ = KernelFile.missing(TXQ);

    /** napi-set's policy with threaded bounded at {@code threadedMax}, or without threaded when negative. */
    private static Optional<NetdevNetlink.Policy> policy(long threadedMax) {
        Map<Integer, OptionalLong> maxima =
                new java.util.HashMap<>(Map.of(2, OptionalLong.empty(), 7, OptionalLong.of(-1L)));
        if (threadedMax >= 0) {
            maxima.put(8, OptionalLong.of(threadedMax));
        }
        return Optional.of(new NetdevNetlink.Policy(maxima));
    }

    private static Netdev family(Set<Integer> ops, Optional<NetdevNetlink.Policy> policy) {
        return new Netdev(Asked.FAMILY, ops, "nlctrl getfamily netdev", policy, "nlctrl getpolicy netdev napi-set");
    }

    private static Map<String, Finding> byFeature(List<Finding> findings) {
        return findings.stream().collect(Collectors.toMap(Finding::feature, finding -> finding));
    }

    @Test
    void linux61sFamilyWithoutNapiSetSaysNapiSetAndWhatCameWithItNeed613() {
        Map<String, Finding> found = byFeature(KernelFeatures.findings(
                "6.1.0-57-amd64", family(Set.of(1, 2, 3, 4), Optional.empty()), Optional.empty(), NO_TXQ));
        assertEquals(State.PRESENT, found.get("netdev_family").state());
        for (String feature : List.of("napi_set", "irq_suspend", "persistent_napi_config")) {
            assertEquals(State.ABSENT, found.get(feature).state(), feature);
            assertEquals(Optional.of("Linux 6.13"), found.get(feature).need(), feature);
        }
        assertEquals(Optional.of("Linux 6.8"), found.get("queue_get").need());
        assertEquals(Optional.of("Linux 6.8"), found.get("queue_napi_links").need());
        assertEquals(Optional.of("Linux 6.17"), found.get("napi_threaded").need());
        assertEquals(Optional.of("Linux 6.19"), found.get("threaded_busy_poll").need());
        assertEquals(State.ABSENT, found.get("txq_reselection_ms").state());
        assertEquals(Optional.of("Linux 6.19"), found.get("txq_reselection_ms").need());
        assertEquals(State.UNKNOWN, found.get("driver_irq_affinity").state(), "no --nic");
    }

    @Test
    void aPolicyBoundingThreadedAtOneHasPerNapiThreadingButNoBusyPoll() {
        Map<String, Finding> found = byFeature(
                KernelFeatures.findings("6.18.44", family(Set.of(1, 10, 11, 14), policy(1)), Optional.empty(), NO_TXQ));
        assertEquals(State.PRESENT, found.get("napi_set").state());
        assertEquals(State.PRESENT, found.get("irq_suspend").state());
        assertEquals(State.PRESENT, found.get("napi_threaded").state());
        assertEquals(State.ABSENT, found.get("threaded_busy_poll").state());
        assertEquals(State.UNKNOWN, found.get("persistent_napi_config").state(), "driver dependent");
        assertEquals(State.UNKNOWN, found.get("queue_napi_links").state(), "per NIC: --nic");
        assertEquals(Optional.of("--nic IFACE"), found.get("queue_napi_links").need());
    }

    @Test
    void busyPollWhenThreadedGoesUpToTwoAndNoThreadedBefore617() {
        Map<String, Finding> linux73 = byFeature(KernelFeatures.findings(
                "7.3.4+deb13-amd64",
                family(Set.of(1, 10, 11, 14), policy(2)),
                Optional.empty(),
                KernelFile.of(TXQ, "1000")));
        assertEquals(State.PRESENT, linux73.get("threaded_busy_poll").state());
        assertEquals(State.PRESENT, linux73.get("txq_reselection_ms").state());
        assertEquals(TXQ + " is 1000", linux73.get("txq_reselection_ms").evidence());
        Map<String, Finding> linux613 = byFeature(
                KernelFeatures.findings("6.13.0", family(Set.of(1, 10, 11, 14), policy(-1)), Optional.empty(), NO_TXQ));
        assertEquals(State.PRESENT, linux613.get("irq_suspend").state());
        assertEquals(State.ABSENT, linux613.get("napi_threaded").state());
        assertEquals(State.ABSENT, linux613.get("threaded_busy_poll").state());
    }

    @Test
    void queueLeasingIsQueueCreateInTheOpListAsThe73GuestAnsweredAndNot618s() {
        // the op lists scripts/vm-checks-doctor recorded (docs/verification.md): 7.3.4+deb13 and 6.18.44
        Finding linux73 = byFeature(KernelFeatures.findings(
                        "7.3.4+deb13-amd64",
                        family(Set.of(1, 5, 9, 10, 11, 12, 13, 14, 15, 16), policy(2)),
                        Optional.empty(),
                        NO_TXQ))
                .get("queue_leasing");
        assertEquals(State.PRESENT, linux73.state());
        assertEquals("queue-create (16) is in the netdev family's op list", linux73.evidence());
        Finding linux618 = byFeature(KernelFeatures.findings(
                        "6.18.44", family(Set.of(1, 5, 10, 11, 12, 13, 14, 15), policy(1)), Optional.empty(), NO_TXQ))
                .get("queue_leasing");
        assertEquals(State.ABSENT, linux618.state());
        assertEquals(Optional.of("Linux 7.0"), linux618.need());
        assertEquals(
                "queue-create (16) is not in the netdev family's op list [1, 5, 10, 11, 12, 13, 14, 15]",
                linux618.evidence());
        Netdev none = new Netdev(Asked.NO_FAMILY, Set.of(), "ENOENT", Optional.empty(), "no family");
        assertEquals(
                Optional.of("Linux 7.0"),
                byFeature(KernelFeatures.findings("6.1.0-57-amd64", none, Optional.empty(), NO_TXQ))
                        .get("queue_leasing")
                        .need());
    }

    @Test
    void noFamilyNoNetlinkAndAnUnreadablePolicyOrSysctlAreSaid() {
        Netdev none = new Netdev(Asked.NO_FAMILY, Set.of(), "ENOENT", Optional.empty(), "no family");
        Map<String, Finding> found = byFeature(KernelFeatures.findings("5.15.0", none, Optional.empty(), NO_TXQ));
        assertEquals(State.ABSENT, found.get("netdev_family").state());
        assertEquals(Optional.of("Linux 6.3"), found.get("netdev_family").need());
        assertEquals(Optional.of("Linux 6.13"), found.get("napi_set").need());

        Netdev notAsked = new Netdev(
                Asked.NOT_ASKED, Set.of(), "the sysfs backend has no netlink", Optional.empty(), "not asked");
        Finding napiSet = byFeature(KernelFeatures.findings("7.3", notAsked, Optional.empty(), NO_TXQ))
                .get("napi_set");
        assertEquals(State.UNKNOWN, napiSet.state());
        assertEquals("the sysfs backend has no netlink", napiSet.evidence());

        Netdev noPolicy = new Netdev(
                Asked.FAMILY, Set.of(14), "family", Optional.empty(), "nlctrl getpolicy netdev napi-set failed: EPERM");
        Finding threaded = byFeature(KernelFeatures.findings(
                        "7.3", noPolicy, Optional.empty(), KernelFile.unreadable(TXQ, "EACCES (Permission denied)")))
                .get("napi_threaded");
        assertEquals(State.UNKNOWN, threaded.state());
        assertEquals("nlctrl getpolicy netdev napi-set failed: EPERM", threaded.evidence());
        Finding txq = byFeature(KernelFeatures.findings(
                        "7.3", noPolicy, Optional.empty(), KernelFile.unreadable(TXQ, "EACCES (Permission denied)")))
                .get("txq_reselection_ms");
        assertEquals(State.UNKNOWN, txq.state());
        assertEquals("cannot read " + TXQ + ": EACCES (Permission denied)", txq.evidence());
    }

    @Test
    void aNicsLinksAndItsDriversOwnAffinityAreJudgedPerNic() {
        Netdev netdev = family(Set.of(10, 11, 14), policy(1));
        Map<String, Finding> igb = byFeature(KernelFeatures.findings(
                "7.3",
                netdev,
                Optional.of(new NicFacts("eth0", "igb", Optional.of(new Links(true, 4, 4, 4, 4)), "queue-get")),
                NO_TXQ));
        assertEquals(State.PRESENT, igb.get("queue_napi_links").state());
        assertEquals(State.PRESENT, igb.get("napi_irq_links").state());
        assertEquals(State.ABSENT, igb.get("driver_irq_affinity").state());
        assertEquals(Optional.empty(), igb.get("driver_irq_affinity").need());

        Map<String, Finding> virtio = byFeature(KernelFeatures.findings(
                "6.18",
                netdev,
                Optional.of(new NicFacts("eth0", "virtio_net", Optional.of(new Links(true, 1, 1, 1, 0)), "queue-get")),
                NO_TXQ));
        assertEquals(State.ABSENT, virtio.get("napi_irq_links").state(), "virtio_net links no IRQ");
        assertEquals(
                "napi-get: 0 of eth0's 1 NAPI instances name an IRQ (driver virtio_net)",
                virtio.get("napi_irq_links").evidence());

        Finding down = byFeature(KernelFeatures.findings(
                        "6.12",
                        netdev,
                        Optional.of(new NicFacts("eth0", "virtio_net", Optional.of(new Links(false, 0, 0, 0, 0)), "")),
                        NO_TXQ))
                .get("queue_napi_links");
        assertEquals(State.UNKNOWN, down.state(), "the kernel lists no queue of an interface that is down");
        assertEquals(Optional.of("ip link set eth0 up"), down.need());

        NicFacts ice = new NicFacts("ens1", "ice", Optional.empty(), "netdev netlink failed: EPERM");
        assertEquals(
                State.PRESENT,
                byFeature(KernelFeatures.findings("6.15.0", netdev, Optional.of(ice), NO_TXQ))
                        .get("driver_irq_affinity")
                        .state());
        assertEquals(
                State.ABSENT,
                byFeature(KernelFeatures.findings("6.14.9", netdev, Optional.of(ice), NO_TXQ))
                        .get("driver_irq_affinity")
                        .state(),
                "before 6.15 ice does not");
        assertEquals(
                State.UNKNOWN,
                byFeature(KernelFeatures.findings("6.15.0", netdev, Optional.of(ice), NO_TXQ))
                        .get("queue_napi_links")
                        .state(),
                "links unreadable");
    }

    private static final Path SYSCTL = Path.of("/proc/sys/kernel");

    private static Map<String, Finding> ioUring(String release, KernelFile disabled, String capEff) {
        Map<String, Finding> found = new java.util.HashMap<>();
        KernelFeatures.ioUring(
                        release,
                        disabled,
                        KernelFile.of(SYSCTL.resolve("io_uring_group"), "-1"),
                        KernelFile.of(Path.of("/proc/self/status"), "CapEff:\t" + capEff + "\n"))
                .forEach(finding -> found.put(finding.feature(), finding));
        return found;
    }

    /** The guests' kernels: 6.1 has neither, 6.12 IORING_REGISTER_NAPI alone, 7.3 static tracking too. */
    @Test
    void ioUringNapiCameIn69AndStaticTrackingIn613() {
        KernelFile allowed = KernelFile.of(SYSCTL.resolve("io_uring_disabled"), "0");
        Map<String, Finding> linux61 =
                ioUring("6.1.0-31-amd64", KernelFile.missing(SYSCTL.resolve("io_uring_disabled")), "0");
        assertEquals(State.ABSENT, linux61.get("io_uring_napi").state());
        assertEquals(Optional.of("Linux 6.9"), linux61.get("io_uring_napi").need());
        assertEquals(State.ABSENT, linux61.get("io_uring_napi_static").state());
        assertEquals(State.UNKNOWN, linux61.get("io_uring_allowed").state(), "6.1 has no io_uring_disabled");
        Map<String, Finding> linux612 = ioUring("6.12.57+deb13-amd64", allowed, "0");
        assertEquals(State.PRESENT, linux612.get("io_uring_napi").state());
        assertEquals(State.ABSENT, linux612.get("io_uring_napi_static").state());
        assertEquals(
                Optional.of("Linux 6.13"), linux612.get("io_uring_napi_static").need());
        assertEquals(State.PRESENT, linux612.get("io_uring_allowed").state());
        assertEquals(
                "/proc/sys/kernel/io_uring_disabled is 0, io_uring_group -1: this process may make rings",
                linux612.get("io_uring_allowed").evidence());
        Map<String, Finding> linux73 = ioUring("7.3.4+deb13-amd64", allowed, "0");
        assertEquals(State.PRESENT, linux73.get("io_uring_napi_static").state());
        assertTrue(linux73.get("io_uring_napi_static").evidence().startsWith("Linux 7.3.4+deb13-amd64 has"));
    }

    @Test
    void ioUringDisabledIsAbsentWithTheKernelsReason() {
        Map<String, Finding> two = ioUring("7.3", KernelFile.of(SYSCTL.resolve("io_uring_disabled"), "2"), "0");
        assertEquals(State.ABSENT, two.get("io_uring_allowed").state());
        assertEquals(
                "/proc/sys/kernel/io_uring_disabled is 2: io_uring is disabled for every process",
                two.get("io_uring_allowed").evidence());
        Map<String, Finding> oneAdmin =
                ioUring("7.3", KernelFile.of(SYSCTL.resolve("io_uring_disabled"), "1"), "0000000000200000");
        assertEquals(State.PRESENT, oneAdmin.get("io_uring_allowed").state(), "CAP_SYS_ADMIN may");
        Map<String, Finding> noIoUring = ioUring("7.3", KernelFile.missing(SYSCTL.resolve("io_uring_disabled")), "0");
        assertEquals(State.ABSENT, noIoUring.get("io_uring_allowed").state());
        assertEquals(
                Optional.of("a kernel built with CONFIG_IO_URING"),
                noIoUring.get("io_uring_allowed").need());
    }
}
