// SPDX-License-Identifier: Apache-2.0
package io.numaspread.nic;

import io.numaspread.CpuSet;
import io.numaspread.kernel.KernelPaths;
import io.numaspread.kernel.KernelText;
import io.numaspread.kernel.ProcessFiles;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The CPUs of the processes in one network namespace: a leased queue's lessee device (netkit) lives in a
 * container's namespace, and the processes there are the ones that read the queue. Each process's CPUs are its
 * cpuset cgroup's effective CPUs: on a host that mounts cgroup v1's cpuset hierarchy ({@code /proc/PID/cgroup}
 * has an {@code N:cpuset:PATH} line) {@code /sys/fs/cgroup/cpuset/PATH/cpuset.effective_cpus}, else cgroup v2's
 * {@code /sys/fs/cgroup/PATH/cpuset.cpus.effective} for the {@code 0::PATH} line, or its nearest ancestor's where
 * the cpuset controller is not enabled below it. The edge: it reads {@code /proc} and sysfs, the live ones or
 * stand-in trees.
 */
public final class NamespaceCpus {
    private static final Pattern NET_LINK = Pattern.compile("net:\\[(\\d+)]");

    private NamespaceCpus() {}

    /**
     * What the processes of a namespace may run on.
     *
     * @param pids the processes found in it, ascending
     * @param cpus the union of their cgroups' effective CPUs
     * @param unread the processes whose cgroup or cpuset could not be read, each with why
     */
    public record Found(List<Integer> pids, CpuSet cpus, List<String> unread) {
        public Found {
            pids = List.copyOf(pids);
            unread = List.copyOf(unread);
        }
    }

    /**
     * The network namespace of process {@code pid}: the inode its {@code /proc/PID/ns/net} link names ({@code
     * net:[4026531840]}); empty when the process is gone or the link is not the owner's to read.
     */
    public static OptionalLong netNamespace(KernelPaths paths, int pid) {
        Path link = paths.procRoot().resolve(Integer.toString(pid)).resolve("ns/net");
        try {
            Matcher matcher = NET_LINK.matcher(Files.readSymbolicLink(link).toString());
            return matcher.matches() ? OptionalLong.of(Long.parseLong(matcher.group(1))) : OptionalLong.empty();
        } catch (IOException | UnsupportedOperationException e) {
            return OptionalLong.empty();
        }
    }

    /**
     * The processes in the network namespace with inode {@code namespace} and their CPUs.
     *
     * @throws IOException when {@code /proc} cannot be listed
     */
    public static Found in(KernelPaths paths, long namespace) throws IOException {
        List<Integer> pids = new ArrayList<>();
        List<String> unread = new ArrayList<>();
        CpuSet cpus = CpuSet.EMPTY;
        for (int pid : ProcessFiles.pids(paths.procRoot())) {
            OptionalLong own = netNamespace(paths, pid);
            if (own.isEmpty() || own.getAsLong() != namespace) {
                continue;
            }
            pids.add(pid);
            String text = ProcessFiles.read(paths.procRoot(), pid, "cgroup");
            Optional<String> v1 = cpusetV1(text);
            Optional<String> cgroup = v1.or(() -> unifiedCgroup(text));
            if (cgroup.isEmpty()) {
                unread.add(pid + ": /proc/" + pid + "/cgroup has neither a cpuset nor a cgroup v2 (0::) line");
                continue;
            }
            Path root = paths.sysfsRoot().resolve(v1.isPresent() ? "fs/cgroup/cpuset" : "fs/cgroup");
            String file = v1.isPresent() ? "cpuset.effective_cpus" : "cpuset.cpus.effective";
            Optional<CpuSet> effective = effectiveCpus(root, cgroup.get(), file);
            if (effective.isEmpty()) {
                unread.add(pid + ": no readable " + file + " at or above " + cgroup.get());
                continue;
            }
            cpus = cpus.union(effective.get());
        }
        return new Found(pids, cpus, unread);
    }

    /** The cgroup v2 path in a {@code /proc/PID/cgroup} text: its {@code 0::PATH} line. */
    static Optional<String> unifiedCgroup(String text) {
        return text.lines()
                .filter(line -> line.startsWith("0::/"))
                .map(line -> line.substring(3))
                .findFirst();
    }

    /** The cgroup v1 cpuset path in a {@code /proc/PID/cgroup} text: its {@code N:...cpuset...:PATH} line. */
    static Optional<String> cpusetV1(String text) {
        for (String line : text.lines().toList()) {
            String[] fields = line.split(":", 3);
            if (fields.length == 3 && List.of(fields[1].split(",")).contains("cpuset") && fields[2].startsWith("/")) {
                return Optional.of(fields[2]);
            }
        }
        return Optional.empty();
    }

    /**
     * File {@code name} of cgroup {@code cgroup} under {@code root}, or of its nearest ancestor that has one: a v2
     * cgroup whose parent does not enable the cpuset controller runs on its parent's CPUs.
     */
    static Optional<CpuSet> effectiveCpus(Path root, String cgroup, String name) {
        Path dir = root.resolve(cgroup.substring(1)).normalize();
        if (!dir.startsWith(root)) {
            return Optional.empty();
        }
        while (dir != null && dir.startsWith(root)) {
            Path file = dir.resolve(name);
            if (Files.exists(file)) {
                try {
                    return Optional.of(CpuSet.parse(KernelText.read(file)));
                } catch (IOException | IllegalArgumentException e) {
                    return Optional.empty();
                }
            }
            dir = dir.getParent();
        }
        return Optional.empty();
    }
}
