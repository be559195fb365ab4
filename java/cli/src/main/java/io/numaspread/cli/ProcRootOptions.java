// SPDX-License-Identifier: Apache-2.0
package io.numaspread.cli;

import io.numaspread.NumaspreadException;
import io.numaspread.kernel.Errno;
import io.numaspread.kernel.KernelPaths;
import io.numaspread.kernel.TrustedDirectory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.Optional;
import picocli.CommandLine.Option;

/** Where {@code /proc} is; with {@link MachineOptions}' {@code --sysfs-root}, where the kernel's files are. */
final class ProcRootOptions {
    @Option(
            names = "--proc-root",
            paramLabel = "DIR",
            description = "Read and write this tree instead of /proc (for tests; it changes nothing else).")
    Path procRoot;

    @Option(
            names = "--proc-irq",
            paramLabel = "DIR",
            description = "Where the live kernel's /proc/irq is mounted, for a container whose own /proc/irq is"
                    + " read-only: the runtime mounts it so and refuses any mount below /proc, so the host's is"
                    + " mounted elsewhere (e.g. a hostPath at /host/proc/irq). Not with --proc-root.")
    Path procIrq;

    /**
     * The paths for a command that writes: a copied tree on one side and the live kernel on the other would
     * write the live IRQs of a NIC described by a copy, so both roots or neither.
     */
    KernelPaths writablePaths(MachineOptions machine) {
        if ((procRoot == null) != (machine.sysfsRoot == null)) {
            throw NumaspreadException.badInput("give both --proc-root and --sysfs-root or neither:"
                    + " with one alone, the live kernel's files would be written for a copied tree's NIC");
        }
        if (procRoot != null) {
            checkTrusted("--proc-root", procRoot);
            checkTrusted("--sysfs-root", machine.sysfsRoot);
        }
        return paths(machine);
    }

    /**
     * Refuses a stand-in tree that root must not write through ({@link TrustedDirectory}'s rule): one that another
     * user owns or others can write, or that lies below such a directory or a link. Its owner could plant a link
     * at any control file, at any moment, and aim root's write at a file of root's. Inside an accepted tree, the
     * control files are still opened without following a link; the tree's own links on the way (a copied
     * {@code /sys/class/net/eth0}) are followed, as the kernel's are.
     */
    private static void checkTrusted(String flag, Path root) {
        try {
            Optional<TrustedDirectory> tree = TrustedDirectory.open(root);
            if (tree.isPresent()) {
                tree.get().close();
            }
        } catch (TrustedDirectory.Untrusted e) {
            throw new NumaspreadException(
                    NumaspreadException.Kind.REFUSED,
                    flag + " " + root + ": " + e.getMessage() + "; numaspread writes as root only into a tree that"
                            + " root (or you) alone can change; nothing was changed",
                    e);
        } catch (IOException e) {
            throw NumaspreadException.badInput("cannot open " + flag + " " + root + ": " + Errno.describe(e), e);
        }
    }

    KernelPaths paths(MachineOptions machine) {
        KernelPaths paths = new KernelPaths(
                procRoot == null ? KernelPaths.LIVE.procRoot() : procRoot,
                machine.sysfsRoot == null ? KernelPaths.LIVE.sysfsRoot() : machine.sysfsRoot);
        if (procIrq == null) {
            return paths;
        }
        if (!paths.isLive()) {
            throw NumaspreadException.badInput("--proc-irq " + procIrq + " names where the live kernel's /proc/irq"
                    + " is mounted; stand-in trees (--proc-root, --sysfs-root) have their own irq directory");
        }
        if (!Files.isRegularFile(procIrq.resolve("default_smp_affinity"), LinkOption.NOFOLLOW_LINKS)) {
            throw NumaspreadException.badInput(
                    "--proc-irq " + procIrq + " is not a /proc/irq: it has no default_smp_affinity file");
        }
        return paths.withIrqRoot(procIrq);
    }
}
