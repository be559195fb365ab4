// SPDX-License-Identifier: Apache-2.0
package io.numaspread.testing;

import io.numaspread.CpuSet;
import io.numaspread.irq.AffinityTransaction;
import io.numaspread.irq.Setting;
import io.numaspread.irq.Target;
import io.numaspread.kernel.InterfaceName;
import io.numaspread.kernel.KernelFiles;
import io.numaspread.kernel.KernelPaths;
import io.numaspread.kernel.SysfsTree;
import io.numaspread.nativeaccess.BackendUnavailableException;
import io.numaspread.nativeaccess.Backends;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Runs the apply engine on the live kernel for IRQs that are not a NIC's, which the CLI never touches: the
 * guest checks use it on virtio-blk's kernel-managed queue vectors (scripts/vm-checks-managed).
 *
 * <p>{@code apply STATE IRQ:NAME:CPULIST...} prints "IRQ STATUS" per IRQ; {@code restore STATE} prints the same
 * for the restore.
 */
public final class ApplierProbe {
    private ApplierProbe() {}

    /** Writes through the live backend's files, as the CLI does: a managed IRQ's EIO is known by its errno. */
    public static void main(String[] args) throws BackendUnavailableException {
        KernelFiles files = Backends.live().backend().kernelFiles();
        AffinityTransaction applier = new AffinityTransaction(
                KernelPaths.LIVE, files, SysfsTree.live().maskBits());
        Path state = Path.of(args[1]);
        InterfaceName owner = new InterfaceName("probe");
        List<AffinityTransaction.Result> results = switch (args[0]) {
            case "apply" -> applier.apply(owner, settings(List.of(args).subList(2, args.length)), state, false);
            case "restore" -> applier.restore(state, Optional.of(owner));
            default -> throw new IllegalArgumentException("expected apply or restore, not " + args[0]);
        };
        results.forEach(result -> System.out.println(result.target().number() + " " + result.status()));
    }

    private static List<Setting> settings(List<String> specs) {
        List<Setting> settings = new ArrayList<>();
        for (String spec : specs) {
            String[] parts = spec.split(":", 3);
            settings.add(new Setting(Target.irq(Integer.parseInt(parts[0]), parts[1]), CpuSet.parse(parts[2])));
        }
        return settings;
    }
}
