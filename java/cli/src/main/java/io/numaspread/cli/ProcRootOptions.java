package io.numaspread.cli;

import io.numaspread.irq.KernelPaths;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/** Where {@code /proc} is; with {@link MachineOptions}' {@code --sysfs-root}, where the kernel's files are. */
final class ProcRootOptions {
    @Option(names = "--proc-root", paramLabel = "DIR",
            description = "Read and write this tree instead of /proc (for tests; it changes nothing else).")
    Path procRoot;

    KernelPaths paths(MachineOptions machine) {
        return new KernelPaths(procRoot == null ? KernelPaths.LIVE.procRoot() : procRoot,
                machine.sysfsRoot == null ? KernelPaths.LIVE.sysfsRoot() : machine.sysfsRoot);
    }
}
