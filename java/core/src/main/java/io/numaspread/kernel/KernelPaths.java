// SPDX-License-Identifier: Apache-2.0
package io.numaspread.kernel;

import java.nio.file.Path;

/**
 * Where the kernel's files are: {@code /proc} and {@code /sys}, or test trees that stand in for them. Paths
 * are built only from validated interface names and numbers.
 */
public record KernelPaths(Path procRoot, Path sysfsRoot) {
    public static final KernelPaths LIVE = new KernelPaths(Path.of("/proc"), Path.of("/sys"));

    public Path interrupts() {
        return procRoot.resolve("interrupts");
    }

    public Path smpAffinityList(int irq) {
        return procRoot.resolve("irq").resolve(Integer.toString(irq)).resolve("smp_affinity_list");
    }

    public Path effectiveAffinityList(int irq) {
        return procRoot.resolve("irq").resolve(Integer.toString(irq)).resolve("effective_affinity_list");
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
