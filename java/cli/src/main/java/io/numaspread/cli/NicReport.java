// SPDX-License-Identifier: Apache-2.0
package io.numaspread.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.numaspread.CpuSet;
import io.numaspread.irq.IrqState;
import io.numaspread.kernel.KernelPaths;
import io.numaspread.nic.InterruptTable;
import io.numaspread.nic.Nic;
import io.numaspread.nic.NicVector;
import io.numaspread.plan.SpreadPlan;
import io.numaspread.topology.Topology;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;

/** A NIC's vectors next to the plan: what each IRQ is, where it is allowed and delivered, and where it should be. */
final class NicReport {
    /** One vector's row; {@code slot} is the CPU the plan gave its queue first (its own CPU), or -1. */
    record Row(NicVector vector, IrqState state, Optional<CpuSet> planned, int slot) {
        String verdict() {
            return switch (vector.role()) {
                case QUEUE -> planned.isPresent() && planned.get().equals(state.affinity()) ? "matches" : "differs";
                case CONTROL -> "control";
                case OTHER -> "other";
            };
        }
    }

    private final Topology topology;
    private final Nic nic;
    private final SpreadPlan plan;
    private final List<Row> rows;

    NicReport(Topology topology, Nic nic, SpreadPlan plan, KernelPaths paths) {
        this.topology = topology;
        this.nic = nic;
        this.plan = plan;
        InterruptTable interrupts = InterruptTable.read(paths);
        List<Row> built = new ArrayList<>();
        for (NicVector vector : nic.vectors()) {
            Optional<CpuSet> planned = vector.isQueue()
                    ? Optional.of(plan.get(nic.planIndex(vector.queue())).cpus())
                    : Optional.empty();
            int slot =
                    vector.isQueue() ? plan.get(nic.planIndex(vector.queue())).cpu() : -1;
            built.add(new Row(vector, IrqState.read(paths, interrupts, vector.irq()), planned, slot));
        }
        this.rows = List.copyOf(built);
    }

    List<Row> rows() {
        return rows;
    }

    void printHeader(PrintWriter out) {
        out.println(nic.name() + ": driver " + (nic.driver().isEmpty() ? "unknown" : nic.driver()) + ", PCI "
                + nic.pciAddress() + ", " + nic.originReason(topology));
        long control = nic.vectors().stream().filter(v -> !v.isQueue()).count();
        String naming = nic.grouping().recognised()
                ? "queue naming " + nic.grouping().scheme()
                : "queue naming not recognised: every vector is treated as a queue, in vector order";
        out.println(
                naming + "; " + nic.queues().size() + " queue" + (nic.queues().size() == 1 ? "" : "s") + ", "
                        + nic.queueVectors().size() + " queue vector"
                        + (nic.queueVectors().size() == 1 ? "" : "s") + ", "
                        + control + " control or other vector" + (control == 1 ? "" : "s") + " (left alone)");
        out.println("plan: " + plan.size() + " queue" + (plan.size() == 1 ? "" : "s") + " over CPUs "
                + plan.candidates() + ", "
                + (plan.request().mode().name().equals("CPU") ? "one CPU each" : "SMT sibling groups")
                + (plan.request().origins().isEmpty()
                        ? ", no origin node"
                        : ", near node " + plan.request().origins().get(0)));
    }

    void printTable(PrintWriter out) {
        int nameWidth = Math.max(
                4, rows.stream().mapToInt(r -> r.vector().name().length()).max().orElse(4));
        String format = "%5s  %-" + nameWidth + "s  %5s  %-17s  %-9s  %-8s  %-8s  %s%n";
        out.printf(
                Locale.ROOT,
                format,
                "IRQ",
                "name",
                "queue",
                "smp_affinity_list",
                "effective",
                "planned",
                "state",
                "interrupts per CPU");
        for (Row row : rows) {
            out.printf(
                    Locale.ROOT,
                    format,
                    row.vector().irq(),
                    row.vector().name(),
                    row.vector().isQueue() ? Integer.toString(row.vector().queue()) : "-",
                    row.state().affinity(),
                    row.state().effective().map(CpuSet::toString).orElse("?"),
                    row.planned().map(CpuSet::toString).orElse("-"),
                    row.verdict(),
                    counts(row.state()));
        }
    }

    /**
     * Where the kernel delivers the queue vectors ({@code effective_affinity_list}), judged against the plan:
     * a vector delivered outside its planned CPUs, and one CPU taking the interrupts of queues the plan gave
     * CPUs of their own. What was written can match the plan while this does not: an IRQ moves at its next
     * interrupt, and with a sibling-group mask the kernel picks the CPU, and can pick one CPU for two queues.
     */
    List<String> effectiveWarnings() {
        List<String> warnings = new ArrayList<>();
        Map<Integer, TreeSet<Integer>> queuesOnCpu = new TreeMap<>();
        Map<Integer, TreeSet<Integer>> slotsOnCpu = new TreeMap<>();
        for (Row row : rows) {
            if (!row.vector().isQueue()
                    || row.state().effective().isEmpty()
                    || row.planned().isEmpty()) {
                continue;
            }
            CpuSet effective = row.state().effective().get();
            if (!row.planned().get().containsAll(effective)) {
                warnings.add("IRQ " + row.vector().irq() + " (" + row.vector().name() + ") is delivered to CPU "
                        + effective + ", outside its planned CPUs "
                        + row.planned().get()
                        + ": an IRQ moves at its next interrupt; if it has had one since, something else moved it");
            } else if (effective.size() == 1) {
                queuesOnCpu
                        .computeIfAbsent(effective.first(), cpu -> new TreeSet<>())
                        .add(row.vector().queue());
                slotsOnCpu
                        .computeIfAbsent(effective.first(), cpu -> new TreeSet<>())
                        .add(row.slot());
            }
        }
        queuesOnCpu.forEach((cpu, queues) -> {
            if (queues.size() > 1 && slotsOnCpu.get(cpu).size() > 1) {
                warnings.add("CPU " + cpu + " takes the interrupts of queues "
                        + queues.stream().map(String::valueOf).collect(Collectors.joining(", "))
                        + ", which the plan gave CPUs "
                        + slotsOnCpu.get(cpu).stream().map(String::valueOf).collect(Collectors.joining(", "))
                        + " of their own: with a sibling-group mask the kernel picks the CPU (one CPU each, the"
                        + " default, leaves it no choice)");
            }
        });
        return List.copyOf(warnings);
    }

    /** The warnings of {@link #effectiveWarnings}, one "warning: " line each. */
    void printWarnings(PrintWriter out) {
        List<String> warnings = effectiveWarnings();
        if (!warnings.isEmpty()) {
            out.println();
            warnings.forEach(warning -> out.println("warning: " + warning));
        }
    }

    ObjectNode toJson() {
        ObjectNode root = Json.object();
        root.put("interface", nic.name().value());
        root.put("driver", nic.driver());
        root.put("pci", nic.pciAddress());
        root.put("numa_node", nic.numaNode());
        root.set("local_cpulist", Json.cpus(nic.localCpus()));
        Optional<Integer> origin = nic.origin(topology);
        if (origin.isPresent()) {
            root.put("origin", origin.get());
        } else {
            root.putNull("origin");
        }
        root.put("naming", nic.grouping().scheme());
        root.put("naming_recognised", nic.grouping().recognised());
        root.put("queues", nic.queues().size());
        root.put("mode", plan.request().mode().name().equals("CPU") ? "cpu" : "siblings");
        ArrayNode irqs = root.putArray("irqs");
        for (Row row : rows) {
            ObjectNode entry = irqs.addObject();
            entry.put("irq", row.vector().irq());
            entry.put("name", row.vector().name());
            entry.put("role", row.vector().role().name().toLowerCase(Locale.ROOT));
            if (row.vector().isQueue()) {
                entry.put("queue", row.vector().queue());
            } else {
                entry.putNull("queue");
            }
            entry.set("smp_affinity_list", Json.cpus(row.state().affinity()));
            if (row.state().effective().isPresent()) {
                entry.set(
                        "effective_affinity_list",
                        Json.cpus(row.state().effective().get()));
            } else {
                entry.putNull("effective_affinity_list");
            }
            ObjectNode counts = entry.putObject("counts");
            row.state().counts().forEach((cpu, count) -> counts.put(Integer.toString(cpu), count));
            if (row.planned().isPresent()) {
                entry.set("planned", Json.cpus(row.planned().get()));
            } else {
                entry.putNull("planned");
            }
            entry.put("state", row.verdict());
        }
        ArrayNode warnings = root.putArray("warnings");
        effectiveWarnings().forEach(warnings::add);
        return root;
    }

    /** "0:12 1:6644" for the CPUs that took any; "none" when none did. */
    private static String counts(IrqState state) {
        String taken = state.counts().entrySet().stream()
                .filter(e -> e.getValue() > 0)
                .map(e -> e.getKey() + ":" + e.getValue())
                .collect(Collectors.joining(" "));
        return taken.isEmpty() ? "none" : taken;
    }
}
