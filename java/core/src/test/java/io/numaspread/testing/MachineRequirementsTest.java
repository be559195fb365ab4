// SPDX-License-Identifier: Apache-2.0
package io.numaspread.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;

class MachineRequirementsTest {
    @Test
    void aTestWhoseNeedsAreMetRuns() {
        assertFalse(MachineRequirements.decide(Set.of(Need.ROOT, Need.SECOND_CPU), need -> true, false)
                .isDisabled());
        assertFalse(MachineRequirements.decide(Set.of(), need -> false, false).isDisabled());
    }

    @Test
    void aMissingNeedSkipsTheTestNamingWhatIsMissing() {
        ConditionEvaluationResult result =
                MachineRequirements.decide(Set.of(Need.ROOT, Need.LIVE_NIC), need -> need == Need.LIVE_NIC, false);
        assertTrue(result.isDisabled());
        assertEquals(
                "needs root (scripts/test, as root, runs it)",
                result.getReason().orElseThrow());
    }

    @Test
    void whenEveryTestMustRunNothingIsSkipped() {
        ConditionEvaluationResult result = MachineRequirements.decide(Set.of(Need.ROOT), need -> false, true);
        assertFalse(result.isDisabled());
        assertTrue(
                result.getReason().orElseThrow().contains("running without root"),
                result.getReason().orElseThrow());
    }
}
