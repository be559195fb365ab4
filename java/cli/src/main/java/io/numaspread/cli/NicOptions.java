package io.numaspread.cli;

import io.numaspread.irq.InterfaceName;
import io.numaspread.irq.KernelPaths;
import io.numaspread.irq.Nic;
import io.numaspread.irq.NicDiscovery;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/** Which NIC, and where {@code /proc} is. ({@code --sysfs-root} is {@link MachineOptions}'.) */
final class NicOptions {
    @Option(names = "--nic", paramLabel = "IFACE", required = true,
            description = "The network interface whose queue IRQs are placed (e.g. eth0).")
    String nic;

    @Option(names = "--proc-root", paramLabel = "DIR",
            description = "Read and write this tree instead of /proc (for tests; it changes nothing else).")
    Path procRoot;

    InterfaceName iface() {
        return new InterfaceName(nic);
    }

    KernelPaths paths(MachineOptions machine) {
        return new KernelPaths(procRoot == null ? KernelPaths.LIVE.procRoot() : procRoot,
                machine.sysfsRoot == null ? KernelPaths.LIVE.sysfsRoot() : machine.sysfsRoot);
    }

    Nic discover(MachineOptions machine) {
        return NicDiscovery.discover(iface(), paths(machine));
    }
}
