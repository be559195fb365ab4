package io.numaspread.irq;

import io.numaspread.CpuSet;
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
     * @throws IrqException (bad input) naming the file that is missing or malformed
     */
    public static IrqState read(KernelPaths paths, InterruptTable interrupts, int irq) {
        CpuSet affinity = NicDiscovery.readOptional(paths.smpAffinityList(irq))
                .map(text -> NicDiscovery.parseCpuList(paths.smpAffinityList(irq), text))
                .orElseThrow(() -> IrqException.badInput("missing file " + paths.smpAffinityList(irq)));
        Optional<CpuSet> effective = NicDiscovery.readOptional(paths.effectiveAffinityList(irq))
                .map(text -> NicDiscovery.parseCpuList(paths.effectiveAffinityList(irq), text));
        return new IrqState(irq, affinity, effective,
                interrupts.line(irq).map(InterruptTable.Line::countsByCpu).orElse(Map.of()));
    }
}
