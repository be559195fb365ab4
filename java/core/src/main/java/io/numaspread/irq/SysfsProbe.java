// SPDX-License-Identifier: Apache-2.0
package io.numaspread.irq;

import io.numaspread.NumaspreadException;
import io.numaspread.kernel.Errno;
import io.numaspread.kernel.KernelFiles;
import java.io.IOException;
import java.nio.file.Path;

/** The privilege check that IRQ affinity and XPS share: opening the file for writing, which changes nothing. */
final class SysfsProbe {
    private SysfsProbe() {}

    /**
     * Refuses when {@code file} cannot be opened for writing for want of privilege; anything else is the write's
     * to report, and to roll back.
     *
     * @param needs what changing the file needs, for the message ("XPS needs CAP_NET_ADMIN ...")
     */
    static void probe(KernelFiles files, Path file, String needs) {
        try {
            files.probeWritable(file);
        } catch (IOException e) {
            Errno errno = Errno.of(e);
            if (errno == Errno.EROFS) {
                throw new NumaspreadException(
                        NumaspreadException.Kind.REFUSED,
                        "cannot write " + file + ": EROFS ("
                                + errno.text() + "): " + file.getParent()
                                + " is mounted read-only, as in an unprivileged"
                                + " container; run on the host or in a privileged container (--privileged), or mount"
                                + " the host's /proc/irq read-write outside /proc and name it with --proc-irq; nothing"
                                + " was changed");
            }
            if (errno == Errno.EACCES || errno == Errno.EPERM) {
                throw new NumaspreadException(
                        NumaspreadException.Kind.REFUSED,
                        "cannot write " + file + ": " + errno.name() + " (" + errno.text() + "): changing " + needs
                                + "; nothing was changed");
            }
        }
    }
}
