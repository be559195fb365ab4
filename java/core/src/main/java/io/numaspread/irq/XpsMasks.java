// SPDX-License-Identifier: Apache-2.0
package io.numaspread.irq;

import io.numaspread.kernel.Errno;
import io.numaspread.kernel.KernelFiles;
import io.numaspread.kernel.KernelPaths;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/** XPS: each transmit queue's {@code /sys/class/net/IFACE/queues/tx-N/xps_cpus}, a hex mask. */
final class XpsMasks extends KernelFileSetting {
    XpsMasks(KernelPaths paths, KernelFiles files) {
        super(paths, files);
    }

    /** The file exists but the kernel reports ENOENT on reading it: a single-queue device. */
    @Override
    public boolean lacks(Target target, IOException failure) {
        return Errno.of(failure) == Errno.ENOENT && Files.exists(target.file(paths));
    }

    @Override
    public void probe(Target target) {
        SysfsProbe.probe(
                files, target.file(paths), "XPS needs CAP_NET_ADMIN and root's write access to" + " /sys/class/net");
    }

    @Override
    public String where(Target target) {
        return target.file(paths).toString();
    }

    @Override
    public Optional<String> goneReason(Target target, IrqsNow irqs) {
        Path queue = target.file(paths).getParent();
        return Files.isDirectory(queue)
                ? Optional.empty()
                : Optional.of(queue + " no longer exists (the transmit queues were reduced, or the device removed)");
    }
}
