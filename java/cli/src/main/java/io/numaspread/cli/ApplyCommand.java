// SPDX-License-Identifier: Apache-2.0
package io.numaspread.cli;

import io.numaspread.CpuSet;
import io.numaspread.NumaspreadException;
import io.numaspread.irq.AffinityTransaction;
import io.numaspread.irq.NicPlacement;
import io.numaspread.irq.RpsRecord;
import io.numaspread.irq.StateFile;
import io.numaspread.irq.Target;
import io.numaspread.irq.Wanted;
import io.numaspread.kernel.InterfaceName;
import io.numaspread.kernel.KernelFiles;
import io.numaspread.kernel.KernelPaths;
import io.numaspread.kernel.KernelText;
import io.numaspread.kernel.SchedPolicy;
import io.numaspread.kernel.ThreadScheduling;
import io.numaspread.nativeaccess.EpollBusyPoll;
import io.numaspread.nic.IrqSuspension;
import io.numaspread.nic.NapiSettings;
import io.numaspread.nic.Nic;
import io.numaspread.plan.PollFlags;
import io.numaspread.plan.PollPlan;
import java.io.PrintWriter;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.BiFunction;
import java.util.function.UnaryOperator;
import java.util.stream.Collectors;
import java.util.stream.Stream;
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
                    + " values. Kernel-managed IRQs are reported and left alone.",
            "Several --nic (or --all) are planned together and applied all or nothing across them: each NIC keeps"
                    + " its own state file, and a failure on one puts back the NICs already written, state files"
                    + " and all."
        },
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {
            "0:applied (or nothing to change, or --dry-run)",
            "2:bad input (interface, flag, file, stale state file); nothing was changed",
            "3:refused for safety (no privilege, read-only /proc, irqbalance running, --napi-threads on a kernel"
                    + " without threaded NAPI, --irq-suspend on a kernel before Linux 6.13 or a NIC without NAPI"
                    + " IDs); nothing was changed",
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

    // Apply's alone: the NAPI settings live in the kernel's per-NAPI config, which no IRQ drift or queue change
    // that watch repairs takes away, so watch has nothing of them to keep.
    @Option(
            names = "--irq-suspend",
            description = "Also set IRQ suspension's per-NAPI half on the NAPI of each planned queue with netdev"
                    + " netlink napi-set (Linux 6.13+, CAP_NET_ADMIN): defer-hard-irqs 100, gro-flush-timeout 20 us,"
                    + " irq-suspend-timeout 20 ms, the published recipe. Each NAPI's own values are recorded in the"
                    + " state file first; all or nothing with the IRQ writes; restore puts them back. The server's"
                    + " own epoll instances must set prefer_busy_poll (EPIOCSPARAMS), which apply cannot do for it.")
    boolean irqSuspend;

    // Apply's alone: plan has no threads to set.
    @Option(
            names = "--poll-sched",
            paramLabel = "POLICY[:PRIORITY]",
            description = "With --poll-queues, the scheduling class of each busy-poll kernel thread, set with"
                    + " sched_setscheduler (CAP_SYS_NICE) and read back: fifo:PRIORITY or rr:PRIORITY (1-99), other,"
                    + " batch or idle. Each thread's own class is recorded in the state file first; all or nothing"
                    + " with the other changes; restore puts it back.")
    String pollSched;

    @Mixin
    StateFileOption stateFile = new StateFileOption();

    @Mixin
    PollOptions polling = new PollOptions();

    /** The kernel's files as the writes see them: as they are, but in tests that fail or stop a write on purpose. */
    private final UnaryOperator<KernelFiles> kernelFiles;

    /** How {@code --irq-suspend} reaches a NIC's NAPIs: netdev netlink, but in tests a stand-in kernel. */
    private final BiFunction<InterfaceName, KernelPaths, NicPlacement.NapiSettingsAccess> napiSettings;

    ApplyCommand() {
        this(UnaryOperator.identity());
    }

    ApplyCommand(UnaryOperator<KernelFiles> kernelFiles) {
        this(kernelFiles, null);
    }

    /** @param napiSettings how NAPI settings are reached, or null for {@link MachineOptions#napiSettingsAccess} */
    ApplyCommand(
            UnaryOperator<KernelFiles> kernelFiles,
            BiFunction<InterfaceName, KernelPaths, NicPlacement.NapiSettingsAccess> napiSettings) {
        this.kernelFiles = kernelFiles;
        this.napiSettings = napiSettings;
    }

    @Override
    public void run() {
        PrintWriter out = spec.commandLine().getOut();
        List<NicOptions.NicPlan> chosen = nicOptions.plansToWrite();
        if (chosen.size() > 1) {
            applyTogether(out, chosen);
            return;
        }
        NicOptions.NicPlan planned = chosen.get(0);
        Nic nic = planned.nic();
        Optional<PollFlags.Around> polled =
                polling.plan(planned.topology(), planned.plan().request());
        Optional<PollPlan> poll = polled.map(PollFlags.Around::poll);
        Optional<ThreadScheduling> pollScheduling =
                Optional.ofNullable(pollSched).map(ApplyCommand::parseSchedule);
        if (pollScheduling.isPresent() && poll.isEmpty()) {
            throw NumaspreadException.badInput("--poll-sched goes with --poll-queues N: it sets the busy-poll threads'"
                    + " scheduling class; nothing was changed");
        }
        if (irqSuspend && poll.isPresent()) {
            // Two ways to poll one queue: a kernel thread spinning on it, or the server's epoll_wait with its IRQ
            // suspended. A polled queue's NAPI has no IRQ to suspend, and mixing them on one NIC is not a recipe.
            throw NumaspreadException.badInput("--irq-suspend and --poll-queues are two ways to poll a queue (the"
                    + " server's epoll_wait with the IRQ suspended, or a kernel thread spinning on it): choose one;"
                    + " nothing was changed");
        }
        // The IRQs stay off the poll cores (and their siblings when those are kept free).
        NicOptions.NicPlan nicPlan = polled.map(
                        around -> nicOptions.leased(planned.paths(), planned.topology(), nic, around.irqs()))
                .orElse(planned);
        nicPlan.report().printHeader(out);
        out.println();
        if (poll.isPresent()) {
            PlanCommand.printPoll(out, poll.get(), null);
            out.println();
        }
        KernelFiles files = kernelFiles.apply(nicOptions.machine.kernelFiles());
        NicPlacement placement = nicOptions.machine.placement(
                nicPlan.paths(),
                files,
                stateFile.given().map(NicPlacement.StateLocation::file).orElse(NicPlacement.StateLocation.DEFAULT));
        NicPlacement.Options options = new NicPlacement.Options(applyOptions.placement(), dryRun);
        Wanted wanted;
        if (irqSuspend) {
            NicPlacement.NapiSettingsAccess access = napiSettings != null
                    ? napiSettings.apply(nic.name(), nicPlan.paths())
                    : nicOptions.machine.napiSettingsAccess(nic.name(), nicPlan.paths());
            wanted = Wanted.suspended(nicPlan.plan(), IrqSuspension.recipe().napi(), access);
        } else {
            wanted = poll.map(p -> pollScheduling
                            .map(scheduling -> Wanted.polled(nicPlan.plan(), p, scheduling))
                            .orElseGet(() -> Wanted.polled(nicPlan.plan(), p)))
                    .orElseGet(() -> Wanted.plan(nicPlan.plan()));
        }
        NicPlacement.Outcome outcome = placement.apply(nic, wanted, options);
        printResults(out, outcome.results());
        LeaseReport.print(out, LeaseReport.rows(nic, nicPlan.leases()));
        outcome.napiSettings().ifPresent(suspended -> printNapiSettings(out, suspended, dryRun));
        out.println();
        outcome.notes().forEach(note -> out.println("note: " + note));
        // The busy-poll NAPIs have a line of their own, which says what restore puts back.
        outcome.threading()
                .filter(threading -> poll.isEmpty() || !threading.turnedOn().isEmpty())
                .ifPresent(threading -> out.println("note: " + threadingLine(nic.name(), threading, dryRun)));
        outcome.threading()
                .filter(threading -> !threading.busyPolled().isEmpty())
                .ifPresent(threading -> out.println("note: " + busyPollLine(nic.name(), threading, dryRun)));
        LinkPolicyWords.lines(nic.name(), nicOptions.linkPolicies(nicPlan))
                .forEach(line -> out.println("note: " + line));
        // What restore puts back of RPS: the masks the state file records, this apply's or an earlier one's.
        RpsRecord rps = dryRun || !applyOptions.placement().rpsOff()
                ? RpsRecord.of(Map.of())
                : StateFile.read(outcome.stateFile())
                        .map(state -> state.record(RpsRecord.class))
                        .orElse(RpsRecord.of(Map.of()));
        if (applyOptions.placement().rpsOff()) {
            out.println("note: " + rpsLine(outcome, dryRun, rps));
        }
        if (dryRun) {
            String roots = CommandLines.rootOptions(nicPlan.paths());
            out.println("dry run: nothing was changed. To apply: numaspread apply --nic " + nic.name() + roots
                    + " (as root; undo with: " + CommandLines.undo(outcome) + ")");
        } else if (outcome.changed() || outcome.napiSettings().isPresent() || !rps.isEmpty()) {
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

    /**
     * Several NICs: each with its share of their joint plan, all or nothing across them ({@link
     * NicPlacement#applyTogether}), each NIC's previous values in its own default state file.
     */
    private void applyTogether(PrintWriter out, List<NicOptions.NicPlan> nicPlans) {
        String names = nicPlans.stream().map(plan -> plan.nic().name().value()).collect(Collectors.joining(", "));
        Stream.of(
                        polling.pollQueues != null ? "--poll-queues" : null,
                        pollSched != null ? "--poll-sched" : null,
                        irqSuspend ? "--irq-suspend" : null,
                        stateFile.given().isPresent() ? "--state" : null)
                .filter(Objects::nonNull)
                .findFirst()
                .ifPresent(flag -> {
                    throw NumaspreadException.badInput(flag + " works on one NIC, and " + nicPlans.size()
                            + " were chosen (" + names + "): give one --nic; nothing was changed");
                });
        for (NicOptions.NicPlan nicPlan : nicPlans) {
            nicPlan.report().printHeader(out);
            out.println();
        }
        KernelPaths paths = nicPlans.get(0).paths();
        NicPlacement placement = nicOptions.machine.placement(
                paths, kernelFiles.apply(nicOptions.machine.kernelFiles()), NicPlacement.StateLocation.DEFAULT);
        List<NicPlacement.Outcome> outcomes = placement.applyTogether(
                nicPlans.stream()
                        .map(plan -> new NicPlacement.Share(plan.nic(), plan.plan()))
                        .toList(),
                new NicPlacement.Options(applyOptions.placement(), dryRun));
        Set<String> notes = new LinkedHashSet<>();
        for (int i = 0; i < nicPlans.size(); i++) {
            NicPlacement.Outcome outcome = outcomes.get(i);
            out.println(outcome.iface() + ":");
            printResults(out, outcome.results());
            LeaseReport.print(
                    out, LeaseReport.rows(nicPlans.get(i).nic(), nicPlans.get(i).leases()));
            out.println();
            outcome.notes().forEach(note -> notes.add("note: " + note));
            outcome.threading()
                    .ifPresent(threading -> notes.add("note: " + threadingLine(outcome.iface(), threading, dryRun)));
            LinkPolicyWords.lines(outcome.iface(), nicOptions.linkPolicies(nicPlans.get(i)))
                    .forEach(line -> notes.add("note: " + line));
        }
        notes.forEach(out::println);
        String undo = outcomes.stream().map(CommandLines::undo).collect(Collectors.joining("; "));
        if (dryRun) {
            String chosen = nicOptions.nics.all
                    ? " --all"
                    : nicPlans.stream()
                            .map(plan -> " --nic " + plan.nic().name())
                            .collect(Collectors.joining());
            out.println("dry run: nothing was changed. To apply: numaspread apply" + chosen
                    + CommandLines.rootOptions(paths) + " (as root; undo with: " + undo + ")");
        } else if (outcomes.stream().anyMatch(NicPlacement.Outcome::changed)) {
            for (NicOptions.NicPlan nicPlan : nicPlans) {
                NicReport after = nicPlan.report();
                after.printTable(out);
                after.printWarnings(out);
                out.println();
            }
            out.println("applied and read back (effective_affinity_list follows at each IRQ's next interrupt);"
                    + " the previous values are in "
                    + outcomes.stream()
                            .map(outcome -> outcome.stateFile().toString())
                            .collect(Collectors.joining(", "))
                    + ". Undo with: " + undo);
        } else {
            out.println("nothing to change");
        }
        out.flush();
    }

    /** Each planned NAPI's settings before and after, one line each, then what the server's loops must do. */
    static void printNapiSettings(PrintWriter out, NicPlacement.NapiSettingsOutcome suspended, boolean dryRun) {
        for (Map.Entry<Integer, NapiSettings> napi : suspended.before().entrySet()) {
            out.println("NAPI " + napi.getKey() + "  " + words(napi.getValue()) + " -> " + words(suspended.wanted())
                    + "  " + (dryRun ? "would change" : "set"));
        }
        out.println("note: " + perLoopLine(IrqSuspension.recipe().epoll()));
    }

    /** IRQ suspension's per-loop half, which only the server can set on its own epoll instances. */
    static String perLoopLine(EpollBusyPoll loop) {
        return "IRQ suspension also needs each event loop's epoll instance to set prefer_busy_poll="
                + (loop.preferBusyPoll() ? 1 : 0) + ", busy_poll_usecs=" + loop.usecs() + ", busy_poll_budget="
                + loop.budget() + " (ioctl EPIOCSPARAMS, Linux 6.9; or SO_PREFER_BUSY_POLL and SO_BUSY_POLL_BUDGET"
                + " on its sockets): numaspread cannot reach a server's epoll instances; without it these NAPI"
                + " values only defer IRQs (defer-hard-irqs, gro-flush-timeout) and none is suspended";
    }

    /** NAPI settings in the words of netdev netlink's napi-get, with the time units a person reads. */
    static String words(NapiSettings settings) {
        return "defer-hard-irqs " + settings.deferHardIrqs() + ", gro-flush-timeout "
                + duration(settings.groFlushTimeoutNanos()) + ", irq-suspend-timeout "
                + duration(settings.irqSuspendTimeoutNanos());
    }

    private static String duration(long nanos) {
        if (nanos != 0 && nanos % 1_000_000 == 0) {
            return nanos / 1_000_000 + " ms";
        }
        if (nanos != 0 && nanos % 1_000 == 0) {
            return nanos / 1_000 + " us";
        }
        return nanos + " ns";
    }

    /**
     * What {@code --rps-off} leaves: the masks the state file records ({@code recorded}), which restore puts back.
     * A dry run reads no {@code rps_cpus}.
     */
    private static String rpsLine(NicPlacement.Outcome outcome, boolean dryRun, RpsRecord recorded) {
        if (dryRun) {
            return "--rps-off: a dry run reads no rps_cpus; the apply writes 0 to each receive queue's that is set";
        }
        if (recorded.isEmpty()) {
            return "RPS is off on every receive queue of " + outcome.iface() + " (each rps_cpus reads 0)";
        }
        return "RPS is off on every receive queue of " + outcome.iface() + "; the masks it had ("
                + recorded.before().entrySet().stream()
                        .map(queue -> "rx-" + queue.getKey() + " " + queue.getValue())
                        .collect(Collectors.joining(", "))
                + ") are in " + outcome.stateFile() + ", which restore puts back";
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
        String scheduled = threading
                .pollScheduling()
                .map(scheduling -> (dryRun ? ", and set each thread to " : ", each thread ")
                        + schedulingWords(scheduling) + " (sched_setscheduler)")
                .orElse("");
        return (dryRun ? "busy poll: would set threaded 2 (busy-poll) and pin " : "busy poll: threaded 2 (busy-poll), ")
                + napis
                + scheduled
                + (dryRun
                        ? ""
                        : "; each thread spins its core; restore puts back the threaded"
                                + (scheduled.isEmpty() ? "" : " and scheduling class") + " it had");
    }

    /** How {@code --poll-sched} and the output word a scheduling class: {@code SCHED_FIFO priority 10}. */
    static String schedulingWords(ThreadScheduling scheduling) {
        return "SCHED_" + scheduling.policy().name()
                + (scheduling.policy().realTime() ? " priority " + scheduling.priority() : "");
    }

    /**
     * {@code --poll-sched POLICY[:PRIORITY]}: {@code fifo:N} or {@code rr:N} with N from 1 to 99, or {@code other},
     * {@code batch} or {@code idle} alone.
     *
     * @throws NumaspreadException (bad input) naming the flag and the value
     */
    static ThreadScheduling parseSchedule(String value) {
        String culprit = "--poll-sched \"" + KernelText.escape(value) + "\": ";
        int colon = value.indexOf(':');
        String word = colon < 0 ? value : value.substring(0, colon);
        SchedPolicy policy = switch (word) {
            case "other" -> SchedPolicy.OTHER;
            case "fifo" -> SchedPolicy.FIFO;
            case "rr" -> SchedPolicy.RR;
            case "batch" -> SchedPolicy.BATCH;
            case "idle" -> SchedPolicy.IDLE;
            default ->
                throw NumaspreadException.badInput(culprit + "the policy is none of fifo, rr, other, batch and idle");
        };
        if (!policy.realTime()) {
            if (colon >= 0) {
                throw NumaspreadException.badInput(culprit + word + " takes no priority (only fifo and rr do, 1-"
                        + SchedPolicy.MAX_RT_PRIORITY + ")");
            }
            return new ThreadScheduling(policy, 0);
        }
        if (colon < 0) {
            throw NumaspreadException.badInput(culprit + word + " needs a priority, " + word + ":1 to " + word + ":"
                    + SchedPolicy.MAX_RT_PRIORITY);
        }
        String digits = value.substring(colon + 1);
        int priority = digits.matches("[0-9]{1,3}") ? Integer.parseInt(digits) : -1;
        if (priority < 1 || priority > SchedPolicy.MAX_RT_PRIORITY) {
            throw NumaspreadException.badInput(
                    culprit + "the priority must be a number from 1 to " + SchedPolicy.MAX_RT_PRIORITY);
        }
        return new ThreadScheduling(policy, priority);
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
