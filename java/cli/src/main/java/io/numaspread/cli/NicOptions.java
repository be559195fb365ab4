// SPDX-License-Identifier: Apache-2.0
package io.numaspread.cli;

import picocli.CommandLine.Mixin;

/** Which NIC (it is required), where the kernel's files are, and how its queues are spread. */
final class NicOptions extends NicPlanOptions {
    @Mixin
    NicOption.Required nic = new NicOption.Required();

    NicPlan plan() {
        return plan(nic.name());
    }

    /** For commands that write: see {@link ProcRootOptions#writablePaths}. */
    NicPlan planToWrite() {
        return planToWrite(nic.name());
    }
}
