// SPDX-License-Identifier: Apache-2.0
package io.numaspread.cli.picture;

import io.numaspread.CpuSet;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * The NIC in a picture: a chip per queue on each of its planned CPUs and per vector on each CPU the kernel
 * delivers it to, the interrupts each CPU took, what the legend says of them and the list of the vectors.
 */
final class NicMarks {
    private NicMarks() {}

    /** The queues' chips, queue by queue, then the vectors'. */
    static List<Chip.OnCpu> chips(MachinePicture picture) {
        List<Chip.OnCpu> chips = new ArrayList<>();
        boolean severalOrigins = picture.origins().size() > 1;
        // By plan index, which is the queue's position in picture.queues().
        Map<Integer, Boolean> queueOffPlan = new TreeMap<>();
        for (MachinePicture.Vector vector : picture.vectors()) {
            vector.queue().ifPresent(q -> queueOffPlan.merge(q, vector.deliveredOffPlan(), Boolean::logicalOr));
        }
        for (int position = 0; position < picture.queues().size(); position++) {
            MachinePicture.Queue queue = picture.queues().get(position);
            String label = "q" + queue.index() + (severalOrigins ? Character.toString('a' + queue.origin()) : "");
            boolean offPlan = queueOffPlan.getOrDefault(position, false);
            queue.cpus().forEachCpu(cpu -> {
                boolean slot = cpu == queue.slot();
                chips.add(new Chip.OnCpu(
                        cpu,
                        new Chip(
                                slot ? 0 : 4,
                                "queue",
                                "queue:" + queue.index(),
                                label,
                                slot ? Colours.QUEUE_SLOT : Colours.QUEUE_GROUP,
                                slot ? "#ffffff" : "#08306b",
                                offPlan ? Colours.OFF_PLAN : "none",
                                "data-queue=\"" + queue.index() + "\" data-origin=\"" + queue.origin()
                                        + "\" data-slot=\"" + slot + "\" data-delivered=\""
                                        + (offPlan ? "off-plan" : "on-plan") + "\"",
                                "queue " + queue.index() + originName(picture, queue.origin()) + " planned on "
                                        + queue.cpus()
                                        + (slot ? " (slot CPU " + cpu + ")" : "")
                                        + (offPlan ? "; a vector of it is delivered elsewhere" : ""))));
            });
        }
        for (MachinePicture.Vector vector : picture.vectors()) {
            vector.effective().ifPresent(effective -> vectorChips(vector, effective, chips));
        }
        return chips;
    }

    private static void vectorChips(MachinePicture.Vector vector, CpuSet effective, List<Chip.OnCpu> chips) {
        String state = state(vector);
        String fill = switch (state) {
            case "control" -> Colours.CONTROL;
            case "off-plan" -> Colours.OFF_PLAN;
            default -> Colours.ON_PLAN;
        };
        String tooltip = "IRQ " + vector.irq() + " " + vector.name() + ": effective " + effective
                + ", smp_affinity_list " + vector.affinity()
                + vector.planned().map(p -> ", planned " + p).orElse(" (not a queue vector)") + ", "
                + vector.total() + " interrupts";
        int rank = switch (state) {
            case "off-plan" -> 1;
            case "on-plan" -> 2;
            default -> 5;
        };
        effective.forEachCpu(cpu -> chips.add(new Chip.OnCpu(
                cpu,
                new Chip(
                        rank,
                        "irq",
                        "irq:" + vector.irq(),
                        Chip.clip("i" + vector.irq()),
                        fill,
                        "#ffffff",
                        "none",
                        "data-irq=\"" + vector.irq() + "\" data-state=\"" + state + "\"",
                        tooltip))));
    }

    private static String state(MachinePicture.Vector vector) {
        return vector.queue().isEmpty() ? "control" : vector.deliveredOffPlan() ? "off-plan" : "on-plan";
    }

    private static String originName(MachinePicture picture, int position) {
        return picture.origins().size() > 1
                ? " of origin node " + picture.origins().get(position)
                : "";
    }

    /** The interrupts the NIC's vectors took, by CPU. */
    static Map<Integer, Long> interrupts(MachinePicture picture) {
        Map<Integer, Long> interruptsByCpu = new TreeMap<>();
        for (MachinePicture.Vector vector : picture.vectors()) {
            vector.counts().forEach((cpu, count) -> interruptsByCpu.merge(cpu, count, Long::sum));
        }
        return interruptsByCpu;
    }

    /** The legend's lines for the queues' chips and then the vectors'. */
    static List<Legend.Item> legend(MachinePicture picture) {
        List<Legend.Item> items = new ArrayList<>();
        if (!picture.queues().isEmpty()) {
            items.add(new Legend.Item(
                    new Chip("q0", Colours.QUEUE_SLOT, "#ffffff", "none"), "queue 0 planned here (its slot CPU)"));
            if (picture.queues().stream().anyMatch(q -> q.cpus().size() > 1)) {
                items.add(new Legend.Item(
                        new Chip("q0", Colours.QUEUE_GROUP, "#08306b", "none"),
                        "queue 0 may also go here (its sibling group)"));
            }
            if (picture.origins().size() > 1) {
                StringBuilder suffixes = new StringBuilder("q0a, q0b, ...: queue 0 of origin ");
                for (int i = 0; i < picture.origins().size(); i++) {
                    suffixes.append(i == 0 ? "" : ", ")
                            .append("node ")
                            .append(picture.origins().get(i))
                            .append(" (")
                            .append(Character.toString('a' + i))
                            .append(')');
                }
                items.add(new Legend.Item(new Chip("q0a", Colours.QUEUE_SLOT, "#ffffff", "none"), suffixes.toString()));
            }
        }
        if (!picture.vectors().isEmpty()) {
            items.add(new Legend.Item(
                    new Chip("i38", Colours.ON_PLAN, "#ffffff", "none"),
                    "IRQ 38 delivered here (effective_affinity_list), within its plan"));
            items.add(new Legend.Item(
                    new Chip("i38", Colours.OFF_PLAN, "#ffffff", "none"),
                    "IRQ 38 delivered here, outside its plan; its queue's chips get a red outline"));
            items.add(new Legend.Item(
                    new Chip("", "#ffffff", "#000000", "none"),
                    "(effective_affinity_list follows smp_affinity_list at the IRQ's next interrupt)"));
            items.add(new Legend.Item(
                    new Chip("i37", Colours.CONTROL, "#ffffff", "none"),
                    "control or other vector delivered here (left alone)"));
            items.add(new Legend.Item(
                    new Chip("\u03a3123", "#ffffff", "#000000", "none"),
                    "interrupts this NIC's vectors took on the CPU"));
        }
        return items;
    }

    /**
     * The vectors' list, a heading and a line per vector whose kind is its state; empty without vectors. The
     * columns line up, the IRQ and queue columns right-aligned as in the irqs table.
     */
    static List<ListLine> lines(MachinePicture picture) {
        List<ListLine> lines = new ArrayList<>();
        if (picture.vectors().isEmpty()) {
            return lines;
        }
        lines.add(ListLine.heading(
                "vectors: IRQ, name, queue, planned, smp_affinity_list, effective," + " interrupts per CPU"));
        List<String[]> rows = new ArrayList<>();
        for (MachinePicture.Vector v : picture.vectors()) {
            String counts = v.counts().entrySet().stream()
                    .filter(e -> e.getValue() > 0)
                    .map(e -> e.getKey() + ":" + e.getValue())
                    .reduce((a, b) -> a + " " + b)
                    .orElse("none");
            rows.add(new String[] {
                Integer.toString(v.irq()),
                v.name(),
                v.queue().map(q -> "q" + q).orElse("-"),
                "plan " + v.planned().map(CpuSet::toString).orElse("-"),
                "allowed " + v.affinity(),
                "eff " + v.effective().map(CpuSet::toString).orElse("?"),
                v.queue().isEmpty() ? "control" : v.deliveredOffPlan() ? "OFF PLAN" : "on plan",
                counts
            });
        }
        int[] widths = new int[rows.get(0).length];
        rows.forEach(row -> {
            for (int i = 0; i < row.length; i++) {
                widths[i] = Math.max(widths[i], row[i].length());
            }
        });
        for (String[] row : rows) {
            StringBuilder line = new StringBuilder();
            for (int i = 0; i < row.length; i++) {
                // The last column is not padded.
                String format = i == row.length - 1
                        ? "%s"
                        : i == 0 || i == 2 ? "%" + widths[i] + "s  " : "%-" + widths[i] + "s  ";
                line.append(String.format(Locale.ROOT, format, row[i]));
            }
            lines.add(new ListLine(row[6], "  " + line));
        }
        return lines;
    }
}
