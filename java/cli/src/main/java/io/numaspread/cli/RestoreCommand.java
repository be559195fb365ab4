// SPDX-License-Identifier: Apache-2.0
package io.numaspread.cli;

import io.numaspread.NumaspreadException;
import io.numaspread.irq.AffinityTransaction;
import io.numaspread.irq.NapiSettingsRecord;
import io.numaspread.irq.NapiThreadSchedRecord;
import io.numaspread.irq.NapiThreadedRecord;
import io.numaspread.irq.NapiThreads;
import io.numaspread.irq.NicPlacement;
import io.numaspread.irq.RpsRecord;
import io.numaspread.irq.StateFile;
import io.numaspread.irq.Target;
import io.numaspread.irq.ThreadedRecord;
import io.numaspread.kernel.InterfaceName;
import io.numaspread.kernel.KernelPaths;
import io.numaspread.nic.LowerDevices;
import io.numaspread.nic.PerNapiThreaded;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(
        name = "restore",
        mixinStandardHelpOptions = true,
        description = {
            "Put back exactly what 'apply' recorded in the state file (also after a crash or a kill in"
                    + " the middle of an apply), verify it, and remove the state file. --all does so for every NIC"
                    + " with a state file in the state directory."
        },
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {
            "0:everything that still exists is back (IRQs and queues that are gone are named); or, with"
                    + " --if-present, there was no state file",
            "2:bad input (no state file, wrong interface, a malformed state file or value); nothing was written",
            "3:refused for safety (no privilege, a state directory others can write); nothing was written",
            "4:some values could not be put back (named); the state file is kept for another try (with --all: the"
                    + " code of the first NIC that failed, after every NIC was tried)"
        })
final class RestoreCommand implements Runnable {
    @Spec
    CommandSpec spec;

    @Mixin
    NicOption.RestoreTarget nic = new NicOption.RestoreTarget();

    @Mixin
    StateFileOption stateFile = new StateFileOption();

    @Option(
            names = "--if-present",
            description = "No state file is no error: say so and exit 0. For hooks that run whether or not"
                    + " anything was applied (a preStop, a unit's ExecStop); by hand, a mistyped --state should fail.")
    boolean ifPresent;

    @Option(
            names = "--all",
            description = "Restore every NIC that has a state file in the state directory (/run/numaspread, or"
                    + " PROC_ROOT/numaspread with --proc-root), each in turn, reporting each; a NIC that fails is"
                    + " named and the others are still restored.")
    boolean all;

    @Mixin
    MachineOptions machine = new MachineOptions();

    @Mixin
    ProcRootOptions proc = new ProcRootOptions();

    @Override
    public void run() {
        if (all && (nic.nic != null || stateFile.given().isPresent())) {
            throw NumaspreadException.badInput("--all restores every state file of the state directory: leave out "
                    + (nic.nic != null
                            ? "--nic " + nic.nic
                            : "--state " + stateFile.given().get()));
        }
        if (!all && nic.nic == null && stateFile.given().isEmpty()) {
            throw NumaspreadException.badInput("restore needs --nic IFACE, --state FILE or --all");
        }
        KernelPaths paths = proc.writablePaths(machine);
        PrintWriter out = spec.commandLine().getOut();
        Restorer applier = restorer(paths);
        if (all) {
            restoreAll(out, paths, applier);
            return;
        }
        Optional<InterfaceName> iface = nic.name();
        if (iface.isPresent() && stateFile.given().isEmpty() && LowerDevices.isUpper(iface.get(), paths)) {
            // A bond or VLAN was applied as its members, each with its own state file.
            restoreEach(
                    out, paths, applier, LowerDevices.nicsUnder(List.of(iface.get()), paths), "--nic " + iface.get());
            return;
        }
        Path state = stateFile.given().orElseGet(() -> StateFile.defaultPath(paths, iface.get()));
        if (ifPresent && StateFile.read(state).isEmpty()) {
            out.println("no state file " + state + ": nothing to restore");
            out.flush();
            return;
        }
        restore(out, paths, applier, state, iface);
        out.flush();
    }

    /** Every NIC that has a state file in the default state directory ({@link #restoreEach}). */
    private void restoreAll(PrintWriter out, KernelPaths paths, Restorer applier) {
        Path directory = StateFile.defaultDirectory(paths);
        List<InterfaceName> recorded = StateFile.interfacesIn(directory);
        if (recorded.isEmpty()) {
            out.println("no state file in " + directory + ": nothing to restore");
            out.flush();
            return;
        }
        restoreEach(out, paths, applier, recorded, "--all");
    }

    /**
     * Each of {@code nics} from its default state file, one after the other, whatever became of the others; then a
     * failure naming those that failed, if any did ({@code asked}: what the command line asked for).
     */
    private void restoreEach(
            PrintWriter out, KernelPaths paths, Restorer applier, List<InterfaceName> nics, String asked) {
        Map<InterfaceName, NumaspreadException> failed = new LinkedHashMap<>();
        for (InterfaceName iface : nics) {
            out.println(iface + ":");
            try {
                restore(out, paths, applier, StateFile.defaultPath(paths, iface), Optional.of(iface));
            } catch (NumaspreadException e) {
                failed.put(iface, e);
                out.println("not restored: " + CommandLines.words(e));
            }
            out.println();
        }
        out.flush();
        if (!failed.isEmpty()) {
            throw new NumaspreadException(
                    failed.values().iterator().next().kind(),
                    "restore " + asked + ": " + failed.size() + " of " + nics.size() + " NICs not restored: "
                            + failed.entrySet().stream()
                                    .map(entry -> entry.getKey() + " (" + CommandLines.words(entry.getValue()) + ")")
                                    .collect(Collectors.joining("; ")));
        }
    }

    /** The placement that puts a state file's values back on these trees, and how it finds the NAPI threads. */
    private record Restorer(NicPlacement placement, NapiThreads threads) {
        List<AffinityTransaction.Result> restore(Path state, Optional<InterfaceName> iface) {
            return placement.restore(state, iface, threads);
        }
    }

    private Restorer restorer(KernelPaths paths) {
        // NAPI threads are found again by name: a re-created thread has a new PID.
        // Each NAPI's own threaded is the running kernel's (netdev netlink), never a stand-in tree's.
        PerNapiThreaded perNapi =
                paths.isLive() ? PerNapiThreaded.live(paths, machine.backend()) : PerNapiThreaded.NONE;
        NapiThreads threads = new NapiThreads(
                paths,
                machine.kernelFiles(),
                machine.threadAffinity(paths),
                Map.of(),
                perNapi,
                machine.threadScheduler(paths));
        // NAPI busy-poll settings (napi_settings: IRQ suspension) are the running kernel's too; over a stand-in
        // tree a state file recording them is refused.
        return new Restorer(
                machine.placement(paths, machine.kernelFiles(), NicPlacement.StateLocation.DEFAULT), threads);
    }

    /** Restores one state file and says what was put back. */
    private static void restore(
            PrintWriter out, KernelPaths paths, Restorer applier, Path state, Optional<InterfaceName> iface) {
        Optional<StateFile.State> recorded = StateFile.read(state);
        List<AffinityTransaction.Result> results = applier.restore(state, iface);
        ApplyCommand.printResults(out, results);
        recorded.ifPresent(r -> r.record(ThreadedRecord.class)
                .before()
                .ifPresent(threaded ->
                        out.println(paths.netDevice(r.iface()).resolve("threaded") + " put back to " + threaded)));
        recorded.filter(r -> !r.record(RpsRecord.class).isEmpty())
                .ifPresent(r -> out.println("rps_cpus put back: "
                        + r.record(RpsRecord.class).before().entrySet().stream()
                                .map(queue -> "rx-" + queue.getKey() + " to " + queue.getValue())
                                .collect(Collectors.joining(", "))));
        recorded.filter(r -> !r.record(NapiThreadedRecord.class).before().isEmpty())
                .ifPresent(r -> out.println("threaded NAPI put back NAPI by NAPI (netdev netlink napi-set): "
                        + r.record(NapiThreadedRecord.class).before().entrySet().stream()
                                .map(napi -> "NAPI " + napi.getKey() + " to " + napi.getValue())
                                .collect(Collectors.joining(", "))));
        recorded.filter(r -> !r.record(NapiThreadSchedRecord.class).before().isEmpty())
                .ifPresent(r -> out.println("busy-poll threads' scheduling class put back (sched_setscheduler): "
                        + r.record(NapiThreadSchedRecord.class).before().entrySet().stream()
                                .map(napi -> Target.napiThreadName(r.iface(), napi.getKey()) + " to "
                                        + ApplyCommand.schedulingWords(napi.getValue()))
                                .collect(Collectors.joining(", "))));
        recorded.filter(r -> !r.record(NapiSettingsRecord.class).before().isEmpty())
                .ifPresent(r -> out.println("NAPI settings put back (netdev netlink napi-set): "
                        + r.record(NapiSettingsRecord.class).before().entrySet().stream()
                                .map(napi -> "NAPI " + napi.getKey() + " to defer-hard-irqs "
                                        + napi.getValue().deferHardIrqs() + ", gro-flush-timeout "
                                        + napi.getValue().groFlushTimeoutNanos() + " ns, irq-suspend-timeout "
                                        + napi.getValue().irqSuspendTimeoutNanos() + " ns")
                                .collect(Collectors.joining("; "))));
        long gone = results.stream()
                .filter(r -> r.status() == AffinityTransaction.Status.GONE)
                .count();
        long back = results.size() - gone;
        out.println("restored " + back + " value" + (back == 1 ? "" : "s") + " from " + state
                + (gone == 0
                        ? ""
                        : "; " + gone + " recorded IRQ" + (gone == 1 ? " or queue is" : "s or queues are")
                                + " gone (named above), nothing to put back there")
                + "; removed it");
    }
}
