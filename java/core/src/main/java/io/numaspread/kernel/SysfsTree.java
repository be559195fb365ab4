// SPDX-License-Identifier: Apache-2.0
package io.numaspread.kernel;

import io.numaspread.CpuSet;
import io.numaspread.NumaspreadException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * Reads a sysfs tree: the live {@code /sys}, or a copy of one that stands in for it ({@code --sysfs-root}).
 * Every error names the file.
 */
public final class SysfsTree {
    public static final Path LIVE_ROOT = Path.of("/sys");
    private static final String POSSIBLE = "devices/system/cpu/possible";
    public static final String CPU_DIR = "devices/system/cpu";
    public static final String NODE_DIR = "devices/system/node";

    private final Path root;
    private final CpuSet possible;

    private SysfsTree(Path root, CpuSet possible) {
        this.root = root;
        this.possible = possible;
    }

    public static SysfsTree live() {
        return at(LIVE_ROOT);
    }

    /**
     * @throws NumaspreadException if {@code root} is not a sysfs tree (it has no {@code devices/system/cpu/possible})
     */
    public static SysfsTree at(Path root) {
        if (!Files.isDirectory(root)) {
            throw NumaspreadException.badInput(root + " is not a directory, so it is no sysfs tree");
        }
        if (!Files.exists(root.resolve(POSSIBLE))) {
            throw NumaspreadException.badInput(root + " is no sysfs tree: it has no " + POSSIBLE);
        }
        SysfsTree unchecked = new SysfsTree(root, null);
        CpuSet possible = unchecked.parseCpuList(POSSIBLE, unchecked.read(POSSIBLE));
        if (possible.isEmpty()) {
            throw NumaspreadException.badInput(root.resolve(POSSIBLE) + " lists no CPUs");
        }
        return new SysfsTree(root, possible);
    }

    public Path root() {
        return root;
    }

    public boolean isLive() {
        return root.equals(LIVE_ROOT);
    }

    /** {@code cpu/possible}: every CPU this kernel could ever bring online. */
    public CpuSet possible() {
        return possible;
    }

    /** The number of bits a native CPU mask needs on this machine. */
    public int maskBits() {
        return possible.last() + 1;
    }

    public Path resolve(String relative) {
        return root.resolve(relative);
    }

    public boolean exists(String relative) {
        return Files.exists(root.resolve(relative));
    }

    /**
     * The NUMA nodes the kernel has online. A kernel built without NUMA has no {@code devices/system/node}
     * and is treated as one node 0.
     */
    public CpuSet onlineNodes() {
        if (!exists(NODE_DIR)) {
            return CpuSet.of(0);
        }
        CpuSet nodes = readCpuListUnchecked(NODE_DIR + "/online");
        if (nodes.isEmpty()) {
            throw NumaspreadException.badInput(root.resolve(NODE_DIR + "/online") + " lists no nodes");
        }
        return nodes;
    }

    /** Whether the tree has NUMA node directories at all (a kernel with CONFIG_NUMA). */
    public boolean hasNodeDirectory() {
        return exists(NODE_DIR);
    }

    /** A required file's meaning ({@link KernelText}). */
    public String read(String relative) {
        // No lambda here: the agent runs this before main, where each new lambda spins a class.
        Optional<String> text = readOptional(relative);
        if (text.isEmpty()) {
            throw NumaspreadException.badInput("missing file " + root.resolve(relative));
        }
        return text.get();
    }

    /**
     * A file that only some kernels or configurations have, read as {@link KernelText} says; empty when it is absent.
     */
    public Optional<String> readOptional(String relative) {
        return KernelText.readOptional(root.resolve(relative));
    }

    /** A required cpulist file, checked against {@code cpu/possible}. */
    public CpuSet readCpuList(String relative) {
        return parseCpuList(relative, read(relative));
    }

    public Optional<CpuSet> readOptionalCpuList(String relative) {
        Optional<String> text = readOptional(relative);
        return text.isEmpty() ? Optional.empty() : Optional.of(parseCpuList(relative, text.get()));
    }

    /** A required file holding one integer. */
    public int readInt(String relative) {
        String text = read(relative);
        try {
            return Integer.parseInt(text);
        } catch (NumberFormatException e) {
            throw NumaspreadException.badInput(
                    root.resolve(relative) + ": \"" + KernelText.escape(text) + "\" is not an integer", e);
        }
    }

    private CpuSet readCpuListUnchecked(String relative) {
        return new SysfsTree(root, null).readCpuList(relative);
    }

    private CpuSet parseCpuList(String relative, String text) {
        CpuSet cpus;
        try {
            cpus = CpuSet.parse(text);
        } catch (IllegalArgumentException e) {
            throw NumaspreadException.badInput(root.resolve(relative) + ": " + KernelText.escape(e.getMessage()), e);
        }
        if (possible != null && !possible.containsAll(cpus)) {
            throw NumaspreadException.badInput(root.resolve(relative) + ": CPUs " + cpus.minus(possible)
                    + " are beyond " + root.resolve(POSSIBLE) + " (" + possible + ")");
        }
        return cpus;
    }
}
