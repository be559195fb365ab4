// SPDX-License-Identifier: Apache-2.0
package io.numaspread.nativeaccess;

import io.numaspread.CpuSet;
import io.numaspread.NumaspreadException;
import io.numaspread.kernel.Errno;
import io.numaspread.kernel.KernelFiles;
import io.numaspread.kernel.KernelText;
import io.numaspread.kernel.SysfsTree;
import io.numaspread.kernel.ThreadScheduling;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.StringTokenizer;

/**
 * Reads NUMA facts from sysfs and thread facts from procfs, with no native code. It works where libnuma is
 * absent, and on a copied {@code /sys} tree; it cannot change affinity.
 */
public final class SysfsBackend implements NativeBackend {
    private final SysfsTree sysfs;
    private final Path proc;

    public SysfsBackend(SysfsTree sysfs, Path proc) {
        this.sysfs = sysfs;
        this.proc = proc;
    }

    public static SysfsBackend live() {
        return new SysfsBackend(SysfsTree.live(), Path.of("/proc"));
    }

    @Override
    public BackendKind kind() {
        return BackendKind.SYSFS;
    }

    @Override
    public Optional<String> numaUnavailableCause() {
        return Optional.empty();
    }

    @Override
    public int maxNode() {
        return sysfs.onlineNodes().last();
    }

    @Override
    public CpuSet nodeCpus(int node) {
        if (!sysfs.hasNodeDirectory() && node == 0) {
            return sysfs.readCpuList(SysfsTree.CPU_DIR + "/online");
        }
        return sysfs.readCpuList(nodePath(node) + "/cpulist");
    }

    @Override
    public int distance(int from, int to) {
        CpuSet nodes = sysfs.onlineNodes();
        if (!sysfs.hasNodeDirectory()) {
            return from == 0 && to == 0 ? 10 : 0;
        }
        if (!nodes.contains(from) || !nodes.contains(to)) {
            return 0;
        }
        String file = nodePath(from) + "/distance";
        // Runs of whitespace, as split("\\s+") would, without compiling a regex before the agent's main.
        StringTokenizer tokens = new StringTokenizer(sysfs.read(file));
        String[] row = new String[tokens.countTokens()];
        for (int i = 0; i < row.length; i++) {
            row[i] = tokens.nextToken();
        }
        if (row.length != nodes.size()) {
            throw NumaspreadException.badInput(sysfs.resolve(file) + ": " + row.length + " distances for "
                    + nodes.size() + " online nodes (" + nodes + ")");
        }
        String value = row[indexOf(nodes, to)];
        try {
            return Integer.parseInt(value);
        } catch (NumberFormatException e) {
            throw NumaspreadException.badInput(
                    sysfs.resolve(file) + ": \"" + KernelText.escape(value) + "\" is not a distance", e);
        }
    }

    @Override
    public CpuSet affinity(int tid) {
        Path status = taskDir(tid).resolve("status");
        for (String line : readLines(status)) {
            if (line.startsWith("Cpus_allowed_list:")) {
                return KernelText.parseCpuList(
                        status, line.substring("Cpus_allowed_list:".length()).strip());
            }
        }
        throw NumaspreadException.badInput(status + " has no Cpus_allowed_list line");
    }

    @Override
    public void setAffinity(int tid, CpuSet cpus) {
        throw new UnsupportedOperationException(
                "the sysfs backend reads files only and cannot change affinity; use the ffm or jna backend");
    }

    /** Fields 40 and 41 of {@code /proc/TID/stat}: {@code rt_priority} and {@code policy}. */
    @Override
    public ThreadScheduling scheduling(int tid) {
        Path stat = taskDir(tid).resolve("stat");
        String text = String.join(" ", readLines(stat));
        // As in currentCpu: the fields are counted after the command name's closing ')'.
        String[] fields = text.substring(text.lastIndexOf(')') + 2).split(" ");
        final int priorityField = 40 - 3;
        final int policyField = 41 - 3;
        try {
            return SchedulingNumbers.scheduling(
                    tid, Integer.parseInt(fields[policyField]), Integer.parseInt(fields[priorityField]));
        } catch (NumberFormatException | ArrayIndexOutOfBoundsException e) {
            throw NumaspreadException.badInput(stat + " has no policy and rt_priority fields", e);
        }
    }

    @Override
    public void setScheduling(int tid, ThreadScheduling scheduling) {
        throw new UnsupportedOperationException(
                "the sysfs backend reads files only and cannot call sched_setscheduler; use the ffm or jna backend");
    }

    @Override
    public int currentCpu() {
        Path stat = proc.resolve("thread-self/stat");
        String text = String.join(" ", readLines(stat));
        // The command name in parentheses may hold spaces, so fields are counted after its closing ')'.
        String[] fields = text.substring(text.lastIndexOf(')') + 2).split(" ");
        final int processorField = 39 - 3;
        return Integer.parseInt(fields[processorField]);
    }

    @Override
    public int currentTid() {
        try {
            Path link = Files.readSymbolicLink(proc.resolve("thread-self"));
            return Integer.parseInt(link.getFileName().toString());
        } catch (IOException e) {
            throw NumaspreadException.badInput(
                    "cannot read " + proc.resolve("thread-self") + ": " + Errno.describe(e), e);
        }
    }

    @Override
    public int incomingCpu(int fd) {
        throw new UnsupportedOperationException(
                "the sysfs backend cannot call getsockopt for SO_INCOMING_CPU; use the ffm or jna backend");
    }

    @Override
    public int incomingNapiId(int fd) {
        throw new UnsupportedOperationException(
                "the sysfs backend cannot call getsockopt for SO_INCOMING_NAPI_ID; use the ffm or jna backend");
    }

    @Override
    public void setEpollBusyPoll(int epollFd, EpollBusyPoll params) {
        throw new UnsupportedOperationException(
                "the sysfs backend cannot call ioctl(EPIOCSPARAMS); use the ffm or jna backend");
    }

    @Override
    public EpollBusyPoll epollBusyPoll(int epollFd) {
        throw new UnsupportedOperationException(
                "the sysfs backend cannot call ioctl(EPIOCGPARAMS); use the ffm or jna backend");
    }

    @Override
    public IoUringNapi registerIoUringNapi(int ringFd, IoUringNapi settings) {
        throw noIoUringRegister();
    }

    @Override
    public IoUringNapi updateIoUringNapiId(int ringFd, int napiId, boolean add) {
        throw noIoUringRegister();
    }

    @Override
    public void unregisterIoUringNapi(int ringFd) {
        throw noIoUringRegister();
    }

    private static UnsupportedOperationException noIoUringRegister() {
        return new UnsupportedOperationException(
                "the sysfs backend cannot call io_uring_register(IORING_REGISTER_NAPI); use the ffm or jna backend");
    }

    @Override
    public KernelFiles kernelFiles() {
        return KernelFiles.DIRECT;
    }

    @Override
    public NetlinkFd openNetlink(int protocol, int groups) {
        throw new UnsupportedOperationException(
                "the sysfs backend cannot open netlink sockets; use the ffm or jna" + " backend");
    }

    private Path taskDir(int tid) {
        return tid == 0 ? proc.resolve("thread-self") : proc.resolve(Integer.toString(tid));
    }

    private static List<String> readLines(Path file) {
        return KernelText.readRequired(file).lines().toList();
    }

    private static String nodePath(int node) {
        return SysfsTree.NODE_DIR + "/node" + node;
    }

    private static int indexOf(CpuSet set, int member) {
        return set.intersect(CpuSet.range(0, member - 1)).size();
    }
}
