// SPDX-License-Identifier: Apache-2.0
package io.numaspread.cli;

import java.util.List;
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
}
