// SPDX-License-Identifier: Apache-2.0
package io.numaspread.cli;

import io.numaspread.NumaspreadException;
import io.numaspread.kernel.KernelFiles;
import io.numaspread.kernel.SysfsTree;
import io.numaspread.nativeaccess.BackendUnavailableException;
import io.numaspread.nativeaccess.Backends;
import io.numaspread.nativeaccess.NativeBackend;
import io.numaspread.nativeaccess.SysfsBackend;
import io.numaspread.topology.Topology;
import io.numaspread.topology.TopologyDiscovery;
import java.nio.file.Path;
import java.util.Map;
import picocli.CommandLine.Option;

/** Where the machine description comes from: the live kernel, or a copied {@code /sys} tree. */
final class MachineOptions {
    @Option(names = "--sysfs-root", paramLabel = "DIR",
            description = "Read this copy of a /sys tree instead of /sys (selects the sysfs backend).")
    Path sysfsRoot;

    /** The selected backend, with the reasons others were skipped, and the topology it reads. */
    record Machine(Backends.Selection selection, Topology topology) {
    }

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
        try {
            return Backends.live().backend().kernelFiles();
        } catch (BackendUnavailableException e) {
            throw NumaspreadException.badInput(e.getMessage() + " (it was forced by -D"
                    + Backends.OVERRIDE_PROPERTY + ")");
        }
    }

    Topology topology() {
        return read().topology();
    }

    /** The backend this command reads the machine through: the sysfs backend over a copied tree. */
    NativeBackend backend() {
        return selection(sysfsRoot == null ? SysfsTree.live() : SysfsTree.at(sysfsRoot)).backend();
    }

    private Backends.Selection selection(SysfsTree sysfs) {
        if (sysfsRoot == null) {
            try {
                return Backends.live();
            } catch (BackendUnavailableException e) {
                throw NumaspreadException.badInput(e.getMessage() + " (it was forced by -D"
                        + Backends.OVERRIDE_PROPERTY + ")");
            }
        }
        return new Backends.Selection(new SysfsBackend(sysfs, Path.of("/proc")), Map.of());
    }
}
