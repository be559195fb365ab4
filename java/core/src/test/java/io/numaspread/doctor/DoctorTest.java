// SPDX-License-Identifier: Apache-2.0
package io.numaspread.doctor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.numaspread.NumaspreadException;
import io.numaspread.doctor.Finding.State;
import io.numaspread.kernel.InterfaceName;
import io.numaspread.kernel.KernelPaths;
import io.numaspread.kernel.SysfsTree;
import io.numaspread.nativeaccess.BackendKind;
import io.numaspread.nativeaccess.Backends;
import io.numaspread.nativeaccess.SysfsBackend;
import io.numaspread.testing.NicFixture;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The doctor over stand-in trees: what it reads from /proc, /sys and the host's /etc, and files it cannot read. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class DoctorTest {
    @TempDir
    Path sys;

    @TempDir
    Path proc;

    @TempDir
    Path host;

    private Report examine(Optional<InterfaceName> nic) {
        Backends.Selection selection = new Backends.Selection(
                new SysfsBackend(SysfsTree.at(sys), proc),
                Map.of(
                        BackendKind.FFM,
                        "stand-in reason",
                        BackendKind.JNA,
                        "JNA (com.sun.jna) is not on the class path"));
        return Doctor.examine(new KernelPaths(proc, sys), host, nic, selection);
    }

    private static Map<String, Finding> byFeature(Report report) {
        return report.findings().stream().collect(Collectors.toMap(Finding::feature, finding -> finding));
    }

    @Test
    void aStandInMachineWithEveryOtherManager() {
        NicFixture.i40eOnMana(sys, proc);
        NicFixture.file(proc.resolve("sys/kernel/osrelease"), "6.1.0-57-amd64");
        NicFixture.file(
                proc.resolve("self/status"),
                "Name:\tjava\nUid:\t0\t0\t0\t0\nCapEff:\t000001ffffffffff\nCpus_allowed_list:\t0-7\n");
        NicFixture.file(proc.resolve("irq/default_smp_affinity"), "ff");
        NicFixture.process(proc, 700, "irqbalance", "/usr/sbin/irqbalance", "--foreground", "--banirq=50");
        NicFixture.file(host.resolve("etc/tuned/active_profile"), "network-latency");
        NicFixture.file(sys.resolve("fs/cgroup/cpuset.cpus.isolated"), "0-3");
        NicFixture.file(host.resolve("etc/sysconfig/orig_irq_banned_cpus"), "0");
        NicFixture.file(host.resolve("etc/sysconfig/irqbalance"), "IRQBALANCE_BANNED_CPUS=0000000c");
        NicFixture.file(
                host.resolve("etc/systemd/network/10-nic.link"),
                "[Match]\nOriginalName=eth*\n[Link]\nIRQAffinityPolicy=spread\n");

        Report report = examine(Optional.of(new InterfaceName("eth0")));
        assertEquals("6.1.0-57-amd64", report.kernelRelease());
        Map<String, Finding> found = byFeature(report);
        Finding napiSet = found.get("napi_set");
        assertEquals(State.UNKNOWN, napiSet.state(), "netlink describes the live kernel, not a stand-in tree");
        assertTrue(napiSet.evidence().startsWith("netdev netlink answers for the live kernel"), napiSet.evidence());
        assertEquals(State.ABSENT, found.get("txq_reselection_ms").state());
        assertEquals(State.ABSENT, found.get("driver_irq_affinity").state());
        assertTrue(found.get("driver_irq_affinity").evidence().startsWith("driver i40e"));
        assertEquals(State.PRESENT, found.get("backend_sysfs").state());
        assertEquals("stand-in reason", found.get("backend_ffm").evidence());
        assertEquals(State.PRESENT, found.get("root").state());
        assertEquals(State.PRESENT, found.get("proc_irq_writable").state());
        assertEquals(
                "CPUs 0-7 (Cpus_allowed_list, " + proc.resolve("self/status") + ")",
                found.get("cpuset").evidence());
        assertEquals(
                "running: pid 700 (comm irqbalance, bans IRQs [50])",
                found.get("irqbalance").evidence());
        assertEquals(State.PRESENT, found.get("tuned").state());
        assertEquals(
                "node 0's CPUs 0-3 (eth0's) are isolated from load balancing: "
                        + sys.resolve("fs/cgroup/cpuset.cpus.isolated") + " 0-3; "
                        + sys.resolve("devices/system/cpu/isolated") + " (empty)",
                found.get("isolated_cpus").evidence());
        assertEquals(State.PRESENT, found.get("crio_irqbalance").state());
        assertEquals(State.PRESENT, found.get("link_irq_policy").state());
        assertEquals(
                "/etc/systemd/network/10-nic.link IRQAffinityPolicy=spread (may match)",
                found.get("link_irq_policy").evidence());
    }

    @Test
    void unreadableFilesAreUnknownFindingsNotFailures() throws IOException {
        NicFixture.i40eOnMana(sys, proc);
        // a directory where each file should be: read() fails with EISDIR whoever runs the test, root included
        Files.createDirectories(proc.resolve("sys/kernel/osrelease"));
        Files.createDirectories(proc.resolve("self/status"));
        Files.createDirectories(proc.resolve("sys/net/core/txq_reselection_ms"));
        Files.createDirectories(host.resolve("etc/tuned/active_profile"));

        Report report = examine(Optional.empty());
        assertEquals("", report.kernelRelease());
        Map<String, Finding> found = byFeature(report);
        for (String feature : new String[] {"txq_reselection_ms", "root", "cap_net_admin", "cpuset", "tuned"}) {
            assertEquals(State.UNKNOWN, found.get(feature).state(), feature);
            assertTrue(
                    found.get(feature).evidence().startsWith("cannot read "),
                    found.get(feature).evidence());
        }
        assertEquals(State.UNKNOWN, found.get("proc_irq_writable").state(), "no /proc/irq/default_smp_affinity");
        assertEquals(State.ABSENT, found.get("irqbalance").state());
        assertEquals(Optional.of("--nic IFACE"), found.get("link_irq_policy").need());
    }

    @Test
    void aNicThatIsNotThereIsBadInput() {
        NicFixture.i40eOnMana(sys, proc);
        NumaspreadException thrown =
                assertThrows(NumaspreadException.class, () -> examine(Optional.of(new InterfaceName("eth9"))));
        assertEquals(NumaspreadException.Kind.BAD_INPUT, thrown.kind());
        assertTrue(thrown.getMessage().contains("eth9"), thrown.getMessage());
    }
}
