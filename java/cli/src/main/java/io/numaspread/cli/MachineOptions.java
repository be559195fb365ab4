// SPDX-License-Identifier: Apache-2.0
package io.numaspread.cli;

import io.numaspread.NumaspreadException;
import io.numaspread.irq.NapiThreads;
import io.numaspread.irq.NicPlacement;
import io.numaspread.kernel.ErrnoException;
import io.numaspread.kernel.InterfaceName;
import io.numaspread.kernel.KernelFiles;
import io.numaspread.kernel.KernelPaths;
import io.numaspread.kernel.SysfsTree;
import io.numaspread.kernel.ThreadScheduling;
import io.numaspread.nativeaccess.BackendUnavailableException;
import io.numaspread.nativeaccess.Backends;
import io.numaspread.nativeaccess.NativeBackend;
import io.numaspread.nativeaccess.NativeCallException;
import io.numaspread.nativeaccess.SysfsBackend;
import io.numaspread.nic.NapiDiscovery;
import io.numaspread.nic.NapiSettingsChange;
import io.numaspread.nic.PerNapiThreaded;
import io.numaspread.nic.QueueLeases;
import io.numaspread.topology.Topology;
import io.numaspread.topology.TopologyDiscovery;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import picocli.CommandLine.Option;

/** Where the machine description comes from: the live kernel, or a copied {@code /sys} tree. */
final class MachineOptions {
    @Option(
            names = "--sysfs-root",
            paramLabel = "DIR",
            description = "Read this copy of a /sys tree instead of /sys (selects the sysfs backend).")
    Path sysfsRoot;

    /** Where plans learn leased queues: the live kernel's queue-get, but in tests recorded leases. */
    QueueLeases.Source leaseSource = QueueLeases.live(this::backend);

    /** The selected backend, with the reasons others were skipped, and the topology it reads. */
    record Machine(Backends.Selection selection, Topology topology) {}

    /** Reads the machine once: the sysfs tree, the backend over it, and the topology. */
    Machine read() {
        SysfsTree sysfs = sysfsRoot == null ? SysfsTree.live() : SysfsTree.at(sysfsRoot);
        Backends.Selection selection = selection(sysfs);
        return new Machine(selection, TopologyDiscovery.discover(selection.backend(), sysfs));
    }

    /**
     * The kernel's control files through this JVM's backend on the live machine, whichever tree describes it:
     * they are written by this process, and a native backend reports each failure's errno whatever the user's
     * language, where Java's file API would word it in that language.
     */
    KernelFiles kernelFiles() {
        return live().backend().kernelFiles();
    }

    /**
     * The one placement of a command, whatever it writes: {@code apply} of one NIC or several, and {@code restore}.
     * NAPI threads and NAPI settings are reached through this machine's backend only when a change asks for them
     * (a state file's NAPI settings, {@code --napi-threads}); over stand-in trees a state file recording NAPI
     * settings is refused rather than half restored.
     *
     * @param files the kernel's files ({@link #kernelFiles}, but in fault tests)
     * @param state where each interface's previous values go
     */
    NicPlacement placement(KernelPaths paths, KernelFiles files, NicPlacement.StateLocation state) {
        return new NicPlacement(
                paths, files, Optional.of(iface -> napiAccess(iface, paths)), state, napiSettingsRestore(paths));
    }

    /**
     * How NAPI threads are pinned: {@code sched_setaffinity} on the thread's PID through this JVM's native backend
     * on the live kernel, with the call's errno. For a stand-in tree there is nothing to pin: its PIDs name no
     * thread of this machine, and the live thread with that PID must not be touched.
     */
    NapiThreads.AffinitySetter threadAffinity(KernelPaths paths) {
        if (!paths.isLive()) {
            return (pid, cpus) -> {
                throw new IOException("NAPI threads are pinned only on the live kernel, not for task " + pid
                        + " of the stand-in tree " + paths.procRoot());
            };
        }
        NativeBackend backend = backend();
        return (pid, cpus) -> {
            try {
                backend.setAffinity(pid, cpus);
            } catch (NativeCallException e) {
                throw new ErrnoException("sched_setaffinity", Path.of("/proc", Integer.toString(pid)), e.errno());
            } catch (UnsupportedOperationException e) {
                throw new IOException("the " + backend.kind() + " backend cannot set a thread's affinity", e);
            }
        };
    }

    /**
     * How the busy-poll threads' scheduling class is read and set: {@code sched_getscheduler}, {@code
     * sched_getparam} and {@code sched_setscheduler} on the thread's PID through this JVM's native backend on the
     * live kernel, with the call's errno. As for affinity, a stand-in tree's PIDs name no thread of this machine.
     */
    NapiThreads.Scheduler threadScheduler(KernelPaths paths) {
        if (!paths.isLive()) {
            return NapiThreads.NO_SCHEDULER;
        }
        NativeBackend backend = backend();
        return new NapiThreads.Scheduler() {
            @Override
            public ThreadScheduling get(int pid) throws IOException {
                try {
                    return backend.scheduling(pid);
                } catch (NativeCallException e) {
                    throw new ErrnoException(e.function(), Path.of("/proc", Integer.toString(pid)), e.errno());
                }
            }

            @Override
            public void set(int pid, ThreadScheduling scheduling) throws IOException {
                try {
                    backend.setScheduling(pid, scheduling);
                } catch (NativeCallException e) {
                    throw new ErrnoException("sched_setscheduler", Path.of("/proc", Integer.toString(pid)), e.errno());
                } catch (UnsupportedOperationException e) {
                    throw new IOException(
                            "the " + backend.kind() + " backend cannot set a thread's scheduling class", e);
                }
            }
        };
    }

    /**
     * How {@code --napi-threads} reaches {@code iface}'s NAPI threads: the one place their map is read (netdev
     * netlink through the live backend, with its fallbacks) and the threads are pinned.
     *
     * @throws NumaspreadException REFUSED when the interface has no {@code threaded} file (Linux before 5.12);
     *     BAD_INPUT for stand-in trees, whose PIDs name no thread of this machine
     */
    NicPlacement.NapiAccess napiAccess(InterfaceName iface, KernelPaths paths) {
        NicPlacement.threadedFile(paths, iface);
        if (!paths.isLive()) {
            throw NumaspreadException.badInput(
                    "--napi-threads and --poll-queues work on the live kernel's NAPI threads, which the"
                            + " stand-in trees --sysfs-root " + paths.sysfsRoot() + " --proc-root " + paths.procRoot()
                            + " do not describe; nothing was changed");
        }
        NativeBackend backend = backend();
        return new NicPlacement.NapiAccess(
                () -> NapiDiscovery.discover(iface, paths, backend),
                threadAffinity(paths),
                PerNapiThreaded.live(paths, backend),
                threadScheduler(paths));
    }

    /**
     * How {@code --irq-suspend} reaches {@code iface}'s NAPIs: their map and settings through netdev netlink on the
     * live backend.
     *
     * @throws NumaspreadException BAD_INPUT for stand-in trees: NAPI settings are the running kernel's
     */
    NicPlacement.NapiSettingsAccess napiSettingsAccess(InterfaceName iface, KernelPaths paths) {
        if (!paths.isLive()) {
            throw NumaspreadException.badInput("--irq-suspend sets the live kernel's NAPI settings, which the"
                    + " stand-in trees --sysfs-root " + paths.sysfsRoot() + " --proc-root " + paths.procRoot()
                    + " do not hold; nothing was changed");
        }
        NativeBackend backend = backend();
        return new NicPlacement.NapiSettingsAccess(
                () -> NapiDiscovery.discover(iface, paths, backend), NapiSettingsChange.Access.live(paths, backend));
    }

    /**
     * How a restore puts back the NAPI settings a state file records: netdev netlink on the running kernel; over
     * stand-in trees none, so that a state file recording them is refused rather than half restored.
     */
    NapiSettingsChange.Access napiSettingsRestore(KernelPaths paths) {
        return paths.isLive() ? NapiSettingsChange.Access.live(paths, backend()) : NapiSettingsChange.Access.NONE;
    }

    Topology topology() {
        return read().topology();
    }

    /** The backend this command reads the machine through: the sysfs backend over a copied tree. */
    NativeBackend backend() {
        return selection().backend();
    }

    /** The backend selection, with the reasons others were skipped: the sysfs backend over a copied tree. */
    Backends.Selection selection() {
        return selection(sysfsRoot == null ? SysfsTree.live() : SysfsTree.at(sysfsRoot));
    }

    private Backends.Selection selection(SysfsTree sysfs) {
        return sysfsRoot == null ? live() : new Backends.Selection(new SysfsBackend(sysfs, Path.of("/proc")), Map.of());
    }

    /** The live machine's backend ({@link Backends#live} selects it once per JVM). */
    private static Backends.Selection live() {
        try {
            return Backends.live();
        } catch (BackendUnavailableException e) {
            throw NumaspreadException.badInput(
                    e.getMessage() + " (it was forced by -D" + Backends.OVERRIDE_PROPERTY + ")");
        }
    }
}
