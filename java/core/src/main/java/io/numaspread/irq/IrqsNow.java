// SPDX-License-Identifier: Apache-2.0
package io.numaspread.irq;

import static java.util.stream.Collectors.toUnmodifiableSet;

import io.numaspread.kernel.InterfaceName;
import io.numaspread.kernel.KernelPaths;
import io.numaspread.nic.InterruptTable;
import io.numaspread.nic.NicDiscovery;
import java.util.Set;

/**
 * A NIC's IRQs as the kernel shows them when recorded values are put back: the names in {@code /proc/interrupts},
 * and the idle vectors, those the NIC's device holds without a handler. A closed NIC's are idle: down, or just
 * released by a bond, which closes the member it lets go. The device keeps their numbers, and the affinity they
 * had when it opens again (the kernel does not reset a value userspace set); but Linux 7.3 on x86 without
 * interrupt remapping takes a write to an idle vector's {@code smp_affinity_list} and keeps the old value, so a
 * closed NIC's values go back once it opens. A vector freed for good (driver unbound, reset or reloaded) leaves
 * {@code msi_irqs} with its handler.
 *
 * @param idleVectors the NIC's vectors ({@code msi_irqs}) that have no name in {@code /proc/interrupts} now
 */
public record IrqsNow(InterruptTable interrupts, Set<Integer> idleVectors) {
    public IrqsNow {
        idleVectors = Set.copyOf(idleVectors);
    }

    public static IrqsNow read(KernelPaths paths, InterfaceName iface) {
        InterruptTable interrupts = InterruptTable.read(paths);
        return new IrqsNow(
                interrupts,
                NicDiscovery.allocatedVectors(iface, paths).stream()
                        .filter(irq -> interrupts.name(irq).isEmpty())
                        .collect(toUnmodifiableSet()));
    }

    /**
     * Whether the IRQ {@code target} recorded is still there to take its value back: its number carries the
     * recorded name, or it is one of the NIC's idle vectors and no other IRQ carries the name (a driver reloaded
     * while the NIC was open would have renumbered it). Anything else was freed, and its number may be another
     * device's now.
     */
    public boolean holds(Target target) {
        return interrupts.name(target.number()).equals(target.name()) || idle(target);
    }

    /** Whether the IRQ {@code target} recorded is one of the NIC's idle vectors now, its name nowhere else. */
    public boolean idle(Target target) {
        return target.kind() == Target.Kind.IRQ
                && idleVectors.contains(target.number())
                && interrupts.numberOf(target.name()).isEmpty();
    }
}
