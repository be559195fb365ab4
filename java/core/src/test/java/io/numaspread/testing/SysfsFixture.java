// SPDX-License-Identifier: Apache-2.0
package io.numaspread.testing;

import io.numaspread.CpuSet;
import io.numaspread.kernel.SysfsTree;
import io.numaspread.nativeaccess.SysfsBackend;
import io.numaspread.topology.Topology;
import io.numaspread.topology.TopologyDiscovery;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Set;
import java.util.StringJoiner;

/** Writes the sysfs files a kernel would publish for a {@link MachineShape}, laid out as under {@code /sys}. */
public final class SysfsFixture {
    private SysfsFixture() {}

    /** NUL padding that real kernels wrote into sysfs files (see {@code KernelText}), to write a tree with. */
    public enum OddKernel {
        /**
         * 2.6.24 to about 3.1: {@code node/online}, {@code possible} and {@code has_cpu} end in {@code "\n\0"}
         * (fixed by "mm: Fix off-by-one bug in print_nodes_state").
         */
        NODE_STATE_NUL,
        /** RHEL/CentOS 7's 3.10 without {@code nohz_full=}: {@code cpu/nohz_full} is {@code "\0\n"}. */
        NOHZ_FULL_NUL,
        /** A Kunpeng 920 on 5.15-rc1: every {@code nodeN/cpulist} and {@code thread_siblings_list} ends in {@code "\n\0"}. */
        CPULIST_NUL
    }

    /** Writes {@code shape} under {@code root} as a kernel with {@code quirks} would, and returns {@code root}. */
    public static Path write(MachineShape shape, Path root, OddKernel... quirks) {
        write(shape, root);
        Set<OddKernel> odd = Set.of(quirks);
        String nodeDir = "devices/system/node/";
        if (odd.contains(OddKernel.NODE_STATE_NUL) && !shape.nodeIds().isEmpty()) {
            for (String state : List.of("online", "possible", "has_cpu")) {
                appendNul(root.resolve(nodeDir + state));
            }
        }
        if (odd.contains(OddKernel.NOHZ_FULL_NUL) && shape.nohzFull().isEmpty()) {
            writeBytes(root.resolve("devices/system/cpu/nohz_full"), new byte[] {0, '\n'});
        }
        if (odd.contains(OddKernel.CPULIST_NUL)) {
            shape.nodeIds().forEach(id -> appendNul(root.resolve(nodeDir + "node" + id + "/cpulist")));
            shape.online()
                    .forEachCpu(cpu ->
                            appendNul(root.resolve("devices/system/cpu/cpu" + cpu + "/topology/thread_siblings_list")));
        }
        return root;
    }

    private static void appendNul(Path file) {
        try {
            Files.write(file, new byte[] {0}, StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Writes exactly {@code bytes}, as a kernel's show() function may. */
    public static void writeBytes(Path file, byte[] bytes) {
        try {
            Files.createDirectories(file.getParent());
            Files.write(file, bytes);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Writes {@code shape} under {@code root} and returns {@code root}. */
    public static Path write(MachineShape shape, Path root) {
        String cpuDir = "devices/system/cpu/";
        write(root, cpuDir + "possible", shape.possible().toString());
        write(root, cpuDir + "present", shape.possible().toString());
        write(root, cpuDir + "online", shape.online().toString());
        write(root, cpuDir + "offline", shape.possible().minus(shape.online()).toString());
        write(root, cpuDir + "isolated", shape.isolated().toString());
        if (!shape.nohzFull().isEmpty()) {
            write(root, cpuDir + "nohz_full", shape.nohzFull().toString());
        }
        for (int cpu : shape.possible().toArray()) {
            String dir = cpuDir + "cpu" + cpu + "/";
            boolean online = shape.online().contains(cpu);
            if (cpu != 0) {
                write(root, dir + "online", online ? "1" : "0");
            }
            if (online) {
                int core = shape.coreOf(cpu);
                CpuSet siblings = shape.cores().get(core).intersect(shape.online());
                write(root, dir + "topology/thread_siblings_list", siblings.toString());
                write(root, dir + "topology/core_cpus_list", siblings.toString());
                write(
                        root,
                        dir + "topology/physical_package_id",
                        Integer.toString(shape.packages().get(core)));
                write(root, dir + "topology/core_id", Integer.toString(core));
            }
        }
        if (!shape.nodeIds().isEmpty()) {
            writeNodes(shape, root);
        }
        return root;
    }

    /** Adds what an arm64 kernel shows for clusters: cluster_cpus_list and cluster_id of each online CPU. */
    public static void writeClusters(Path root, List<CpuSet> clusters) {
        for (int id = 0; id < clusters.size(); id++) {
            for (int cpu : clusters.get(id).toArray()) {
                String dir = "devices/system/cpu/cpu" + cpu + "/topology/";
                write(root, dir + "cluster_cpus_list", clusters.get(id).toString());
                write(root, dir + "cluster_id", Integer.toString(id));
            }
        }
    }

    private static void writeNodes(MachineShape shape, Path root) {
        String nodeDir = "devices/system/node/";
        CpuSet.Builder ids = CpuSet.builder();
        CpuSet.Builder withCpus = CpuSet.builder();
        for (int i = 0; i < shape.nodeIds().size(); i++) {
            int id = shape.nodeIds().get(i);
            ids.add(id);
            // The kernel drops offline CPUs from a node's cpulist.
            CpuSet cpus = shape.nodeCpus().get(i).intersect(shape.online());
            if (!cpus.isEmpty()) {
                withCpus.add(id);
            }
            write(root, nodeDir + "node" + id + "/cpulist", cpus.toString());
            write(
                    root,
                    nodeDir + "node" + id + "/cpumap",
                    cpus.toHexMask(shape.possible().last() + 1));
            StringJoiner row = new StringJoiner(" ");
            for (int distance : shape.distances()[i]) {
                row.add(Integer.toString(distance));
            }
            write(root, nodeDir + "node" + id + "/distance", row.toString());
        }
        write(root, nodeDir + "online", ids.build().toString());
        write(root, nodeDir + "possible", ids.build().toString());
        write(root, nodeDir + "has_cpu", withCpus.build().toString());
    }

    /** The topology that the sysfs backend reads from {@code shape} written under {@code root}. */
    public static Topology topology(MachineShape shape, Path root) {
        return read(write(shape, root));
    }

    /** The topology that the sysfs backend reads from the tree under {@code root}, as it is now. */
    public static Topology read(Path root) {
        SysfsTree tree = SysfsTree.at(root);
        return TopologyDiscovery.discover(new SysfsBackend(tree, Path.of("/proc")), tree);
    }

    /** Overwrites (or creates) one file of a tree, for fault cases. */
    public static void write(Path root, String relative, String content) {
        Path file = root.resolve(relative);
        try {
            Files.createDirectories(file.getParent());
            Files.writeString(file, content + "\n");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
