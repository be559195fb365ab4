// SPDX-License-Identifier: Apache-2.0
package io.numaspread.kernel;

import java.nio.file.Path;

/**
 * Where the kernel's files are: {@code /proc} and {@code /sys}, or test trees that stand in for them. Paths
 * are built only from validated interface names and numbers. {@code irqRoot} is {@code PROC_ROOT/irq} but for a
 * container, whose runtime mounts {@code /proc/irq} read-only and refuses any mount below {@code /proc}: there the
 * host's {@code /proc/irq} is mounted elsewhere, and the paths are still the live kernel's.
 */
public record KernelPaths(Path procRoot, Path sysfsRoot, Path irqRoot) {
    public static final KernelPaths LIVE = new KernelPaths(Path.of("/proc"), Path.of("/sys"));

    public KernelPaths(Path procRoot, Path sysfsRoot) {
        this(procRoot, sysfsRoot, procRoot.resolve("irq"));
    }

    /** The live kernel's /proc and /sys, its /proc/irq where it is or mounted elsewhere. */
    public boolean isLive() {
        return procRoot.equals(LIVE.procRoot) && sysfsRoot.equals(LIVE.sysfsRoot);
    }

    /** The same kernel's files, with its {@code /proc/irq} at {@code directory}. */
    public KernelPaths withIrqRoot(Path directory) {
        return new KernelPaths(procRoot, sysfsRoot, directory);
    }

    public Path interrupts() {
        return procRoot.resolve("interrupts");
    }

    public Path smpAffinityList(int irq) {
        return irqRoot.resolve(Integer.toString(irq)).resolve("smp_affinity_list");
    }

    public Path effectiveAffinityList(int irq) {
        return irqRoot.resolve(Integer.toString(irq)).resolve("effective_affinity_list");
    }

    public Path netClass() {
        return sysfsRoot.resolve("class/net");
    }

    public Path netDevice(InterfaceName iface) {
        return netClass().resolve(iface.value());
    }

    public Path xpsCpus(InterfaceName iface, int queue) {
        return netDevice(iface).resolve("queues").resolve("tx-" + queue).resolve("xps_cpus");
    }

    public Path cpuPossible() {
        return sysfsRoot.resolve("devices/system/cpu/possible");
    }

    public Path defaultRoutes() {
        return procRoot.resolve("net/route");
    }
}
