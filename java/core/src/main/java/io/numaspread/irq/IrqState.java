// SPDX-License-Identifier: Apache-2.0
package io.numaspread.irq;

import io.numaspread.CpuSet;
import io.numaspread.NumaspreadException;
import io.numaspread.kernel.KernelPaths;
import io.numaspread.kernel.KernelText;
import io.numaspread.nic.InterruptTable;
import java.util.Collections;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * An IRQ as the kernel shows it now.
 *
 * @param affinity {@code smp_affinity_list}: where it may be delivered
 * @param effective {@code effective_affinity_list}: where it is delivered; it follows {@code affinity} only at
 *     the next interrupt, and some architectures do not have the file
 * @param counts the interrupts taken per CPU, from {@code /proc/interrupts}
 */
public record IrqState(int irq, CpuSet affinity, Optional<CpuSet> effective, Map<Integer, Long> counts) {
    public IrqState {
        counts = Collections.unmodifiableMap(new TreeMap<>(counts));
    }

    /**
     * @throws NumaspreadException (bad input) naming the file that is missing or malformed
     */
    public static IrqState read(KernelPaths paths, InterruptTable interrupts, int irq) {
        CpuSet affinity = KernelText.readOptional(paths.smpAffinityList(irq))
                .map(text -> KernelText.parseCpuList(paths.smpAffinityList(irq), text))
                .orElseThrow(() -> NumaspreadException.badInput("missing file " + paths.smpAffinityList(irq)));
        Optional<CpuSet> effective = KernelText.readOptional(paths.effectiveAffinityList(irq))
                .map(text -> KernelText.parseCpuList(paths.effectiveAffinityList(irq), text));
        return new IrqState(
                irq,
                affinity,
                effective,
                interrupts.line(irq).map(InterruptTable.Line::countsByCpu).orElse(Map.of()));
    }
}
