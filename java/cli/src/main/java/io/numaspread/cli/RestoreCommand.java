// SPDX-License-Identifier: Apache-2.0
package io.numaspread.cli;

import io.numaspread.NumaspreadException;
import io.numaspread.irq.AffinityTransaction;
import io.numaspread.irq.NapiThreads;
import io.numaspread.irq.StateFile;
import io.numaspread.irq.Target;
import io.numaspread.kernel.InterfaceName;
import io.numaspread.kernel.KernelPaths;
import io.numaspread.kernel.SysfsTree;
import io.numaspread.nic.PerNapiThreaded;
import java.io.PrintWriter;
import java.nio.file.Path;
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
                    + " the middle of an apply), verify it, and remove the state file."
        },
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {
            "0:everything that still exists is back (IRQs and queues that are gone are named); or, with"
                    + " --if-present, there was no state file",
            "2:bad input (no state file, wrong interface, a malformed state file or value); nothing was written",
            "3:refused for safety (no privilege, a state directory others can write); nothing was written",
            "4:some values could not be put back (named); the state file is kept for another try"
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
            description = "No state file is no error: say so and exit 0. For hooks that"
                    + " run whether or not anything was applied (a preStop, a unit's ExecStop); by hand, a mistyped --state"
                    + " should fail.")
    boolean ifPresent;

    @Mixin
    MachineOptions machine = new MachineOptions();

    @Mixin
    ProcRootOptions proc = new ProcRootOptions();

    @Override
    public void run() {
        if (nic.nic == null && stateFile.given().isEmpty()) {
            throw NumaspreadException.badInput("restore needs --nic IFACE or --state FILE");
        }
        Optional<InterfaceName> iface = nic.name();
        KernelPaths paths = proc.writablePaths(machine);
        Path state = stateFile.given().orElseGet(() -> StateFile.defaultPath(paths, iface.get()));
        PrintWriter out = spec.commandLine().getOut();
        if (ifPresent && StateFile.read(state).isEmpty()) {
            out.println("no state file " + state + ": nothing to restore");
            out.flush();
            return;
        }
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
        int maskBits = SysfsTree.at(paths.sysfsRoot()).maskBits();
        AffinityTransaction applier = new AffinityTransaction(
                paths, machine.kernelFiles(), maskBits, threads, machine.napiSettingsRestore(paths));
        Optional<StateFile.State> recorded = StateFile.read(state);
        List<AffinityTransaction.Result> results = applier.restore(state, iface);
        ApplyCommand.printResults(out, results);
        recorded.ifPresent(r -> r.threadedBefore()
                .ifPresent(threaded ->
                        out.println(paths.netDevice(r.iface()).resolve("threaded") + " put back to " + threaded)));
        recorded.filter(r -> !r.napiThreadedBefore().isEmpty())
                .ifPresent(r -> out.println("threaded NAPI put back NAPI by NAPI (netdev netlink napi-set): "
                        + r.napiThreadedBefore().entrySet().stream()
                                .map(napi -> "NAPI " + napi.getKey() + " to " + napi.getValue())
                                .collect(Collectors.joining(", "))));
        recorded.filter(r -> !r.napiThreadSchedBefore().isEmpty())
                .ifPresent(r -> out.println("busy-poll threads' scheduling class put back (sched_setscheduler): "
                        + r.napiThreadSchedBefore().entrySet().stream()
                                .map(napi -> Target.napiThreadName(r.iface(), napi.getKey()) + " to "
                                        + ApplyCommand.schedulingWords(napi.getValue()))
                                .collect(Collectors.joining(", "))));
        recorded.filter(r -> !r.napiSettingsBefore().isEmpty())
                .ifPresent(r -> out.println("NAPI settings put back (netdev netlink napi-set): "
                        + r.napiSettingsBefore().entrySet().stream()
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
        out.flush();
    }
}
