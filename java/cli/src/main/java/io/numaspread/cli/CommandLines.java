// SPDX-License-Identifier: Apache-2.0
package io.numaspread.cli;

import io.numaspread.irq.NicPlacement;
import io.numaspread.irq.RestoreNeeded;
import io.numaspread.kernel.KernelPaths;
import java.nio.file.Path;

/** The command lines a user is told to run, rendered from the values core returns. */
final class CommandLines {
    private CommandLines() {}

    /** The command that puts an apply's previous values back, with the stand-in roots when the tree is not live. */
    static String undo(NicPlacement.Outcome outcome) {
        return outcome.defaultStateFile()
                ? "numaspread restore --nic " + outcome.iface() + rootOptions(outcome.paths())
                : restore(outcome.paths(), outcome.stateFile());
    }

    /** A failure whose remedy is a restore, naming the command that does it. */
    static String remedy(RestoreNeeded failure) {
        return failure.problem() + ": run " + restore(failure.paths(), failure.stateFile()) + failure.then();
    }

    /**
     * The command that restores {@code stateFile}, repeating the stand-in roots when they are not the live
     * kernel's, so that running it as printed never writes a copy's values to the live {@code /proc/irq}.
     */
    static String restore(KernelPaths paths, Path stateFile) {
        return "numaspread restore --state " + shellWord(stateFile.toString()) + rootOptions(paths);
    }

    /** {@code " --sysfs-root S --proc-root P"}, or nothing for the live kernel. */
    static String rootOptions(KernelPaths paths) {
        return paths.equals(KernelPaths.LIVE)
                ? ""
                : " --sysfs-root " + shellWord(paths.sysfsRoot().toString()) + " --proc-root "
                        + shellWord(paths.procRoot().toString());
    }

    /** {@code word} as one shell word: as it is when it is plain, else in single quotes. */
    static String shellWord(String word) {
        return !word.isEmpty()
                        && word.chars()
                                .allMatch(c -> Character.isLetterOrDigit(c) && c < 128 || "_./:=@%+,-".indexOf(c) >= 0)
                ? word
                : "'" + word.replace("'", "'\\''") + "'";
    }
}
