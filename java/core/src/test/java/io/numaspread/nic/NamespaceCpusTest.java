// SPDX-License-Identifier: Apache-2.0
package io.numaspread.nic;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.numaspread.CpuSet;
import io.numaspread.kernel.KernelPaths;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The processes of a network namespace and their cgroups' CPUs, on stand-in {@code /proc} and cgroup trees laid
 * out as a host with two pods shows them, and on this machine's own.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class NamespaceCpusTest {
    private static final long POD = 4026532290L;
    private static final long OTHER_POD = 4026532412L;

    @TempDir
    Path proc;

    @TempDir
    Path sys;

    private void process(int pid, long namespace, String cgroup) throws IOException {
        Path dir = Files.createDirectories(proc.resolve(Integer.toString(pid)).resolve("ns"));
        Files.createSymbolicLink(dir.resolve("net"), Path.of("net:[" + namespace + "]"));
        Files.writeString(dir.getParent().resolve("cgroup"), cgroup);
    }

    private void cpuset(String cgroup, String cpus) throws IOException {
        Path dir = Files.createDirectories(sys.resolve("fs/cgroup").resolve(cgroup));
        Files.writeString(dir.resolve("cpuset.cpus.effective"), cpus + "\n");
    }

    @Test
    void theNamespacesProcessesGiveTheirCgroupsCpusOrTheNearestAncestorsAndOthersAreLeftOut() throws IOException {
        String pod = "kubepods.slice/kubepods-pod1.slice";
        cpuset(pod, "6-7");
        cpuset(pod + "/cri-containerd-a.scope", "4-5");
        Files.createDirectories(sys.resolve("fs/cgroup").resolve(pod + "/cri-containerd-b.scope"));
        cpuset("kubepods.slice/kubepods-pod2.slice", "2-3");
        process(100, POD, "0::/" + pod + "/cri-containerd-a.scope\n");
        process(101, POD, "0::/" + pod + "/cri-containerd-b.scope\n");
        process(102, OTHER_POD, "0::/kubepods.slice/kubepods-pod2.slice\n");
        process(103, POD, "12:memory:/docker/abc\n1:name=systemd:/docker/abc\n");
        process(104, POD, "0::/../../../etc\n");
        Files.createDirectories(proc.resolve("105")); // exited: no ns/net left to read
        Files.createDirectories(proc.resolve("self"));

        NamespaceCpus.Found found = NamespaceCpus.in(new KernelPaths(proc, sys), POD);

        assertEquals(List.of(100, 101, 103, 104), found.pids());
        assertEquals(CpuSet.parse("4-7"), found.cpus(), "4-5 of its own cpuset, 6-7 of the pod's for b");
        assertEquals(
                List.of(
                        "103: /proc/103/cgroup has neither a cpuset nor a cgroup v2 (0::) line",
                        "104: no readable cpuset.cpus.effective at or above /../../../etc"),
                found.unread());
        assertEquals(
                CpuSet.parse("2-3"),
                NamespaceCpus.in(new KernelPaths(proc, sys), OTHER_POD).cpus());
    }

    @Test
    void onAHybridHostTheCpusetHierarchyOfCgroupV1Counts() throws IOException {
        Path v1 = Files.createDirectories(sys.resolve("fs/cgroup/cpuset/docker/abc"));
        Files.writeString(v1.resolve("cpuset.effective_cpus"), "1,3\n");
        cpuset("", "0-7");
        process(100, POD, "12:cpuset,cpu:/docker/abc\n4:memory:/docker/abc\n0::/\n");
        NamespaceCpus.Found found = NamespaceCpus.in(new KernelPaths(proc, sys), POD);
        assertEquals(CpuSet.of(1, 3), found.cpus(), "v1's cpuset, not v2's root without the controller");
        assertEquals(List.of(), found.unread());
    }

    @Test
    void aNamespaceNoProcessIsInHasNoCpus() throws IOException {
        process(100, POD, "0::/\n");
        cpuset("", "0-7");
        NamespaceCpus.Found found = NamespaceCpus.in(new KernelPaths(proc, sys), OTHER_POD);
        assertEquals(List.of(), found.pids());
        assertTrue(found.cpus().isEmpty());
        assertEquals(
                CpuSet.parse("0-7"),
                NamespaceCpus.in(new KernelPaths(proc, sys), POD).cpus(),
                "the root's");
    }

    @Test
    void thisProcessIsInItsOwnNamespaceOnCpusThatHoldItsAffinity() throws IOException {
        int self = (int) ProcessHandle.current().pid();
        OptionalLong namespace = NamespaceCpus.netNamespace(KernelPaths.LIVE, self);
        assertEquals(
                Files.readSymbolicLink(Path.of("/proc/self/ns/net")).toString(),
                "net:[" + namespace.orElseThrow() + "]");
        NamespaceCpus.Found found = NamespaceCpus.in(KernelPaths.LIVE, namespace.getAsLong());
        assertTrue(found.pids().contains(self), found.toString());
        CpuSet allowed = CpuSet.parse(Files.readAllLines(Path.of("/proc/self/status")).stream()
                .filter(line -> line.startsWith("Cpus_allowed_list:"))
                .map(line -> line.substring(line.indexOf(':') + 1).strip())
                .findFirst()
                .orElseThrow());
        assertTrue(found.cpus().containsAll(allowed), found.cpus() + " holds this process's " + allowed);
    }
}
