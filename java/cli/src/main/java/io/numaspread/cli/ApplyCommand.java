// SPDX-License-Identifier: Apache-2.0
package io.numaspread.cli;

import io.numaspread.CpuSet;
import io.numaspread.irq.AffinityTransaction;
import io.numaspread.irq.NicPlacement;
import io.numaspread.irq.Target;
import io.numaspread.kernel.InterfaceName;
import io.numaspread.kernel.KernelFiles;
import io.numaspread.kernel.KernelText;
import io.numaspread.nic.Nic;
import io.numaspread.plan.PollPlan;
import java.io.PrintWriter;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.function.UnaryOperator;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(
        name = "apply",
        mixinStandardHelpOptions = true,
        description = {
            "Plan as 'plan --nic' does and write each queue IRQ's /proc/irq/N/smp_affinity_list, all or"
                    + " nothing: every write is read back, and any failure puts back every change already made.",
            "Before the first change the previous values are saved (write then rename) to the state file;"
                    + " 'numaspread restore' puts them back, also after a crash. A second apply keeps the original"
                    + " values. Kernel-managed IRQs are reported and left alone."
        },
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {
            "0:applied (or nothing to change, or --dry-run)",
            "2:bad input (interface, flag, file, stale state file); nothing was changed",
            "3:refused for safety (no privilege, read-only /proc, irqbalance running, --napi-threads on a kernel"
                    + " without threaded NAPI); nothing was changed",
            "4:a write failed part way; every change was rolled back"
        })
final class ApplyCommand implements Runnable {
    @Spec
    CommandSpec spec;

    @Mixin
    NicOptions nicOptions = new NicOptions();

    @Mixin
    ApplyOptions applyOptions = new ApplyOptions();

    @Option(names = "--dry-run", description = "Print what would change and change nothing.")
    boolean dryRun;

    @Mixin
    StateFileOption stateFile = new StateFileOption();

    @Mixin
    PollOptions polling = new PollOptions();

    /** The kernel's files as the writes see them: as they are, but in tests that fail or stop a write on purpose. */
    private final UnaryOperator<KernelFiles> kernelFiles;

    ApplyCommand() {
        this(UnaryOperator.identity());
    }

    ApplyCommand(UnaryOperator<KernelFiles> kernelFiles) {
        this.kernelFiles = kernelFiles;
    }

    @Override
    public void run() {
        PrintWriter out = spec.commandLine().getOut();
        NicOptions.NicPlan planned = nicOptions.planToWrite();
        Nic nic = planned.nic();
        Optional<PollPlan> poll =
                polling.plan(planned.topology(), planned.plan().request());
        // The IRQs stay off the poll cores (and their siblings when those are kept free).
        NicOptions.NicPlan nicPlan = poll.isEmpty()
                ? planned
                : new NicOptions.NicPlan(
                        planned.paths(),
                        planned.topology(),
                        nic,
                        PlanOptions.plan(
                                planned.topology(),
                                poll.get().avoidedBy(planned.plan().request())));
        nicPlan.report().printHeader(out);
        out.println();
        if (poll.isPresent()) {
            PlanCommand.printPoll(out, poll.get(), null);
            out.println();
        }
        KernelFiles files = kernelFiles.apply(nicOptions.machine.kernelFiles());
        NicPlacement placement = new NicPlacement(
                nicPlan.paths(),
                files,
                Optional.of(iface -> nicOptions.machine.napiAccess(iface, nicPlan.paths())),
                stateFile.given().map(NicPlacement.StateLocation::file).orElse(NicPlacement.StateLocation.DEFAULT));
        NicPlacement.Outcome outcome = placement.apply(
                nic,
                poll.map(p -> NicPlacement.Wanted.polled(nicPlan.plan(), p))
                        .orElseGet(() -> NicPlacement.Wanted.plan(nicPlan.plan())),
                new NicPlacement.Options(applyOptions.placement(), dryRun));
        printResults(out, outcome.results());
        out.println();
        outcome.notes().forEach(note -> out.println("note: " + note));
        // The busy-poll NAPIs have a line of their own, which says what restore puts back.
        outcome.threading()
                .map(threading -> new NicPlacement.Threading(
                        threading.way(),
                        threading.turnedOn().stream()
                                .filter(napi -> !threading.busyPolled().containsKey(napi))
                                .toList(),
                        threading.threadedFile(),
                        threading.switchedDevice()))
                .filter(threading -> poll.isEmpty() || !threading.turnedOn().isEmpty())
                .ifPresent(threading -> out.println("note: " + threadingLine(nic.name(), threading, dryRun)));
        outcome.threading()
                .filter(threading -> !threading.busyPolled().isEmpty())
                .ifPresent(threading -> out.println("note: " + busyPollLine(nic.name(), threading, dryRun)));
        LinkPolicyWords.lines(nic.name(), nicOptions.linkPolicies(nicPlan))
                .forEach(line -> out.println("note: " + line));
        if (dryRun) {
            String roots = CommandLines.rootOptions(nicPlan.paths());
            out.println("dry run: nothing was changed. To apply: numaspread apply --nic " + nic.name() + roots
                    + " (as root; undo with: " + CommandLines.undo(outcome) + ")");
        } else if (outcome.changed()) {
            NicReport after = nicPlan.report();
            after.printTable(out);
            after.printWarnings(out);
            out.println();
            out.println("applied and read back (effective_affinity_list follows at each IRQ's next interrupt);"
                    + " the previous values are in " + outcome.stateFile() + ". Undo with: "
                    + CommandLines.undo(outcome));
        } else {
            out.println("nothing to change");
        }
        out.flush();
    }

    /** How {@code --napi-threads} turned threaded NAPI on, in one line. */
    static String threadingLine(InterfaceName iface, NicPlacement.Threading threading, boolean dryRun) {
        if (threading.way() == NicPlacement.ThreadingWay.DEVICE) {
            String why = "this kernel's netdev netlink has no per-NAPI threaded (napi-set threaded, Linux 6.17 or"
                    + " later)";
            if (!threading.switchedDevice()) {
                return "threaded NAPI through " + threading.threadedFile() + ", already 1 for every NAPI of " + iface
                        + ": " + why;
            }
            return dryRun
                    ? "threaded NAPI through " + threading.threadedFile() + ", which is 0: apply would set it to 1,"
                            + " for every NAPI of " + iface + ", and pin the NAPI threads the kernel then starts: "
                            + why
                    : "threaded NAPI through " + threading.threadedFile() + ", which was 0 and is now 1 for every"
                            + " NAPI of " + iface + " (restore puts back 0): " + why;
        }
        if (threading.turnedOn().isEmpty()) {
            return "threaded NAPI per NAPI (netdev netlink): the planned NAPIs are threaded already";
        }
        String napis = threading.turnedOn().stream().map(String::valueOf).collect(Collectors.joining(", "));
        return dryRun
                ? "threaded NAPI per NAPI: would turn it on for NAPI " + napis + " with netdev netlink napi-set,"
                        + " the device's other NAPIs as they are"
                : "threaded NAPI per NAPI: turned on for NAPI " + napis + " with netdev netlink napi-set, the"
                        + " device's other NAPIs as they were; restore puts back 0";
    }

    /** Which NAPIs busy-poll, on which CPU, in one line. */
    static String busyPollLine(InterfaceName iface, NicPlacement.Threading threading, boolean dryRun) {
        String napis = threading.busyPolled().entrySet().stream()
                .map(napi -> "NAPI " + napi.getKey() + " (napi/" + iface + "-" + napi.getKey() + ") on CPU "
                        + napi.getValue())
                .collect(Collectors.joining(", "));
        return (dryRun ? "busy poll: would set threaded 2 (busy-poll) and pin " : "busy poll: threaded 2 (busy-poll), ")
                + napis
                + (dryRun ? "" : "; each thread spins its core; restore puts back the threaded it had");
    }

    static void printResults(PrintWriter out, List<AffinityTransaction.Result> results) {
        int width = results.stream()
                .mapToInt(r -> r.target().label().length())
                .max()
                .orElse(10);
        for (AffinityTransaction.Result result : results) {
            if (result.status() == AffinityTransaction.Status.GONE) {
                out.println(String.format(
                        "%-" + width + "s  recorded %s  gone (%s)",
                        result.target().label(),
                        result.planned(),
                        result.detail()));
                continue;
            }
            String before = result.before().isEmpty() ? "?" : describe(result.target(), result.before());
            String line = String.format(
                    Locale.ROOT,
                    "%-" + width + "s  %s -> %s  %s",
                    result.target().label(),
                    before,
                    result.planned(),
                    result.status().label());
            out.println(result.detail().isEmpty() ? line : line + " (" + result.detail() + ")");
        }
    }

    /** XPS masks are shown as cpulists beside the planned cpulist, so that the arrow compares like with like. */
    private static String describe(Target target, String raw) {
        try {
            CpuSet cpus = target.parse(raw);
            return target.kind() == Target.Kind.XPS ? cpus.toString() + " (" + raw + ")" : cpus.toString();
        } catch (IllegalArgumentException e) {
            return KernelText.escape(raw);
        }
    }
}
