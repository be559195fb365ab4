// SPDX-License-Identifier: Apache-2.0
package io.numaspread.cli;

import io.numaspread.irq.IrqbalanceConflict;
import io.numaspread.irq.NapiFeatureFailure;
import io.numaspread.irq.NicPlacement;
import io.numaspread.irq.RestoreNeeded;
import io.numaspread.irq.StateFileUnusable;
import io.numaspread.kernel.KernelPaths;
import java.nio.file.Path;
import java.util.stream.Collectors;

/** The command lines a user is told to run, rendered from the values core returns. */
final class CommandLines {
    private CommandLines() {}

    /** The command that puts an apply's previous values back, with the stand-in roots when the tree is not live. */
    static String undo(NicPlacement.Outcome outcome) {
        return outcome.defaultStateFile()
                ? "numaspread restore --nic " + outcome.iface() + rootOptions(outcome.paths())
                : restore(outcome.paths(), outcome.stateFile());
    }

    /**
     * A failure as the command line says it: core's failures state the problem, and the ones with a way out that
     * takes a command or an option of this CLI (a restore, irqbalance's service and options, {@code --force},
     * {@code --state}) get it named here, as do the NAPI features' failures, by the option that asked for them.
     */
    static String words(Exception failure) {
        if (failure instanceof RestoreNeeded needed) {
            return needed.problem() + ": run " + restore(needed.paths(), needed.stateFile()) + needed.then();
        }
        if (failure instanceof IrqbalanceConflict conflict) {
            String banned =
                    conflict.irqs().stream().map(irq -> "--banirq=" + irq).collect(Collectors.joining(" "));
            return conflict.getMessage() + ": stop it (systemctl stop irqbalance), or keep it off these IRQs"
                    + " (IRQBALANCE_ARGS=\"" + banned + "\" in /etc/default/irqbalance, and IRQBALANCE_BANNED_CPULIST"
                    + " for the planned CPUs to keep other IRQs off them), or pass --force";
        }
        if (failure instanceof StateFileUnusable unusable) {
            return unusable.getMessage() + " (choose another with --state FILE)";
        }
        if (failure instanceof NapiFeatureFailure failed) {
            return option(failed.feature()) + ": " + failed.getMessage();
        }
        return failure.getMessage() == null ? failure.getClass().getName() : failure.getMessage();
    }

    /** The option that asks for {@code feature}. */
    static String option(NapiFeatureFailure.Feature feature) {
        return switch (feature) {
            case NAPI_THREADS -> "--napi-threads";
            case BUSY_POLL -> "--poll-queues";
            case IRQ_SUSPENSION -> "--irq-suspend";
            case POLL_SCHEDULING -> "--poll-sched";
        };
    }

    /**
     * The command that restores {@code stateFile}, repeating the stand-in roots when they are not the live
     * kernel's, so that running it as printed never writes a copy's values to the live {@code /proc/irq}.
     */
    static String restore(KernelPaths paths, Path stateFile) {
        return "numaspread restore --state " + shellWord(stateFile.toString()) + rootOptions(paths);
    }

    /**
     * {@code " --sysfs-root S --proc-root P"}, or nothing for the live kernel; {@code " --proc-irq D"} when its
     * /proc/irq is mounted elsewhere.
     */
    static String rootOptions(KernelPaths paths) {
        if (!paths.isLive()) {
            return " --sysfs-root " + shellWord(paths.sysfsRoot().toString()) + " --proc-root "
                    + shellWord(paths.procRoot().toString());
        }
        return paths.equals(KernelPaths.LIVE)
                ? ""
                : " --proc-irq " + shellWord(paths.irqRoot().toString());
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
