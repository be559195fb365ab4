// SPDX-License-Identifier: Apache-2.0
package io.numaspread.cli;

import io.numaspread.CpuSet;
import io.numaspread.irq.AffinityTransaction;
import io.numaspread.irq.Target;
import io.numaspread.kernel.InterfaceName;
import io.numaspread.watch.KernelEvent;
import io.numaspread.watch.NicSnapshot;
import io.numaspread.watch.WatchEvent;
import io.numaspread.watch.Writers;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * watch's lines: one per event the watcher reports, none for those only the metrics count. Scripts and people
 * grep these words ("changed eth0: ", "FIGHT eth0: "), so they change only with the checks that read them.
 */
final class WatchPrinter {
    private WatchPrinter() {}

    /** The line {@code event} is reported with; empty when it is only counted. */
    static Optional<String> line(WatchEvent event) {
        InterfaceName nic = event.nic();
        if (event instanceof WatchEvent.Applied applied) {
            return Optional.of(
                    "applied " + nic + ": " + summary(applied.counts()) + "; state file " + applied.stateFile());
        }
        if (event instanceof WatchEvent.Changed changed) {
            List<String> changes = changed.before()
                    .map(before -> changes(before, changed.now()))
                    .orElse(List.of(nic + " is back"));
            return Optional.of("changed " + nic + ": " + String.join(", ", changes) + after(changed.after())
                    + "; planned again: " + summary(changed.counts()));
        }
        if (event instanceof WatchEvent.DriftPutBack drift) {
            return Optional.of("drift " + nic + ": " + moved(drift.moved()) + " (found by the drift check); put back");
        }
        if (event instanceof WatchEvent.ResetPutBack reset) {
            return Optional.of("reset " + nic + ": " + moved(reset.moved())
                    + (reset.after().isEmpty() ? " (found on a recheck after events)" : after(reset.after()))
                    + "; put back");
        }
        if (event instanceof WatchEvent.Kept kept) {
            return Optional.of("kept " + nic + ": " + held(kept.held()) + " still hold the plan" + after(kept.after())
                    + "; the kernel kept them, nothing written");
        }
        if (event instanceof WatchEvent.FightRound fight) {
            return Optional.of(fight(fight));
        }
        if (event instanceof WatchEvent.FightOver over) {
            return over.heldFor()
                    .map(held -> "fight over " + nic + ": " + over.target().label() + " has kept the plan for "
                            + seconds(held));
        }
        if (event instanceof WatchEvent.Flood flood) {
            return flood.begins() ? Optional.of(flood(flood)) : Optional.empty();
        }
        if (event instanceof WatchEvent.Failed failed) {
            return Optional.of("FAILED " + nic + ": " + CommandLines.words(failed.cause()) + after(failed.after())
                    + "; trying again at each check");
        }
        if (event instanceof WatchEvent.TopologyUnreadable waiting) {
            return Optional.of("waiting " + nic + ": the topology could not be read (" + waiting.cause() + ")"
                    + after(waiting.after()) + "; reading it again at the next check");
        }
        if (event instanceof WatchEvent.KeptFreeUnreadable kubelet) {
            return Optional.of(
                    "kubelet: " + kubelet.problem() + "; keeping CPUs " + kubelet.keptFree() + " free meanwhile");
        }
        if (event instanceof WatchEvent.Gone gone) {
            return gone.justWent()
                    ? Optional.of(
                            "gone " + nic + ": " + gone.cause() + after(gone.after()) + "; waiting for it to come back")
                    : Optional.empty();
        }
        if (event instanceof WatchEvent.ThreadedTurnedOn threaded) {
            if (!threaded.napis().isEmpty()) {
                return Optional.of("threaded " + nic + ": NAPI "
                        + threaded.napis().stream().map(String::valueOf).collect(Collectors.joining(", "))
                        + " not threaded" + after(threaded.after())
                        + "; turned on per NAPI with netdev netlink napi-set and " + threaded.pinned()
                        + " NAPI threads pinned");
            }
            return Optional.of("threaded " + nic + ": " + threaded.threadedFile() + " was 0" + after(threaded.after())
                    + "; set to 1 and " + threaded.pinned() + " NAPI threads pinned");
        }
        if (event instanceof WatchEvent.BusyPoll poll) {
            return Optional.of("busy poll " + nic + ": "
                    + poll.napis().stream().map(napi -> polled(nic, napi)).collect(Collectors.joining("; "))
                    + after(poll.after()));
        }
        if (event instanceof WatchEvent.NapiThreadsLeft left) {
            return Optional.of("NAPI threads of " + nic + " left as they are: " + left.cause() + after(left.after())
                    + "; the IRQs are kept, the threads pinned again once they can be told apart");
        }
        if (event instanceof WatchEvent.Joined joined) {
            return Optional.of("joined " + nic + ": " + joined.relation() + " now" + after(joined.after())
                    + "; watched, planned with the others");
        }
        if (event instanceof WatchEvent.Left left) {
            return Optional.of("left " + nic + ": no longer under " + left.upper() + after(left.after())
                    + "; no longer watched, " + line(left.restore()).orElseThrow());
        }
        if (event instanceof WatchEvent.NothingToRestore nothing) {
            return Optional.of("restore " + nic + ": nothing to put back ("
                    + (nothing.discarded()
                            ? "the kernel discarded every recorded IRQ"
                            : "no state file " + nothing.stateFile())
                    + ")");
        }
        if (event instanceof WatchEvent.Restored restored) {
            return Optional.of("restored " + nic + ": " + restored.restored() + " of " + restored.recorded()
                    + " values put back from " + restored.stateFile() + "; removed it");
        }
        if (event instanceof WatchEvent.RestoreFailed failed) {
            return Optional.of("FAILED restore " + nic + ": " + failed.cause());
        }
        if (event instanceof WatchEvent.WaitsToRestore waits) {
            return Optional.of("restore " + nic + ": at the second check in a row that finds it open (a bond closes"
                    + " the member it releases, and a closed NIC's vectors take no value), from " + waits.stateFile()
                    + ", kept until then");
        }
        // Counted only: Checked, DriftFound, NapiThreadsPinned, a flood after its first check.
        return Optional.empty();
    }

    /** The first check of a flood of events, said once while the flood lasts (the metrics count each). */
    private static String flood(WatchEvent.Flood flood) {
        return "flood " + flood.nic() + ": " + flood.events() + " events in " + seconds(flood.collected())
                + (flood.quiet()
                        ? ""
                        : ", still coming: checking with what came, not waiting for them to stop (every "
                                + seconds(flood.maxSettle()) + " at most while they last)")
                + (flood.notKept() > 0
                        ? "; " + flood.notKept() + " of them not kept (the queue was full): every NIC read afresh"
                        : "");
    }

    /** One busy-poll NAPI and what the check did to it. */
    private static String polled(InterfaceName nic, WatchEvent.PolledNapi napi) {
        String thread = "napi/" + nic + "-" + napi.napiId();
        return switch (napi.action()) {
            case SET ->
                "NAPI " + napi.napiId() + " set to threaded 2 (busy-poll), " + thread + " pinned to CPU " + napi.cpu();
            case PINNED ->
                "NAPI " + napi.napiId() + " still threaded 2, " + thread + " pinned again to CPU " + napi.cpu()
                        + " (a new thread)";
            case KEPT ->
                "NAPI " + napi.napiId() + " kept: threaded 2, " + thread + " on CPU " + napi.cpu()
                        + ", nothing written";
        };
    }

    /** What changed since {@code before}, one phrase each ("CPUs online 0-7 -> 0-4,6-7"). */
    static List<String> changes(NicSnapshot before, NicSnapshot now) {
        List<String> changes = new ArrayList<>();
        if (!now.online().equals(before.online())) {
            changes.add("CPUs online " + before.online() + " -> " + now.online());
        }
        if (!now.keptFree().equals(before.keptFree())) {
            changes.add("exclusive CPUs " + none(before.keptFree()) + " -> " + none(now.keptFree()));
        }
        if (now.txQueues() != before.txQueues()) {
            changes.add("active queues " + before.txQueues() + " -> " + now.txQueues());
        }
        if (!now.queueVectors().equals(before.queueVectors())) {
            changes.add(
                    now.queueVectors().keySet().equals(before.queueVectors().keySet())
                            ? "queue vectors renamed"
                            : "queue IRQs " + irqs(before.queueVectors()) + " -> " + irqs(now.queueVectors()));
        }
        if (changes.isEmpty() && !now.pollCpus().equals(before.pollCpus())) {
            changes.add("poll CPUs " + before.pollCpus() + " -> " + now.pollCpus());
        }
        if (changes.isEmpty() && !now.plan().equals(before.plan())) {
            changes.add("plan " + before.plan() + " -> " + now.plan());
        }
        return changes;
    }

    private static String none(CpuSet cpus) {
        return cpus.isEmpty() ? "none" : cpus.toString();
    }

    /** IRQ numbers as ranges, ascending: "37-44,50". */
    static String irqs(Map<Integer, String> vectors) {
        if (vectors.isEmpty()) {
            return "none";
        }
        List<String> ranges = new ArrayList<>();
        int start = -1;
        int previous = -1;
        for (int irq : new TreeMap<>(vectors).keySet()) {
            if (start >= 0 && irq != previous + 1) {
                ranges.add(start == previous ? Integer.toString(start) : start + "-" + previous);
                start = -1;
            }
            if (start < 0) {
                start = irq;
            }
            previous = irq;
        }
        ranges.add(start == previous ? Integer.toString(start) : start + "-" + previous);
        return String.join(",", ranges);
    }

    private static String fight(WatchEvent.FightRound fight) {
        Target target = fight.target();
        List<Writers.Writer> writers = fight.writers();
        String who = writers.isEmpty()
                ? "an unknown writer (not irqbalance; look for tuned, a vendor's"
                        + " set_irq_affinity script or another numaspread)"
                : writers.stream().map(WatchPrinter::writer).collect(Collectors.joining(", "));
        String fix = writers.stream().anyMatch(Writers.Writer::irqbalance)
                ? "stop irqbalance (systemctl stop irqbalance) or ban IRQ " + target.number()
                        + " (IRQBALANCE_ARGS=--banirq=" + target.number() + ")"
                : "stop that writer, or stop numaspread watch if its placement is the one you want";
        String moved = fight.round() == 1
                ? " was moved back to " + shown(target, fight.found()) + " " + fight.drifts() + " times in "
                        + seconds(fight.window())
                : " was moved back again after the plan was retried";
        return "FIGHT " + fight.nic() + ": " + target.label() + moved + " by " + who + "; round " + fight.round()
                + ": leaving it alone for " + seconds(fight.leftAlone()) + " (at most " + seconds(fight.cap())
                + " between tries); to end it, " + fix;
    }

    /** "irqbalance (pid 412)", "pid 977 (bash -c while true; do echo 0 > /proc/irq/38/smp_affinity_list ...)". */
    private static String writer(Writers.Writer writer) {
        if (writer.irqbalance()) {
            return "irqbalance (pid " + writer.pid() + ")";
        }
        String line = writer.commandLine();
        return "pid " + writer.pid() + " (" + (line.length() <= 100 ? line : line.substring(0, 97) + "...") + ")";
    }

    /** "8 IRQs and 8 xps_cpus", "1 IRQ": the files by kind, in the kinds' order. */
    static String held(List<Target> held) {
        Map<Target.Kind, Long> counts = held.stream()
                .collect(Collectors.groupingBy(
                        Target::kind, () -> new EnumMap<>(Target.Kind.class), Collectors.counting()));
        List<String> parts = new ArrayList<>();
        counts.forEach((kind, count) -> parts.add(count + " "
                + switch (kind) {
                    case IRQ -> count == 1 ? "IRQ" : "IRQs";
                    case XPS -> "xps_cpus";
                    case NAPI_THREAD -> count == 1 ? "NAPI thread" : "NAPI threads";
                }));
        return parts.isEmpty() ? "no files" : String.join(" and ", parts);
    }

    private static String moved(List<WatchEvent.Moved> moved) {
        return moved.stream()
                .map(m -> m.target().label() + " was " + shown(m.target(), m.found()) + ", plan " + m.planned())
                .collect(Collectors.joining("; "));
    }

    /** A file's text as the CPUs it names, or as it is when it names none. */
    private static String shown(Target target, String found) {
        try {
            return target.parse(found).toString();
        } catch (IllegalArgumentException e) {
            return found;
        }
    }

    /** "3 s", "0.6 s". */
    static String seconds(Duration duration) {
        return BigDecimal.valueOf(duration.toMillis(), 3).stripTrailingZeros().toPlainString() + " s";
    }

    private static String summary(Map<AffinityTransaction.Status, Integer> counts) {
        return counts.entrySet().stream()
                .map(e -> e.getValue() + " " + e.getKey().label())
                .collect(Collectors.joining(", "));
    }

    /** " after EVENTS", at most three of them named; empty when there are none. */
    private static String after(List<KernelEvent> events) {
        if (events.isEmpty()) {
            return "";
        }
        List<String> distinct =
                events.stream().map(KernelEvent::toString).distinct().toList();
        return " after "
                + (distinct.size() <= 3
                        ? String.join(", ", distinct)
                        : String.join(", ", distinct.subList(0, 3)) + " and " + (distinct.size() - 3) + " more events");
    }
}
