// SPDX-License-Identifier: Apache-2.0
package io.numaspread.doctor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.numaspread.CpuSet;
import io.numaspread.doctor.Finding.State;
import io.numaspread.irq.Irqbalance;
import io.numaspread.irq.LinkIrqPolicy;
import io.numaspread.nativeaccess.BackendKind;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Backends, privileges, this process's CPUs and the other managers, judged from values. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class MachineTest {
    private static final Path STATUS = Path.of("/proc/self/status");

    @Test
    void theChosenBackendTheSkippedOnesWithTheirReasonAndThoseNotTried() {
        List<Finding> backends =
                Machine.backends(BackendKind.JNA, Map.of(BackendKind.FFM, "FFM needs JDK 23; this is 17"));
        assertEquals(
                List.of("backend_ffm", "backend_jna", "backend_sysfs"),
                backends.stream().map(Finding::feature).toList());
        assertEquals(State.ABSENT, backends.get(0).state());
        assertEquals("FFM needs JDK 23; this is 17", backends.get(0).evidence());
        assertEquals(State.PRESENT, backends.get(1).state());
        assertEquals(State.UNKNOWN, backends.get(2).state());
        assertTrue(
                backends.get(2).evidence().contains("-Dnumaspread.backend=sysfs"),
                backends.get(2).evidence());
    }

    @Test
    void rootAndCapabilitiesFromStatusAndWhatAnUnprivilegedProcessNeeds() {
        KernelFile root = KernelFile.of(
                STATUS, "Name:\tjava\nUid:\t0\t0\t0\t0\nCapEff:\t000001ffffffffff\nCpus_allowed_list:\t0-3\n");
        List<Finding> privileged = Machine.privileges(root, "/proc/irq/default_smp_affinity", Optional.of(true));
        assertTrue(privileged.stream().allMatch(finding -> finding.state() == State.PRESENT), privileged.toString());
        assertEquals(
                "CPUs 0-3 (Cpus_allowed_list, /proc/self/status)",
                Machine.cpuset(root).evidence());

        // a user with only CAP_NET_ADMIN (bit 12: 0x1000), /proc/irq not writable
        KernelFile user = KernelFile.of(STATUS, "Uid:\t1000\t1000\t1000\t1000\nCapEff:\t0000000000001000\n");
        List<Finding> found = Machine.privileges(user, "/proc/irq/default_smp_affinity", Optional.of(false));
        assertEquals(
                List.of(State.ABSENT, State.PRESENT, State.ABSENT, State.ABSENT),
                found.stream().map(Finding::state).toList());
        assertEquals("effective uid 1000 (/proc/self/status)", found.get(0).evidence());
        assertTrue(
                found.get(2).need().orElseThrow().startsWith("CAP_SYS_NICE"),
                found.get(2).toString());
        assertEquals(
                "bit 23 of CapEff 0000000000001000 (/proc/self/status)",
                found.get(2).evidence());
        assertEquals(State.UNKNOWN, Machine.cpuset(user).state());
        assertEquals(
                "/proc/self/status has no Cpus_allowed_list: line",
                Machine.cpuset(user).evidence());
    }

    @Test
    void anUnreadableStatusMakesEveryPrivilegeUnknownWithTheReason() {
        KernelFile unreadable = KernelFile.unreadable(STATUS, "EACCES (Permission denied)");
        List<Finding> found = Machine.privileges(unreadable, "/proc/irq/default_smp_affinity", Optional.empty());
        assertEquals(
                List.of(State.UNKNOWN, State.UNKNOWN, State.UNKNOWN, State.UNKNOWN),
                found.stream().map(Finding::state).toList());
        assertEquals(
                "cannot read /proc/self/status: EACCES (Permission denied)",
                found.get(1).evidence());
        assertEquals(
                "/proc/irq/default_smp_affinity does not exist", found.get(3).evidence());
    }

    @Test
    void otherManagersArePresentWithWhatHandsTheIrqsToNumaspread() {
        Finding irqbalance = Machine.irqbalance(
                List.of(new Irqbalance.Process(812, List.of(40), CpuSet.parse("2-3"))),
                Optional.empty(),
                Optional.empty());
        assertEquals(State.PRESENT, irqbalance.state());
        assertEquals("running: pid 812 (comm irqbalance, bans IRQs [40], bans CPUs 2-3)", irqbalance.evidence());
        assertEquals(
                State.UNKNOWN,
                Machine.irqbalance(List.of(), Optional.of("not in the host's PID namespace"), Optional.empty())
                        .state());
        assertEquals(
                State.ABSENT,
                Machine.irqbalance(List.of(), Optional.empty(), Optional.empty())
                        .state());

        Finding link = Machine.linkPolicies(
                Optional.of("eth0"),
                List.of(new LinkIrqPolicy(Path.of("/etc/systemd/network/10-nic.link"), "spread", true)),
                Optional.empty());
        assertEquals(State.PRESENT, link.state());
        assertEquals("/etc/systemd/network/10-nic.link IRQAffinityPolicy=spread (udev's database)", link.evidence());
        assertEquals(
                Optional.of("--nic IFACE"),
                Machine.linkPolicies(Optional.empty(), List.of(), Optional.empty())
                        .need());

        Path profile = Path.of("/etc/tuned/active_profile");
        assertEquals(
                State.PRESENT,
                Machine.tuned(KernelFile.of(profile, "network-latency")).state());
        assertEquals(State.ABSENT, Machine.tuned(KernelFile.of(profile, "")).state());
        assertEquals(State.ABSENT, Machine.tuned(KernelFile.missing(profile)).state());
        assertEquals(
                State.UNKNOWN,
                Machine.tuned(KernelFile.unreadable(profile, "EISDIR")).state());

        Path restore = Path.of("/etc/sysconfig/orig_irq_banned_cpus");
        Path config = Path.of("/etc/sysconfig/irqbalance");
        Finding crio = Machine.crio(
                KernelFile.of(restore, "0"), KernelFile.of(config, "# CRI-O\nIRQBALANCE_BANNED_CPUS=0000000c\n"));
        assertEquals(State.PRESENT, crio.state());
        assertEquals(
                restore + " exists (CRI-O's irqbalance_config_restore_file); " + config
                        + " has IRQBALANCE_BANNED_CPUS=0000000c",
                crio.evidence());
        assertEquals(
                State.ABSENT,
                Machine.crio(KernelFile.missing(restore), KernelFile.missing(config))
                        .state());
    }

    private static final Path PARTITIONS = Path.of("/sys/fs/cgroup/cpuset.cpus.isolated");
    private static final Path ISOLCPUS = Path.of("/sys/devices/system/cpu/isolated");
    private static final Optional<Machine.NicCpus> NODE_1 =
            Optional.of(new Machine.NicCpus("eth0", 1, CpuSet.parse("4-7")));

    @Test
    void theNicsNodeIsIsolatedWhenAPartitionOrIsolcpusHoldsEveryCpuOfIt() {
        Finding partition = Machine.isolation(NODE_1, KernelFile.of(PARTITIONS, "4-7"), KernelFile.of(ISOLCPUS, ""));
        assertEquals(State.PRESENT, partition.state());
        assertEquals(
                "node 1's CPUs 4-7 (eth0's) are isolated from load balancing: " + PARTITIONS + " 4-7; " + ISOLCPUS
                        + " (empty)",
                partition.evidence());
        assertEquals(Optional.empty(), partition.need());
        // the two sources together: a partition of 4-5 and isolcpus 6-7, on a kernel without cpuset.cpus.isolated
        Finding both = Machine.isolation(NODE_1, KernelFile.of(PARTITIONS, "4-5"), KernelFile.of(ISOLCPUS, "6-7"));
        assertEquals(State.PRESENT, both.state());
        assertTrue(both.evidence().endsWith("; isolcpus= CPUs 6-7 get no queue IRQ from apply"), both.evidence());
        Finding isolcpusAlone =
                Machine.isolation(NODE_1, KernelFile.missing(PARTITIONS), KernelFile.of(ISOLCPUS, "4-7"));
        assertEquals(State.PRESENT, isolcpusAlone.state());
        assertTrue(
                isolcpusAlone
                        .evidence()
                        .endsWith(PARTITIONS + " does not exist; isolcpus= CPUs 4-7 get no queue IRQ from apply"),
                isolcpusAlone.evidence());
    }

    @Test
    void aNodeLeftToLoadBalancingNamesTheCpusThatAreAndWhatWouldIsolateThem() {
        Finding none = Machine.isolation(NODE_1, KernelFile.of(PARTITIONS, ""), KernelFile.of(ISOLCPUS, ""));
        assertEquals(State.ABSENT, none.state());
        assertTrue(
                none.evidence().startsWith("node 1's CPUs 4-7 (eth0's): none isolated from load balancing"),
                none.evidence());
        assertEquals(
                Optional.of("an isolated cpuset partition of CPUs 4-7 (cpuset.cpus.partition isolated) for the server,"
                        + " with one queue per CPU of it"),
                none.need());
        Finding part = Machine.isolation(NODE_1, KernelFile.of(PARTITIONS, "0-1,4-5"), KernelFile.of(ISOLCPUS, ""));
        assertEquals(State.ABSENT, part.state());
        assertTrue(part.evidence().startsWith("node 1's CPUs 4-7 (eth0's): CPUs 6-7 not isolated"), part.evidence());
    }

    @Test
    void withoutANicTheIsolatedCpusAreListedAndUnreadableFilesMakeItUnknown() {
        assertEquals(
                State.PRESENT,
                Machine.isolation(Optional.empty(), KernelFile.of(PARTITIONS, "2-3"), KernelFile.missing(ISOLCPUS))
                        .state());
        Finding nothing =
                Machine.isolation(Optional.empty(), KernelFile.of(PARTITIONS, ""), KernelFile.of(ISOLCPUS, ""));
        assertEquals(State.ABSENT, nothing.state());
        assertEquals(Optional.empty(), nothing.need());
        Finding unknown =
                Machine.isolation(NODE_1, KernelFile.unreadable(PARTITIONS, "EACCES"), KernelFile.of(ISOLCPUS, "four"));
        assertEquals(State.UNKNOWN, unknown.state());
        assertTrue(
                unknown.evidence().startsWith("cannot read " + PARTITIONS + ": EACCES; " + ISOLCPUS + " is no cpulist"),
                unknown.evidence());
    }
}
