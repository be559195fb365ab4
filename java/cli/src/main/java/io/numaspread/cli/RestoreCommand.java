package io.numaspread.cli;

import io.numaspread.irq.AffinityTransaction;
import io.numaspread.irq.StateFile;
import io.numaspread.kernel.InterfaceName;
import io.numaspread.kernel.KernelPaths;
import io.numaspread.kernel.SysfsTree;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(name = "restore", mixinStandardHelpOptions = true,
        description = {"Put back exactly what 'apply' recorded in the state file (also after a crash or a kill in"
                + " the middle of an apply), verify it, and remove the state file."},
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {
            "0:everything is back",
            "2:bad input (no state file, wrong interface)",
            "4:some values could not be put back (named); the state file is kept for another try"})
final class RestoreCommand implements Runnable {
    @Spec
    CommandSpec spec;

    @Option(names = "--nic", paramLabel = "IFACE", description = "Restore this interface (its default state file,"
            + " and a check that --state belongs to it).")
    String nic;

    @Option(names = "--state", paramLabel = "FILE", description = "The state file (default /run/numaspread/IFACE.json).")
    Path stateFile;

    @Mixin
    MachineOptions machine = new MachineOptions();

    @Mixin
    ProcRootOptions proc = new ProcRootOptions();

    @Override
    public void run() {
        if (nic == null && stateFile == null) {
            throw new CliException(CliException.BAD_INPUT, "restore needs --nic IFACE or --state FILE");
        }
        Optional<InterfaceName> iface = Optional.ofNullable(nic).map(InterfaceName::new);
        Path state = stateFile != null ? stateFile : StateFile.defaultPath(iface.get());
        KernelPaths paths = proc.writablePaths(machine);
        AffinityTransaction applier = new AffinityTransaction(paths, machine.kernelFiles(),
                SysfsTree.at(paths.sysfsRoot()).maskBits());
        List<AffinityTransaction.Result> results = applier.restore(state, iface);
        PrintWriter out = spec.commandLine().getOut();
        ApplyCommand.printResults(out, results);
        out.println("restored " + results.size() + " value" + (results.size() == 1 ? "" : "s") + " from " + state
                + "; removed it");
        out.flush();
    }
}
