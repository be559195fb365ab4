// SPDX-License-Identifier: Apache-2.0
package io.numaspread.plan;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.numaspread.CpuSet;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The plan flags applied to a NIC's request: what a flag does not choose stays as the request has it. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class PlanFlagsTest {
    private static final PlanRequest NIC =
            new PlanRequest(List.of(1), 4, Mode.CPU, Purpose.IRQS, Optional.empty(), CpuSet.EMPTY, false);

    @Test
    void noFlagsKeepTheRequestsModeAndCpus() {
        PlanFlags none = new PlanFlags(Optional.empty(), Policy.KERNEL, false, Optional.empty(), Optional.empty());
        assertEquals(NIC, none.applyTo(NIC));
    }

    @Test
    void eachFlagReplacesItsPart() {
        PlanFlags flags = new PlanFlags(
                Optional.of(Mode.SIBLINGS),
                Policy.LOCAL,
                true,
                Optional.of(CpuSet.parse("0-7")),
                Optional.of(CpuSet.parse("2-3")));
        assertEquals(
                new PlanRequest(
                        List.of(1),
                        4,
                        Mode.SIBLINGS,
                        Purpose.IRQS,
                        Optional.of(CpuSet.parse("0-7")),
                        CpuSet.parse("2-3"),
                        true,
                        Policy.LOCAL),
                flags.applyTo(NIC));
    }
}
