// SPDX-License-Identifier: Apache-2.0
package io.numaspread.topology;

import io.numaspread.CpuSet;
import io.numaspread.NumaspreadException;
import io.numaspread.kernel.ProcessFiles;
import io.numaspread.kernel.SysfsTree;
import io.numaspread.nativeaccess.NativeBackend;
import io.numaspread.nativeaccess.SysfsBackend;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Builds a {@link Topology} from a backend's NUMA facts and sysfs's CPU facts.
 *
 * <p>Node enumeration, online CPUs, sibling groups and packages always come from sysfs, because that is
 * where the kernel publishes them (libnuma reads the same files). Node CPUs and distances come from the
 * backend, or from sysfs when the backend's libnuma is unusable.
 */
public final class TopologyDiscovery {
    private TopologyDiscovery() {}

    /**
     * @param backend the selected backend; its libnuma is used when usable
     * @param sysfs the tree to read; a copied tree is read by the sysfs backend alone, since libnuma always
     *     reads the live {@code /sys}, and its allowed set is its online set, since no process runs there
     * @throws io.numaspread.NumaspreadException naming the file that is missing or malformed
     */
    public static Topology discover(NativeBackend backend, SysfsTree sysfs) {
        NativeBackend numa = sysfs.isLive() && backend.numaUnavailableCause().isEmpty()
                ? backend
                : new SysfsBackend(sysfs, Path.of("/proc"));
        String cpuDir = SysfsTree.CPU_DIR;
        CpuSet online = sysfs.readCpuList(cpuDir + "/online");
        CpuSet isolated = sysfs.readOptionalCpuList(cpuDir + "/isolated").orElse(CpuSet.EMPTY);
        CpuSet nohzFull = nohzFull(sysfs);
        CpuSet allowed = sysfs.isLive() ? processAllowed(backend) : online;

        CpuSet nodeIds = sysfs.onlineNodes();
        List<NumaNode> nodes = new ArrayList<>(nodeIds.size());
        for (int id : nodeIds.toArray()) {
            List<Integer> distances = new ArrayList<>(nodeIds.size());
            for (int to : nodeIds.toArray()) {
                distances.add(numa.distance(id, to));
            }
            nodes.add(new NumaNode(id, numa.nodeCpus(id).intersect(online), distances));
        }

        List<CpuInfo> cpus = new ArrayList<>(online.size());
        for (int cpu : online.toArray()) {
            String topologyDir = cpuDir + "/cpu" + cpu + "/topology";
            CpuSet siblings = sysfs.readCpuList(topologyDir + "/thread_siblings_list")
                    .intersect(online)
                    .with(cpu);
            int packageId = sysfs.exists(topologyDir + "/physical_package_id")
                    ? sysfs.readInt(topologyDir + "/physical_package_id")
                    : -1;
            cpus.add(new CpuInfo(cpu, nodeOf(nodes, cpu), packageId, siblings));
        }
        return new Topology(numa.kind(), sysfs.possible(), online, allowed, isolated, nohzFull, nodes, cpus);
    }

    /**
     * The CPUs this process may use: the affinity of its first thread, which the JVM launcher leaves as the
     * process started (a container's cpuset, {@code taskset}), whatever other threads were pinned to since.
     */
    public static CpuSet processAllowed(NativeBackend backend) {
        return backend.affinity(processId());
    }

    private static int processId() {
        try {
            return ProcessFiles.selfPid();
        } catch (IOException e) {
            throw NumaspreadException.badInput("cannot read this process's id from /proc/self: " + e.getMessage(), e);
        }
    }

    /**
     * A kernel built with NO_HZ_FULL but booted without {@code nohz_full=} prints "(null)" there (Debian's 6.1
     * does); that means none.
     */
    private static CpuSet nohzFull(SysfsTree sysfs) {
        String file = SysfsTree.CPU_DIR + "/nohz_full";
        // No lambda here: the agent runs this before main, where each new lambda spins a class.
        if (sysfs.readOptional(file).equals(Optional.of("(null)"))) {
            return CpuSet.EMPTY;
        }
        return sysfs.readOptionalCpuList(file).orElse(CpuSet.EMPTY);
    }

    private static int nodeOf(List<NumaNode> nodes, int cpu) {
        for (NumaNode node : nodes) {
            if (node.cpus().contains(cpu)) {
                return node.id();
            }
        }
        return -1;
    }
}
