// SPDX-License-Identifier: Apache-2.0
package io.numaspread.cli;

import io.numaspread.kernel.InterfaceName;
import io.numaspread.kernel.KernelPaths;
import io.numaspread.nic.LowerDevices;
import java.util.List;
import java.util.Optional;
import picocli.CommandLine.Mixin;

/** Which NICs (one at least, or {@code --all}), where the kernel's files are, and how their queues are spread. */
final class NicOptions extends NicPlanOptions {
    @Mixin
    NicOption.Chosen nics = new NicOption.Chosen();

    /** Each chosen NIC with its share of their joint plan. */
    List<NicPlan> plans() {
        return plans(nics);
    }

    /** For commands that write: see {@link ProcRootOptions#writablePaths}. */
    List<NicPlan> plansToWrite() {
        return plansToWrite(nics);
    }

    /**
     * The one {@code --nic} given when it is an upper device (it has {@code lower_*} links: a bond, a VLAN, a
     * macvlan), resolved to the NICs under it; empty for a NIC, several, or {@code --all}, which keep their own
     * errors.
     */
    Optional<LowerDevices> upperDevice() {
        if (nics.all || nics.nics.size() != 1) {
            return Optional.empty();
        }
        InterfaceName name = nics.names().get(0);
        KernelPaths paths = proc.paths(machine);
        if (!LowerDevices.isUpper(name, paths)) {
            return Optional.empty();
        }
        return Optional.of(LowerDevices.resolve(name, paths));
    }
}
