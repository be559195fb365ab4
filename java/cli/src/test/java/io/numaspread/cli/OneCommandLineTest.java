// SPDX-License-Identifier: Apache-2.0
package io.numaspread.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import picocli.CommandLine;

/**
 * A run that names a subcommand gets that one alone under {@link Main.OneCommand}: the same usage and help as in
 * {@code Main}'s full model (which the man pages come from), the same parse, and no other command's model.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class OneCommandLineTest {
    private static final Map<String, CommandLine> FULL = new CommandLine(new Main()).getSubcommands();

    @Test
    void aNamedSubcommandIsTheOnlyOneAndReadsAsInTheFullModel() {
        assertEquals(9, FULL.size(), "Main's subcommands");
        for (Map.Entry<String, CommandLine> subcommand : FULL.entrySet()) {
            String name = subcommand.getKey();
            CommandLine one = Main.commandLine(new String[] {name, "--help"}, CommandLine.defaultFactory());
            assertEquals(List.of(name), List.copyOf(one.getSubcommands().keySet()), name);
            assertEquals(
                    subcommand.getValue().getUsageMessage(),
                    one.getSubcommands().get(name).getUsageMessage(),
                    name + "'s help");
            assertEquals(
                    subcommand.getValue().getCommandSpec().qualifiedName(),
                    one.getSubcommands().get(name).getCommandSpec().qualifiedName(),
                    name + "'s qualified name");
        }
    }

    @Test
    void noSubcommandOrAnUnknownOneGetsTheFullModel() {
        for (String[] args : List.of(new String[0], new String[] {"--help"}, new String[] {"aply"})) {
            CommandLine commandLine = Main.commandLine(args, CommandLine.defaultFactory());
            assertEquals(FULL.keySet(), commandLine.getSubcommands().keySet(), String.join(" ", args));
            assertEquals(new CommandLine(new Main()).getUsageMessage(), commandLine.getUsageMessage());
        }
    }
}
