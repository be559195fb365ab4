package io.numaspread.cli;

import io.numaspread.nativeaccess.BackendUnavailableException;
import io.numaspread.nativeaccess.Backends;
import io.numaspread.nativeaccess.SysfsBackend;
import io.numaspread.topology.SysfsTree;
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

    /** The selected backend with the reasons others were skipped. */
    Backends.Selection selection() {
        if (sysfsRoot == null) {
            try {
                return Backends.live();
            } catch (BackendUnavailableException e) {
                throw new CliException(CliException.BAD_INPUT, e.getMessage() + " (it was forced by -D"
                        + Backends.OVERRIDE_PROPERTY + ")");
            }
        }
        return new Backends.Selection(new SysfsBackend(sysfs(), Path.of("/proc")), Map.of());
    }

    SysfsTree sysfs() {
        return sysfsRoot == null ? SysfsTree.live() : SysfsTree.at(sysfsRoot);
    }

    Topology topology() {
        return TopologyDiscovery.discover(selection().backend(), sysfs());
    }
}
