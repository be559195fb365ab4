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
}
