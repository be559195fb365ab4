// SPDX-License-Identifier: Apache-2.0
package io.numaspread.irq;

import io.numaspread.CpuSet;
import io.numaspread.kernel.InterfaceName;
import io.numaspread.kernel.KernelPaths;
import java.nio.file.Path;

/**
 * A kernel file that holds a CPU set for one of a NIC's queues: an IRQ's {@code smp_affinity_list} (a cpulist)
 * or a transmit queue's {@code xps_cpus} (a hex mask).
 *
 * @param number the IRQ, or the transmit queue
 * @param name the IRQ's name in {@code /proc/interrupts}; the interface for XPS
 */
public record Target(Kind kind, int number, String name) {
    public enum Kind {
        IRQ,
        XPS
    }

    public static Target irq(int irq, String name) {
        return new Target(Kind.IRQ, irq, name);
    }

    public static Target xps(InterfaceName iface, int txQueue) {
        return new Target(Kind.XPS, txQueue, iface.value());
    }

    public Path file(KernelPaths paths) {
        return switch (kind) {
            case IRQ -> paths.smpAffinityList(number);
            case XPS -> paths.xpsCpus(new InterfaceName(name), number);
        };
    }

    /** "IRQ 38 (virtio2-input.0)" or "eth0 tx-0 xps_cpus". */
    public String label() {
        return switch (kind) {
            case IRQ -> "IRQ " + number + " (" + name + ")";
            case XPS -> name + " tx-" + number + " xps_cpus";
        };
    }

    /** What the kernel file's text means; the text itself is kept as read for an exact restore. */
    public CpuSet parse(String text) {
        return switch (kind) {
            case IRQ -> CpuSet.parse(text);
            case XPS -> CpuSet.parseHexMask(text);
        };
    }

    /** The text to write for {@code cpus}; hex masks are sized for {@code maskBits} CPUs (cpu/possible). */
    public String format(CpuSet cpus, int maskBits) {
        return switch (kind) {
            case IRQ -> cpus.toString();
            case XPS -> cpus.toHexMask(maskBits);
        };
    }
}
