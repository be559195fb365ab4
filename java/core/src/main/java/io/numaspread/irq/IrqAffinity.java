// SPDX-License-Identifier: Apache-2.0
package io.numaspread.irq;

import io.numaspread.kernel.KernelFiles;
import io.numaspread.kernel.KernelPaths;
import io.numaspread.nic.InterruptTable;
import java.util.Optional;

/** IRQ affinity: {@code /proc/irq/N/smp_affinity_list}, root's to write. */
final class IrqAffinity extends KernelFileSetting {
    IrqAffinity(KernelPaths paths, KernelFiles files) {
        super(paths, files);
    }

    @Override
    public void probe(Target target) {
        SysfsProbe.probe(
                files,
                target.file(paths),
                "IRQ affinity needs root: the files under /proc/irq are root's,"
                        + " mode 0644 (uid 0, or CAP_DAC_OVERRIDE, in the host's user namespace)");
    }

    @Override
    public String where(Target target) {
        return target.file(paths).toString();
    }

    /**
     * An IRQ that {@code now} no longer holds ({@link IrqsNow#holds}) is gone: its number was freed and maybe
     * given to another device, which is left alone. When the recorded name now lives at another number, the driver
     * was reloaded and renumbered its IRQs; the message says so.
     */
    @Override
    public Optional<String> goneReason(Target target, IrqsNow irqs) {
        if (irqs.holds(target)) {
            return Optional.empty();
        }
        InterruptTable interrupts = irqs.interrupts();
        String now = interrupts.name(target.number());
        String was = now.isEmpty()
                ? "IRQ " + target.number() + " no longer exists"
                : "IRQ " + target.number() + " is now \"" + now + "\", another IRQ, left alone";
        Optional<Integer> renumbered = interrupts.numberOf(target.name());
        return Optional.of(renumbered
                .map(irq -> was + "; \"" + target.name() + "\" is now IRQ " + irq + ": the driver was reloaded"
                        + " and renumbered its IRQs, so the recorded value belonged to an IRQ that is gone")
                .orElse(was));
    }
}
