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

    /**
     * What the kernel file's text means, read strictly: a cpulist ({@code "0-3,8"}) or a hex mask
     * ({@code "00000000,000000ff"}) exactly as the kernel prints them, with no blanks, signs or empty parts, so
     * that a value recorded from the kernel is the only kind that can be written back. An empty cpulist is refused:
     * written to {@code smp_affinity_list}, it would not keep the IRQ where it was.
     *
     * @throws IllegalArgumentException naming the text and what is wrong with it
     */
    public CpuSet parse(String text) {
        String allowed = kind == Kind.IRQ ? "0123456789-," : "0123456789abcdefABCDEF,";
        String form = kind == Kind.IRQ ? "a cpulist" : "a hex mask";
        if (text.isEmpty()) {
            throw new IllegalArgumentException("an empty value is not " + form);
        }
        for (int i = 0; i < text.length(); i++) {
            if (allowed.indexOf(text.charAt(i)) < 0) {
                throw new IllegalArgumentException(quoted(text) + " is not " + form + " as the kernel prints it: character "
                        + (i + 1) + " is not one of " + allowed);
            }
        }
        return switch (kind) {
            case IRQ -> CpuSet.parse(text);
            case XPS -> CpuSet.parseHexMask(text);
        };
    }

    /** The text in quotes, shortened, with control characters escaped, for an error message. */
    private static String quoted(String text) {
        String shown = text.length() <= 40 ? text : text.substring(0, 36) + "...";
        return MiniJson.quote(shown);
    }

    /**
     * The text to write for {@code cpus}, as the kernel itself prints it: hex masks are sized for {@code maskBits}
     * CPUs (cpu/possible, the kernel's nr_cpu_ids), their first group only as wide as its bits need ("ff" for 8
     * CPUs, "01,00000000" for 40), so that a restored file reads exactly as it did.
     */
    public String format(CpuSet cpus, int maskBits) {
        return switch (kind) {
            case IRQ -> cpus.toString();
            case XPS -> {
                int firstGroupBits = maskBits % 32 == 0 ? 32 : maskBits % 32;
                yield cpus.toHexMask(maskBits).substring(8 - (firstGroupBits + 3) / 4);
            }
        };
    }
}
