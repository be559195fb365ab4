// SPDX-License-Identifier: Apache-2.0
package io.numaspread.cli;

import io.numaspread.testing.StandInNicTest;
import java.util.ArrayList;
import java.util.List;

/** {@link StandInNicTest} for the commands: they read and write the stand-in trees instead of the machine's. */
abstract class StandInCliTest extends StandInNicTest {
    /** {@code command} on the stand-in trees ({@code --sysfs-root}, {@code --proc-root}), then {@code more}. */
    protected final String[] args(String command, String... more) {
        List<String> args =
                new ArrayList<>(List.of(command, "--sysfs-root", sys.toString(), "--proc-root", proc.toString()));
        args.addAll(List.of(more));
        return args.toArray(String[]::new);
    }

    /** {@link #args}, with the stand-in's state file ({@code --state}) for the commands that keep one. */
    protected final String[] withState(String command, String... more) {
        List<String> args = new ArrayList<>(List.of("--state", state.toString()));
        args.addAll(List.of(more));
        return args(command, args.toArray(String[]::new));
    }
}
