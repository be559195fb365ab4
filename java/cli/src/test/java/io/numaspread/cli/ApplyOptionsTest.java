// SPDX-License-Identifier: Apache-2.0
package io.numaspread.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.numaspread.irq.PlacementOptions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import picocli.CommandLine;

/** {@code watch} applies as {@code apply} does: the same words give the same placement, defaults included. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class ApplyOptionsTest {
    @Test
    void applyAndWatchParseTheSameWordsIntoTheSamePlacement() {
        for (List<String> words : List.of(
                List.<String>of(),
                List.of("--no-xps"),
                List.of("--xps"),
                List.of("--force"),
                List.of("--napi-threads", "--no-xps"),
                List.of("--rps-off"))) {
            assertEquals(placement("apply", words), placement("watch", words), words.toString());
        }
    }

    /** The flags' defaults are core's, which the agent's irqs=apply uses too: XPS on unless told not to. */
    @Test
    void bothAlignXpsUnlessToldNotTo() {
        assertEquals(PlacementOptions.DEFAULTS, placement("apply", List.of()));
        assertEquals(PlacementOptions.DEFAULTS, placement("watch", List.of()));
        assertEquals(new PlacementOptions(false, false, false), placement("watch", List.of("--no-xps")));
        assertEquals(new PlacementOptions(true, true, true), placement("apply", List.of("--force", "--napi-threads")));
        assertEquals(new PlacementOptions(false, true, false, true), placement("watch", List.of("--rps-off")));
    }

    private static PlacementOptions placement(String command, List<String> words) {
        List<String> args = new ArrayList<>(List.of(command, "--nic", "eth0"));
        args.addAll(words);
        CommandLine.ParseResult parsed = Main.commandLine(args.toArray(String[]::new), CommandLine.defaultFactory())
                .parseArgs(args.toArray(String[]::new));
        Object parsedCommand = parsed.subcommand().commandSpec().userObject();
        ApplyOptions options = parsedCommand instanceof ApplyCommand apply
                ? apply.applyOptions
                : ((WatchCommand) parsedCommand).applyOptions;
        return options.placement();
    }
}
