// SPDX-License-Identifier: Apache-2.0
package io.numaspread.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import io.numaspread.irq.NapiFeatureFailure;
import io.numaspread.irq.NicPlacement;
import io.numaspread.kernel.InterfaceName;
import io.numaspread.kernel.KernelPaths;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import picocli.CommandLine;

/** The undo commands printed for the values core returns: run as printed, they restore what was written. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class CommandLinesTest {
    private static final KernelPaths ODD = new KernelPaths(Path.of("/tmp/fake proc"), Path.of("/tmp/it's/sys"));

    @Test
    void theUndoCommandRepeatsStandInRootsAsShellWords() {
        assertEquals(
                "numaspread restore --state '/run/a b.json' --sysfs-root '/tmp/it'\\''s/sys' --proc-root"
                        + " '/tmp/fake proc'",
                CommandLines.restore(ODD, Path.of("/run/a b.json")));
        assertEquals(
                "numaspread restore --state /run/numaspread/eth0.json",
                CommandLines.restore(KernelPaths.LIVE, Path.of("/run/numaspread/eth0.json")));
    }

    @Test
    void anApplyToTheDefaultStateFileIsUndoneByTheInterfacesName() {
        assertEquals(
                "numaspread restore --nic eth0 --sysfs-root '/tmp/it'\\''s/sys' --proc-root '/tmp/fake proc'",
                CommandLines.undo(outcome(ODD, Path.of("/tmp/fake proc/numaspread/eth0.json"), true)));
        assertEquals(
                "numaspread restore --nic eth0",
                CommandLines.undo(outcome(KernelPaths.LIVE, Path.of("/run/numaspread/eth0.json"), true)));
    }

    @Test
    void anApplyToAGivenStateFileIsUndoneByThatFile() {
        assertEquals(
                "numaspread restore --state /var/tmp/eth0.json",
                CommandLines.undo(outcome(KernelPaths.LIVE, Path.of("/var/tmp/eth0.json"), false)));
    }

    /** A NAPI feature's failure is worded with the option of apply that asks for the feature. */
    @Test
    void eachNapiFeatureIsNamedByAnOptionOfApply() {
        CommandLine.Model.CommandSpec apply = new CommandLine(new ApplyCommand()).getCommandSpec();
        for (NapiFeatureFailure.Feature feature : NapiFeatureFailure.Feature.values()) {
            String option = CommandLines.option(feature);
            assertNotNull(apply.findOption(option), feature + ": apply has no " + option);
        }
    }

    private static NicPlacement.Outcome outcome(KernelPaths paths, Path stateFile, boolean defaultStateFile) {
        return new NicPlacement.Outcome(
                new InterfaceName("eth0"),
                paths,
                stateFile,
                defaultStateFile,
                List.of(),
                List.of(),
                Optional.empty(),
                Optional.empty());
    }
}
