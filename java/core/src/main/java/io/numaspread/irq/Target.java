// SPDX-License-Identifier: Apache-2.0
package io.numaspread.irq;

import io.numaspread.CpuSet;
import io.numaspread.kernel.InterfaceName;
import io.numaspread.kernel.KernelPaths;
import java.nio.file.Path;

/**
 * A CPU set the kernel holds for one of a NIC's queues: an IRQ's {@code smp_affinity_list} (a cpulist), a
 * transmit queue's {@code xps_cpus} (a hex mask), or the affinity of a queue's threaded NAPI kernel thread (a
 * cpulist, as {@code Cpus_allowed_list} in {@code /proc/PID/status} shows it). The thread has no file to write:
 * it is found by its name, which carries its NAPI ID, and pinned with {@code sched_setaffinity}.
 *
 * @param number the IRQ, the transmit queue, or the NAPI ID
 * @param name the IRQ's name in {@code /proc/interrupts}; the interface for XPS; the thread's name
 *     {@code napi/IFACE-ID} for a NAPI thread
 */
public record Target(Kind kind, int number, String name) {
    public enum Kind {
        IRQ,
        XPS,
        NAPI_THREAD
    }

    public static Target irq(int irq, String name) {
        return new Target(Kind.IRQ, irq, name);
    }

    public static Target xps(InterfaceName iface, int txQueue) {
        return new Target(Kind.XPS, txQueue, iface.value());
    }

    /** The thread of NAPI {@code napiId} of {@code iface}, by the name the kernel gives it. */
    public static Target napiThread(InterfaceName iface, int napiId) {
        return new Target(Kind.NAPI_THREAD, napiId, napiThreadName(iface, napiId));
    }

    /** {@code napi/IFACE-ID}, as the kernel's {@code napi_kthread_create} names the thread. */
    public static String napiThreadName(InterfaceName iface, int napiId) {
        return "napi/" + iface.value() + "-" + napiId;
    }

    /**
     * The file that holds the value: for a NAPI thread there is none, and the transaction goes through
     * {@link NapiThreads} instead.
     *
     * @throws IllegalStateException for a NAPI thread
     */
    public Path file(KernelPaths paths) {
        return switch (kind) {
            case IRQ -> paths.smpAffinityList(number);
            case XPS -> paths.xpsCpus(new InterfaceName(name), number);
            case NAPI_THREAD ->
                throw new IllegalStateException(label() + " has no file; it is set with sched_setaffinity");
        };
    }

    /** "IRQ 38 (virtio2-input.0)", "eth0 tx-0 xps_cpus" or "NAPI 8193 thread (napi/eth0-8193)". */
    public String label() {
        return switch (kind) {
            case IRQ -> "IRQ " + number + " (" + name + ")";
            case XPS -> name + " tx-" + number + " xps_cpus";
            case NAPI_THREAD -> "NAPI " + number + " thread (" + name + ")";
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
        String allowed = kind == Kind.XPS ? "0123456789abcdefABCDEF," : "0123456789-,";
        String form = kind == Kind.XPS ? "a hex mask" : "a cpulist";
        if (text.isEmpty()) {
            throw new IllegalArgumentException("an empty value is not " + form);
        }
        for (int i = 0; i < text.length(); i++) {
            if (allowed.indexOf(text.charAt(i)) < 0) {
                throw new IllegalArgumentException(quoted(text) + " is not " + form
                        + " as the kernel prints it: character " + (i + 1) + " is not one of " + allowed);
            }
        }
        return switch (kind) {
            case IRQ, NAPI_THREAD -> CpuSet.parse(text);
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
            case IRQ, NAPI_THREAD -> cpus.toString();
            case XPS -> {
                int firstGroupBits = maskBits % 32 == 0 ? 32 : maskBits % 32;
                yield cpus.toHexMask(maskBits).substring(8 - (firstGroupBits + 3) / 4);
            }
        };
    }
}
