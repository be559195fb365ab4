// SPDX-License-Identifier: Apache-2.0
package io.numaspread.cli;

import io.numaspread.kernel.KernelPaths;
import io.numaspread.lease.CpuLeases;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/** {@code --lease-dir DIR}: the CPU lease registry whose holders {@code irqs} and {@code doctor} show. */
final class LeaseDirOption {
    @Option(
            names = "--lease-dir",
            paramLabel = "DIR",
            description = "The CPU lease registry to show the holders of (default " + CpuLeases.DEFAULT
                    + ", or PROC_ROOT/numaspread/cpus with --proc-root).")
    Path leaseDir;

    /** The directory given, or the default for {@code paths}: beside the state files, as theirs is. */
    Path directory(KernelPaths paths) {
        if (leaseDir != null) {
            return leaseDir;
        }
        return paths.isLive() ? Path.of(CpuLeases.DEFAULT) : paths.procRoot().resolve("numaspread/cpus");
    }
}
