// SPDX-License-Identifier: Apache-2.0
package io.numaspread.irq;

import io.numaspread.CpuSet;
import io.numaspread.kernel.KernelFiles;
import io.numaspread.kernel.KernelPaths;
import io.numaspread.kernel.ProcessFiles;
import io.numaspread.kernel.ThreadScheduling;
import io.numaspread.nic.NapiMap;
import io.numaspread.nic.PerNapiThreaded;
import java.io.IOException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.OptionalInt;

/**
 * Threaded NAPI kernel threads ({@code napi/IFACE-ID}) as the transaction reaches them: found by the name the
 * kernel gives them (a PID from netdev netlink is used when its {@code /proc/PID/comm} confirms it), their
 * affinity read back from {@code Cpus_allowed_list} in {@code /proc/PID/status}, and set with
 * {@code sched_setaffinity} on the thread's PID through the native backend. A re-created thread (threaded
 * toggled, {@code ethtool -L}, a reset) has a new PID but the same name, so it is found again; or, re-created
 * before its NAPI had its ID back, the name {@code napi/IFACE-0}, and then only through napi-get's PID.
 */
public final class NapiThreads {
    /** {@code sched_setaffinity(pid, ...)}: the native backend's, with the call's errno in the exception. */
    @FunctionalInterface
    public interface AffinitySetter {
        void set(int pid, CpuSet cpus) throws IOException;
    }

    /**
     * A thread's scheduling class by PID: {@code sched_getscheduler} with {@code sched_getparam}, and {@code
     * sched_setscheduler}, through the native backend, each failure an {@link IOException} with the call's errno.
     */
    public interface Scheduler {
        ThreadScheduling get(int pid) throws IOException;

        void set(int pid, ThreadScheduling scheduling) throws IOException;
    }

    /** For transactions given no way to change a thread's scheduling class: every call fails, naming the PID. */
    public static final Scheduler NO_SCHEDULER = new Scheduler() {
        @Override
        public ThreadScheduling get(int pid) throws IOException {
            throw new IOException("no thread scheduling access was given for pid " + pid);
        }

        @Override
        public void set(int pid, ThreadScheduling scheduling) throws IOException {
            throw new IOException("no thread scheduling access was given for pid " + pid);
        }
    };

    /** {@code PF_KTHREAD} in the flags of {@code /proc/PID/stat}: a kernel thread, never a process's thread. */
    private static final long PF_KTHREAD = 0x00200000L;

    /** {@code TASK_COMM_LEN} less its NUL: kernels before 5.17 show a kernel thread's name cut to this. */
    private static final int COMM_CHARACTERS = 15;

    /** A cut name that several threads carry. */
    private static final int AMBIGUOUS = -1;

    /** For transactions that reach no NAPI thread: none is found, and setting one fails. */
    public static final NapiThreads NONE = new NapiThreads(
            null,
            null,
            (pid, cpus) -> {
                throw new IllegalStateException("no NAPI thread access was given for pid " + pid);
            },
            Map.of(),
            PerNapiThreaded.NONE,
            NO_SCHEDULER);

    private final KernelPaths paths;
    private final KernelFiles files;
    private final AffinitySetter setter;
    private final PerNapiThreaded perNapi;
    private final Scheduler scheduler;
    private Map<Integer, Integer> netlinkPids;
    private Map<String, Integer> byName = Map.of();

    /**
     * @param netlinkPids thread PIDs by NAPI ID as netdev {@code napi-get} gave them; each is used only when its
     *     {@code comm} names that NAPI's thread
     */
    public NapiThreads(KernelPaths paths, KernelFiles files, AffinitySetter setter, Map<Integer, Integer> netlinkPids) {
        this(paths, files, setter, netlinkPids, PerNapiThreaded.NONE, NO_SCHEDULER);
    }

    /**
     * @param perNapi each NAPI's own {@code threaded} (netdev netlink, Linux 6.17), for an apply that turns the
     *     planned NAPIs' threads on one by one and the restore that turns them back
     */
    public NapiThreads(
            KernelPaths paths,
            KernelFiles files,
            AffinitySetter setter,
            Map<Integer, Integer> netlinkPids,
            PerNapiThreaded perNapi) {
        this(paths, files, setter, netlinkPids, perNapi, NO_SCHEDULER);
    }

    /**
     * @param scheduler each thread's scheduling class, for an apply that sets the busy-poll threads' ({@code
     *     --poll-sched}) and the restore that puts them back
     */
    public NapiThreads(
            KernelPaths paths,
            KernelFiles files,
            AffinitySetter setter,
            Map<Integer, Integer> netlinkPids,
            PerNapiThreaded perNapi,
            Scheduler scheduler) {
        this.scheduler = scheduler;
        this.paths = paths;
        this.files = files;
        this.setter = setter;
        this.netlinkPids = Map.copyOf(netlinkPids);
        this.perNapi = perNapi;
    }

    /** The threads' scheduling classes, read and set by PID. */
    Scheduler scheduler() {
        return scheduler;
    }

    /** Each NAPI's own {@code threaded}, read and set through netdev netlink. */
    PerNapiThreaded perNapi() {
        return perNapi;
    }

    /** Takes the thread PIDs that netdev {@code napi-get} gives in {@code map}, to be checked as any other. */
    public synchronized void useNetlinkPids(NapiMap map) {
        Map<Integer, Integer> pids = new HashMap<>();
        map.instances().forEach(napi -> napi.threadPid().ifPresent(pid -> pids.put(napi.id(), pid)));
        netlinkPids = Map.copyOf(pids);
    }

    /** The PID of the live kernel thread of {@code target}, or empty when there is none. */
    public synchronized OptionalInt find(Target target) {
        if (paths == null) {
            return OptionalInt.empty(); // NONE: no thread can be reached
        }
        Integer hinted = netlinkPids.get(target.number());
        if (hinted != null && (names(hinted, target.name()) || names(hinted, beforeItsId(target)))) {
            return OptionalInt.of(hinted);
        }
        Integer known = byName.get(target.name());
        if (known != null && names(known, target.name())) {
            return OptionalInt.of(known);
        }
        byName = scan();
        Integer found = byName.get(target.name());
        if (found == null && target.name().length() > COMM_CHARACTERS) {
            found = byName.get(target.name().substring(0, COMM_CHARACTERS));
        }
        return found == null || found == AMBIGUOUS ? OptionalInt.empty() : OptionalInt.of(found);
    }

    /**
     * The name the kernel gives {@code target}'s thread when it starts the thread before the NAPI has its ID back:
     * {@code napi/IFACE-0}. Linux 7.3's igb (persistent NAPI config) re-creates a threaded NAPI's thread at {@code
     * netif_napi_add}, so after {@code ethtool -L} napi-get gives NAPI 8193 the thread {@code napi/eth0-0}; only
     * that PID, from napi-get, tells such threads apart.
     */
    private static String beforeItsId(Target target) {
        String name = target.name();
        return name.substring(0, name.lastIndexOf('-') + 1) + "0";
    }

    /** {@code Cpus_allowed_list} of {@code pid}, as the kernel prints it. */
    public String affinity(int pid) throws IOException {
        Path status = paths.procRoot().resolve(Integer.toString(pid)).resolve("status");
        for (String line : files.read(status).split("\n")) {
            if (line.startsWith("Cpus_allowed_list:")) {
                return line.substring("Cpus_allowed_list:".length()).strip();
            }
        }
        throw new IOException(status + " has no Cpus_allowed_list line");
    }

    public void setAffinity(int pid, CpuSet cpus) throws IOException {
        setter.set(pid, cpus);
    }

    /** Where a thread's affinity shows, for messages. */
    public Path statusFile(int pid) {
        return paths.procRoot().resolve(Integer.toString(pid)).resolve("status");
    }

    /** Whether {@code pid} is a kernel thread with the name {@code name} (or its first 15 characters). */
    private boolean names(int pid, String name) {
        // A task that is gone reads as empty: not this thread.
        return commMatches(ProcessFiles.read(paths.procRoot(), pid, "comm"), name)
                && isKernelThread(ProcessFiles.read(paths.procRoot(), pid, "stat"));
    }

    private static boolean commMatches(String comm, String name) {
        return comm.equals(name) || comm.length() == COMM_CHARACTERS && name.startsWith(comm);
    }

    /**
     * The kernel threads whose names start with {@code napi/}, by name. A name cut to 15 characters that more
     * than one NAPI thread could carry is left out: only a netlink PID can tell those apart.
     */
    private Map<String, Integer> scan() {
        Map<String, Integer> found = new HashMap<>();
        try {
            for (int pid : ProcessFiles.pids(paths.procRoot())) {
                String comm = ProcessFiles.read(paths.procRoot(), pid, "comm"); // empty once the task exited
                if (comm.startsWith("napi/") && isKernelThread(ProcessFiles.read(paths.procRoot(), pid, "stat"))) {
                    found.merge(comm, pid, (one, other) -> AMBIGUOUS);
                }
            }
        } catch (IOException e) {
            return Map.of();
        }
        return found;
    }

    /**
     * Whether a {@code /proc/PID/stat} line is a kernel thread's: its ninth field, the flags, has PF_KTHREAD.
     * The name in parentheses may hold spaces and parentheses, so the fields are counted after the last ')'.
     */
    static boolean isKernelThread(String stat) {
        int end = stat.lastIndexOf(')');
        if (end < 0) {
            return false;
        }
        String[] fields = stat.substring(end + 1).strip().split(" ");
        if (fields.length < 7) {
            return false;
        }
        try {
            return (Long.parseUnsignedLong(fields[6]) & PF_KTHREAD) != 0;
        } catch (NumberFormatException e) {
            return false;
        }
    }
}
