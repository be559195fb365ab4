// SPDX-License-Identifier: Apache-2.0
package io.numaspread.cli.picture;

import io.numaspread.CpuSet;
import io.numaspread.topology.CpuInfo;
import io.numaspread.topology.Topology;
import java.util.List;
import java.util.OptionalInt;
import java.util.TreeSet;

/**
 * The machine drawn where {@link MachineLayout} places it: package boxes, node boxes with a band coloured by
 * distance from a single origin and the origin's badge, core boxes, and CPU cells, grey for CPUs that may not be
 * used, each with its chips and, with a NIC's vectors, the interrupts it took.
 */
final class MachineDrawing {
    private static final double CELL_LABEL_SIZE = 10;
    /** Where a cell's first chip starts, below the CPU's number. */
    private static final double FIRST_CHIP = 16;

    private final MachinePicture picture;
    private final Topology topology;
    private final NodeLabels labels;
    private final Cells cells;
    private final MachineLayout layout;

    MachineDrawing(MachinePicture picture, NodeLabels labels, Cells cells, MachineLayout layout) {
        this.picture = picture;
        this.topology = picture.topology();
        this.labels = labels;
        this.cells = cells;
        this.layout = layout;
    }

    void draw(SvgWriter svg, List<MachineLayout.Placed<MachineLayout.Box>> boxes) {
        for (MachineLayout.Placed<MachineLayout.Box> p : boxes) {
            if (p.item() instanceof MachineLayout.NodePart part) {
                drawNodePart(svg, part, p.x(), p.y());
            } else if (p.item() instanceof MachineLayout.PackageBox box) {
                drawPackage(svg, box, p.x(), p.y());
            }
        }
    }

    private void drawPackage(SvgWriter svg, MachineLayout.PackageBox box, double x, double y) {
        svg.startGroup("package", "data-package=\"" + box.id() + "\"");
        svg.newline();
        svg.rect("package-box", x, y, box.width(), box.height(), "#fafafa", "#555555", "rx=\"6\"");
        svg.text(
                x + MachineLayout.PAD,
                y + 15,
                NodeLabels.TITLE_SIZE,
                "#333333",
                true,
                NodeLabels.packageTitle(box.id()),
                "package-title");
        for (MachineLayout.Placed<MachineLayout.NodePart> p : MachineLayout.nodesIn(box, x, y)) {
            drawNodePart(svg, p.item(), p.x(), p.y());
        }
        svg.endGroup();
        svg.newline();
    }

    private void drawNodePart(SvgWriter svg, MachineLayout.NodePart part, double x, double y) {
        svg.startGroup("node", "data-node=\"" + part.node() + "\" data-package=\"" + part.packageId() + "\"");
        svg.newline();
        svg.rect("node-box", x, y, part.width(), part.height(), "#ffffff", "#333333", "rx=\"4\"");
        svg.rect(
                "node-band",
                x + 1,
                y + 1,
                part.width() - 2,
                MachineLayout.NODE_HEADER - 4,
                levelColour(part.node()),
                "none",
                "rx=\"3\"");
        String title = NodeLabels.nodeTitle(part.node(), part.partial());
        double left = x + MachineLayout.PAD;
        svg.text(left, y + 15, NodeLabels.TITLE_SIZE, "#000000", true, title, "node-title");
        if (labels.isOrigin(part.node())) {
            double badgeX = left + SvgWriter.textWidth(title, NodeLabels.TITLE_SIZE) + 8;
            svg.startGroup("origin", "data-node=\"" + part.node() + "\"");
            svg.rect("origin-badge", badgeX, y + 5, labels.badgeWidth(), 13, "#000000", "none", "rx=\"3\"");
            svg.text(badgeX + 3, y + 15, NodeLabels.BADGE_SIZE, "#ffffff", true, picture.originLabel(), "origin-label");
            svg.endGroup();
            svg.newline();
        }
        svg.text(
                left,
                y + 28,
                NodeLabels.DETAIL_SIZE,
                "#222222",
                false,
                labels.nodeDetail(part.node(), part.cpus()),
                "node-detail");
        for (MachineLayout.Placed<CpuSet> core : layout.coresIn(part, x, y)) {
            drawCore(svg, core.item(), core.x(), core.y());
        }
        svg.endGroup();
        svg.newline();
    }

    /** The node band's colour: by hop level from a single origin (darkest nearest), grey otherwise. */
    private String levelColour(int node) {
        if (picture.origins().size() != 1 || node < 0) {
            return Colours.FAR;
        }
        int origin = picture.origins().get(0);
        TreeSet<Integer> distances = new TreeSet<>();
        topology.nodes().stream()
                .filter(n -> !n.cpus().isEmpty() || n.id() == origin)
                .forEach(n -> topology.distance(origin, n.id()).ifPresent(distances::add));
        OptionalInt distance = topology.distance(origin, node);
        if (distance.isEmpty()) {
            return Colours.FAR;
        }
        int level = distances.headSet(distance.getAsInt()).size();
        return level < Colours.LEVELS.size() ? Colours.LEVELS.get(level) : Colours.FAR;
    }

    private void drawCore(SvgWriter svg, CpuSet core, double x, double y) {
        svg.startGroup("core", "data-cpus=\"" + core + "\"");
        svg.newline();
        svg.rect(
                "core-box",
                x,
                y,
                MachineLayout.coreBoxWidth(core),
                layout.coreBoxHeight(),
                "#f0f0f0",
                "#999999",
                "rx=\"3\"");
        for (MachineLayout.Placed<Integer> cpu : MachineLayout.cpusIn(core, x, y)) {
            drawCpu(svg, cpu.item(), cpu.x(), cpu.y());
        }
        svg.endGroup();
        svg.newline();
    }

    private void drawCpu(SvgWriter svg, int cpu, double x, double y) {
        boolean usable = picture.mayUse().contains(cpu);
        svg.startGroup("cpu", "data-cpu=\"" + cpu + "\" data-may-use=\"" + usable + "\"");
        svg.title(cpuTooltip(cpu, usable));
        svg.rect(
                "cpu-box",
                x,
                y,
                MachineLayout.CELL_W,
                cells.height(),
                usable ? "#ffffff" : "#d0d0d0",
                usable ? "#666666" : "#aaaaaa",
                "");
        svg.text(
                x + 3,
                y + 12,
                CELL_LABEL_SIZE,
                usable ? "#000000" : "#666666",
                true,
                Integer.toString(cpu),
                "cpu-label");
        List<Chip> chips = cells.shown(cpu);
        for (int i = 0; i < chips.size(); i++) {
            chips.get(i).draw(svg, cpu, x + 3, y + FIRST_CHIP + i * (Chip.HEIGHT + Chip.GAP));
        }
        if (cells.showCounts()) {
            long count = cells.interrupts(cpu);
            svg.startGroup("count", "data-cpu=\"" + cpu + "\" data-interrupts=\"" + count + "\"");
            svg.text(
                    x + 3,
                    y + cells.height() - 4,
                    SvgWriter.MIN_FONT,
                    count > 0 ? "#000000" : "#999999",
                    false,
                    "\u03a3" + Cells.compact(count),
                    "count-label");
            svg.endGroup();
        }
        svg.endGroup();
        svg.newline();
    }

    private String cpuTooltip(int cpu, boolean usable) {
        CpuInfo info = topology.cpu(cpu).orElseThrow();
        String who = picture.mayUseWho();
        String why = usable
                ? who + " may use it"
                : topology.isolated().contains(cpu)
                        ? "isolated: " + who + " may not use it"
                        : topology.nohzFull().contains(cpu)
                                ? "nohz_full: " + who + " may not use it"
                                : who + " may not use it (--cpus, --exclude or the allowed set)";
        return "CPU " + cpu + ", node " + info.node() + ", package " + info.packageId() + ", siblings "
                + info.siblings() + "; " + why;
    }
}
