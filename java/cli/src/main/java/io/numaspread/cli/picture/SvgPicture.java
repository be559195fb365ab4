// SPDX-License-Identifier: Apache-2.0
package io.numaspread.cli.picture;

import io.numaspread.CpuSet;
import io.numaspread.topology.CpuInfo;
import io.numaspread.topology.NumaNode;
import io.numaspread.topology.Topology;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalInt;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Function;

/**
 * Draws a {@link MachinePicture} as plain SVG text: packages holding NUMA nodes holding cores holding CPUs, each
 * CPU a cell with a chip per queue planned on it, per vector the kernel delivers there and per thread running
 * there, then a legend, the node distances and the lists the chips stand for.
 *
 * <p>Every size is fixed (a CPU cell is 42 px wide whatever the machine), and the picture grows instead:
 * nodes wrap their cores into rows of about 16 CPUs, and packages and nodes flow left to right and wrap at
 * {@link #MAX_WIDTH}. So text never shrinks below {@link #MIN_FONT} px on 512 CPUs. Text is monospace, whose
 * advance is {@link #CHAR_EM} of the font size, so the layout knows every label's width. Coordinates are
 * absolute (no transforms) and every drawn thing is a {@code g} with a class and {@code data-} attributes, so
 * that tests (and people) can check what is where.
 */
public final class SvgPicture {
    /** The smallest font used anywhere. */
    public static final double MIN_FONT = 9;
    /** The advance of one character of the monospace font, in ems (DejaVu Sans Mono: 0.602). */
    public static final double CHAR_EM = 0.61;

    static final double MAX_WIDTH = 1600;

    private static final String FONT = "DejaVu Sans Mono,Menlo,Consolas,monospace";
    private static final double CELL_W = 42;
    private static final double CHIP_W = 36;
    private static final double CHIP_H = 11;
    private static final double CHIP_GAP = 2;
    /** Chips beyond this many in one cell fold into a "+N" chip (every cell is as tall as the fullest one). */
    private static final int MAX_CHIP_ROWS = 8;

    private static final int CHIP_CHARS = 6;
    private static final double PAD = 6;
    private static final double GAP = 8;
    private static final double CORE_PAD = 3;
    private static final double NODE_HEADER = 36;
    private static final double PACKAGE_HEADER = 22;
    /** Cells per row in a node before its cores wrap to the next row. */
    private static final int CPUS_PER_ROW = 16;

    private static final String[] LEVEL_COLOURS = {"#74c476", "#a1d99b", "#c7e9c0", "#e5f5e0"};
    private static final String FAR_COLOUR = "#e7e7e7";
    private static final String QUEUE_SLOT = "#2166ac";
    private static final String QUEUE_GROUP = "#9ecae1";
    private static final String ON_PLAN = "#1a9850";
    private static final String OFF_PLAN = "#d73027";
    private static final String CONTROL = "#8c8c8c";
    private static final String THREAD = "#762a83";

    private final MachinePicture picture;
    private final Topology topology;
    private final Map<Integer, List<Chip>> chipsByCpu = new TreeMap<>();
    private final Map<Integer, Long> interruptsByCpu = new TreeMap<>();
    private final int chipRows;
    private final boolean showCounts;
    private final double cellH;
    private final StringBuilder svg = new StringBuilder();

    /**
     * One mark inside a CPU cell.
     *
     * @param rank which chips stay visible when a cell has too many: lowest first
     * @param name how a folded chip is listed on its "+N" chip ("queue:2", "irq:51", "thread:4250")
     */
    private record Chip(
            int rank,
            String kind,
            String name,
            String label,
            String fill,
            String textFill,
            String stroke,
            String data,
            String tooltip) {
        /** A sample chip for the legend. */
        Chip(String label, String fill, String textFill, String stroke) {
            this(0, "legend", "", label, fill, textFill, stroke, "", "");
        }
    }

    /** A node's CPUs within one package: the box drawn for it. */
    private record NodePart(
            int node,
            int packageId,
            boolean partial,
            CpuSet cpus,
            List<CpuSet> cores,
            int columns,
            double coreWidth,
            double width,
            double height) {}

    /** A package's box: its nodes' CPUs in it. */
    private record PackageBox(int id, List<NodePart> parts) {}

    private record LegendItem(Chip sample, String text) {}

    private record Placed<T>(T item, double x, double y) {}

    private SvgPicture(MachinePicture picture) {
        this.picture = picture;
        this.topology = picture.topology();
        collectChips();
        int most = chipsByCpu.values().stream().mapToInt(List::size).max().orElse(0);
        this.chipRows = Math.min(MAX_CHIP_ROWS, most);
        this.showCounts = !picture.vectors().isEmpty();
        this.cellH = 16 + chipRows * (CHIP_H + CHIP_GAP) + (showCounts ? 12 : 0) + 2;
    }

    /** The SVG document for {@code picture}. */
    public static String render(MachinePicture picture) {
        return new SvgPicture(picture).draw();
    }

    private void collectChips() {
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
                add(
                        cpu,
                        new Chip(
                                slot ? 0 : 4,
                                "queue",
                                "queue:" + queue.index(),
                                label,
                                slot ? QUEUE_SLOT : QUEUE_GROUP,
                                slot ? "#ffffff" : "#08306b",
                                offPlan ? OFF_PLAN : "none",
                                "data-queue=\"" + queue.index() + "\" data-origin=\"" + queue.origin()
                                        + "\" data-slot=\"" + slot + "\" data-delivered=\""
                                        + (offPlan ? "off-plan" : "on-plan") + "\"",
                                "queue " + queue.index() + originName(queue.origin()) + " planned on " + queue.cpus()
                                        + (slot ? " (slot CPU " + cpu + ")" : "")
                                        + (offPlan ? "; a vector of it is delivered elsewhere" : "")));
            });
        }
        for (MachinePicture.Vector vector : picture.vectors()) {
            vector.counts().forEach((cpu, count) -> interruptsByCpu.merge(cpu, count, Long::sum));
            if (vector.effective().isEmpty()) {
                continue;
            }
            String state = vector.queue().isEmpty() ? "control" : vector.deliveredOffPlan() ? "off-plan" : "on-plan";
            String fill = switch (state) {
                case "control" -> CONTROL;
                case "off-plan" -> OFF_PLAN;
                default -> ON_PLAN;
            };
            String tooltip = "IRQ " + vector.irq() + " " + vector.name() + ": effective "
                    + vector.effective().get()
                    + ", smp_affinity_list " + vector.affinity()
                    + vector.planned().map(p -> ", planned " + p).orElse(" (not a queue vector)") + ", "
                    + vector.total() + " interrupts";
            int rank = switch (state) {
                case "off-plan" -> 1;
                case "on-plan" -> 2;
                default -> 5;
            };
            vector.effective()
                    .get()
                    .forEachCpu(cpu -> add(
                            cpu,
                            new Chip(
                                    rank,
                                    "irq",
                                    "irq:" + vector.irq(),
                                    clip("i" + vector.irq()),
                                    fill,
                                    "#ffffff",
                                    "none",
                                    "data-irq=\"" + vector.irq() + "\" data-state=\"" + state + "\"",
                                    tooltip)));
        }
        List<ThreadPlacement> threads = picture.threads();
        for (int i = 0; i < threads.size(); i++) {
            ThreadPlacement thread = threads.get(i);
            add(
                    thread.cpu(),
                    new Chip(
                            3,
                            "thread",
                            "thread:" + thread.tid(),
                            clip("L" + i),
                            THREAD,
                            "#ffffff",
                            "none",
                            "data-tid=\"" + thread.tid() + "\"",
                            "thread " + thread.tid() + " " + thread.name() + " on CPU " + thread.cpu() + ", allowed "
                                    + thread.allowed()));
        }
    }

    private String originName(int position) {
        return picture.origins().size() > 1
                ? " of origin node " + picture.origins().get(position)
                : "";
    }

    private void add(int cpu, Chip chip) {
        chipsByCpu.computeIfAbsent(cpu, c -> new ArrayList<>()).add(chip);
    }

    private static String clip(String label) {
        return label.length() <= CHIP_CHARS ? label : label.substring(0, CHIP_CHARS - 1) + "~";
    }

    // ---- layout and drawing ---------------------------------------------------------------------------------

    private String draw() {
        String subtitle = subtitle();
        List<Object> topLevel = new ArrayList<>(packages());
        for (NumaNode node : nodesInDistanceOrder()) {
            if (node.cpus().intersect(topology.online()).isEmpty()) {
                topLevel.add(new NodePart(
                        node.id(),
                        -1,
                        false,
                        CpuSet.EMPTY,
                        List.of(),
                        1,
                        0,
                        nodeHeaderWidth(node.id(), false, CpuSet.EMPTY),
                        NODE_HEADER + PAD));
            }
        }
        double top = 56;
        List<Placed<Object>> placed = flow(topLevel, this::sizeOf, 10, top, MAX_WIDTH, 12);
        double machineRight = placed.stream()
                .mapToDouble(p -> p.x() + sizeOf(p.item())[0])
                .max()
                .orElse(10);
        double machineBottom = placed.stream()
                .mapToDouble(p -> p.y() + sizeOf(p.item())[1])
                .max()
                .orElse(top);

        for (Placed<Object> p : placed) {
            if (p.item() instanceof NodePart part) {
                drawNodePart(part, p.x(), p.y());
            } else if (p.item() instanceof PackageBox pkg) {
                drawPackage(pkg, p.x(), p.y());
            }
        }
        double[] below = drawBelow(10, machineBottom + 20);
        String body = svg.toString();
        svg.setLength(0);

        double width = Math.ceil(Math.max(
                        Math.max(machineRight, below[0]),
                        Math.max(textWidth(picture.title(), 15), textWidth(subtitle, 11)) + 10)
                + 10);
        double height = Math.ceil(below[1] + 10);
        svg.append("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"")
                .append(num(width))
                .append("\" height=\"")
                .append(num(height))
                .append("\" viewBox=\"0 0 ")
                .append(num(width))
                .append(' ')
                .append(num(height))
                .append("\" font-family=\"")
                .append(FONT)
                .append("\">\n");
        rect("background", 0, 0, width, height, "#ffffff", "none", "");
        text(10, 22, 15, "#000000", true, picture.title(), "title");
        text(10, 38, 11, "#333333", false, subtitle, "subtitle");
        svg.append(body);
        svg.append("</svg>\n");
        return svg.toString();
    }

    private String subtitle() {
        long packages =
                topology.cpus().stream().map(CpuInfo::packageId).distinct().count();
        String online = topology.online().size() + " CPUs online"
                + (topology.possible().equals(topology.online())
                        ? ""
                        : " of " + topology.possible().size() + " possible (offline: "
                                + topology.possible().minus(topology.online()) + ", not drawn)");
        return online + ", " + topology.nodes().size() + " NUMA node"
                + plural(topology.nodes().size()) + ", "
                + packages + " package" + plural(packages) + "; " + picture.mayUseWho() + " may use "
                + picture.mayUse() + " (backend " + topology.backend().id() + ")";
    }

    /** The nodes' CPUs grouped by package, packages in the order of their nearest-chain position. */
    private List<PackageBox> packages() {
        List<Integer> order = nodesInDistanceOrder().stream().map(NumaNode::id).toList();
        Map<Integer, Map<Integer, List<CpuInfo>>> byPackage = new LinkedHashMap<>();
        List<CpuInfo> cpus = new ArrayList<>(topology.cpus());
        cpus.sort(Comparator.comparingInt((CpuInfo c) -> position(order, c.node()))
                .thenComparingInt(CpuInfo::id));
        for (CpuInfo cpu : cpus) {
            byPackage
                    .computeIfAbsent(cpu.packageId(), p -> new LinkedHashMap<>())
                    .computeIfAbsent(cpu.node(), n -> new ArrayList<>())
                    .add(cpu);
        }
        Map<Integer, Integer> partsOfNode = new TreeMap<>();
        byPackage.values().forEach(nodes -> nodes.keySet().forEach(n -> partsOfNode.merge(n, 1, Integer::sum)));
        List<PackageBox> result = new ArrayList<>();
        byPackage.forEach((pkg, nodes) -> {
            List<NodePart> parts = new ArrayList<>();
            nodes.forEach((node, nodeCpus) -> parts.add(nodePart(node, pkg, partsOfNode.get(node) > 1, nodeCpus)));
            result.add(new PackageBox(pkg, parts));
        });
        return result;
    }

    private static int position(List<Integer> order, int node) {
        int index = order.indexOf(node);
        return index < 0 ? Integer.MAX_VALUE : index;
    }

    /**
     * The nodes as a chain of nearest neighbours: start at the lowest node, then always the nearest node not yet
     * placed (ties to the lower id). On machines numbered by locality this is id order; where ids interleave
     * sockets, it keeps near nodes side by side.
     */
    private List<NumaNode> nodesInDistanceOrder() {
        List<NumaNode> left = new ArrayList<>(topology.nodes());
        List<NumaNode> chain = new ArrayList<>();
        if (left.isEmpty()) {
            return chain;
        }
        chain.add(left.remove(0));
        while (!left.isEmpty()) {
            NumaNode last = chain.get(chain.size() - 1);
            NumaNode nearest = left.get(0);
            int best = distanceOr(last.id(), nearest.id());
            for (NumaNode candidate : left) {
                int distance = distanceOr(last.id(), candidate.id());
                if (distance < best) {
                    best = distance;
                    nearest = candidate;
                }
            }
            left.remove(nearest);
            chain.add(nearest);
        }
        return chain;
    }

    private int distanceOr(int from, int to) {
        OptionalInt distance = topology.distance(from, to);
        return distance.isPresent() ? distance.getAsInt() : Integer.MAX_VALUE;
    }

    private NodePart nodePart(int node, int packageId, boolean partial, List<CpuInfo> cpus) {
        CpuSet.Builder builder = CpuSet.builder();
        cpus.forEach(cpu -> builder.add(cpu.id()));
        CpuSet here = builder.build();
        // A core is the CPU's sibling group within this box, named by its lowest CPU.
        Map<Integer, CpuSet.Builder> cores = new TreeMap<>();
        for (CpuInfo cpu : cpus) {
            int first = cpu.siblings().intersect(here).with(cpu.id()).first();
            cores.computeIfAbsent(first, f -> CpuSet.builder()).add(cpu.id());
        }
        List<CpuSet> coreSets =
                cores.values().stream().map(CpuSet.Builder::build).toList();
        int threads = coreSets.stream().mapToInt(CpuSet::size).max().orElse(1);
        double coreWidth = 2 * CORE_PAD + threads * CELL_W + (threads - 1) * 2;
        int maxColumns = Math.max(1, CPUS_PER_ROW / threads);
        int rows = (coreSets.size() + maxColumns - 1) / maxColumns;
        int columns = Math.max(1, (coreSets.size() + rows - 1) / Math.max(1, rows));
        double gridWidth = columns * coreWidth + (columns - 1) * 4;
        double width = Math.max(2 * PAD + gridWidth, nodeHeaderWidth(node, partial, here));
        double height = NODE_HEADER + rows * (cellH + 2 * CORE_PAD) + (rows - 1) * 4 + PAD;
        return new NodePart(node, packageId, partial, here, coreSets, columns, coreWidth, width, height);
    }

    private String nodeTitle(int node, boolean partial) {
        return (node < 0 ? "no node" : "node " + node) + (partial ? " (part)" : "");
    }

    private String nodeDetail(int node, CpuSet cpus) {
        String where = cpus.isEmpty() ? "no CPUs (memory only)" : "CPUs " + cpus;
        if (picture.origins().size() == 1 && node >= 0) {
            OptionalInt distance = topology.distance(picture.origins().get(0), node);
            if (distance.isPresent()) {
                where += " \u00b7 dist " + distance.getAsInt();
            }
        }
        return where;
    }

    private boolean isOrigin(int node) {
        return node >= 0 && picture.origins().contains(node);
    }

    private double nodeHeaderWidth(int node, boolean partial, CpuSet cpus) {
        double first = textWidth(nodeTitle(node, partial), 12)
                + (isOrigin(node) ? 8 + textWidth(picture.originLabel(), 10) + 6 : 0);
        return 2 * PAD + Math.max(first, textWidth(nodeDetail(node, cpus), 10));
    }

    private double[] sizeOf(Object item) {
        if (item instanceof NodePart part) {
            return new double[] {part.width(), part.height()};
        }
        List<NodePart> parts = ((PackageBox) item).parts();
        List<Placed<NodePart>> placed =
                flow(parts, p -> new double[] {p.width(), p.height()}, 0, 0, MAX_WIDTH - 2 * PAD, GAP);
        double width =
                placed.stream().mapToDouble(p -> p.x() + p.item().width()).max().orElse(0);
        double height = placed.stream()
                .mapToDouble(p -> p.y() + p.item().height())
                .max()
                .orElse(0);
        return new double[] {
            Math.max(width + 2 * PAD, textWidth(packageTitle(parts.get(0).packageId()), 12) + 2 * PAD),
            PACKAGE_HEADER + height + PAD
        };
    }

    /** Left to right from (x, y), wrapping before {@code maxWidth}; each row as tall as its tallest item. */
    private static <T> List<Placed<T>> flow(
            List<T> items, Function<T, double[]> size, double x, double y, double maxWidth, double gap) {
        List<Placed<T>> placed = new ArrayList<>();
        double cursorX = x;
        double rowTop = y;
        double rowHeight = 0;
        for (T item : items) {
            double[] wh = size.apply(item);
            if (cursorX > x && cursorX + wh[0] > x + maxWidth) {
                cursorX = x;
                rowTop += rowHeight + gap;
                rowHeight = 0;
            }
            placed.add(new Placed<>(item, cursorX, rowTop));
            cursorX += wh[0] + gap;
            rowHeight = Math.max(rowHeight, wh[1]);
        }
        return placed;
    }

    private static String packageTitle(int packageId) {
        return packageId < 0 ? "package unknown" : "package " + packageId;
    }

    private void drawPackage(PackageBox box, double x, double y) {
        int packageId = box.id();
        List<NodePart> parts = box.parts();
        double[] size = sizeOf(box);
        svg.append("<g class=\"package\" data-package=\"").append(packageId).append("\">\n");
        rect("package-box", x, y, size[0], size[1], "#fafafa", "#555555", "rx=\"6\"");
        text(x + PAD, y + 15, 12, "#333333", true, packageTitle(packageId), "package-title");
        for (Placed<NodePart> p : flow(
                parts,
                n -> new double[] {n.width(), n.height()},
                x + PAD,
                y + PACKAGE_HEADER,
                MAX_WIDTH - 2 * PAD,
                GAP)) {
            drawNodePart(p.item(), p.x(), p.y());
        }
        svg.append("</g>\n");
    }

    private void drawNodePart(NodePart part, double x, double y) {
        svg.append("<g class=\"node\" data-node=\"")
                .append(part.node())
                .append("\" data-package=\"")
                .append(part.packageId())
                .append("\">\n");
        rect("node-box", x, y, part.width(), part.height(), "#ffffff", "#333333", "rx=\"4\"");
        rect(
                "node-band",
                x + 1,
                y + 1,
                part.width() - 2,
                NODE_HEADER - 4,
                levelColour(part.node()),
                "none",
                "rx=\"3\"");
        String title = nodeTitle(part.node(), part.partial());
        text(x + PAD, y + 15, 12, "#000000", true, title, "node-title");
        if (isOrigin(part.node())) {
            double badgeX = x + PAD + textWidth(title, 12) + 8;
            double badgeWidth = textWidth(picture.originLabel(), 10) + 6;
            svg.append("<g class=\"origin\" data-node=\"").append(part.node()).append("\">");
            rect("origin-badge", badgeX, y + 5, badgeWidth, 13, "#000000", "none", "rx=\"3\"");
            text(badgeX + 3, y + 15, 10, "#ffffff", true, picture.originLabel(), "origin-label");
            svg.append("</g>\n");
        }
        text(x + PAD, y + 28, 10, "#222222", false, nodeDetail(part.node(), part.cpus()), "node-detail");
        for (int i = 0; i < part.cores().size(); i++) {
            double coreX = x + PAD + (i % part.columns()) * (part.coreWidth() + 4);
            double coreY = y + NODE_HEADER + (i / part.columns()) * (cellH + 2 * CORE_PAD + 4);
            drawCore(part.cores().get(i), coreX, coreY);
        }
        svg.append("</g>\n");
    }

    /** The node band's colour: by hop level from a single origin (darkest nearest), grey otherwise. */
    private String levelColour(int node) {
        if (picture.origins().size() != 1 || node < 0) {
            return FAR_COLOUR;
        }
        int origin = picture.origins().get(0);
        TreeSet<Integer> distances = new TreeSet<>();
        topology.nodes().stream()
                .filter(n -> !n.cpus().isEmpty() || n.id() == origin)
                .forEach(n -> topology.distance(origin, n.id()).ifPresent(distances::add));
        OptionalInt distance = topology.distance(origin, node);
        if (distance.isEmpty()) {
            return FAR_COLOUR;
        }
        int level = distances.headSet(distance.getAsInt()).size();
        return level < LEVEL_COLOURS.length ? LEVEL_COLOURS[level] : FAR_COLOUR;
    }

    private void drawCore(CpuSet core, double x, double y) {
        double width = 2 * CORE_PAD + core.size() * CELL_W + (core.size() - 1) * 2;
        svg.append("<g class=\"core\" data-cpus=\"").append(core).append("\">\n");
        rect("core-box", x, y, width, cellH + 2 * CORE_PAD, "#f0f0f0", "#999999", "rx=\"3\"");
        int[] ids = core.toArray();
        for (int i = 0; i < ids.length; i++) {
            drawCpu(ids[i], x + CORE_PAD + i * (CELL_W + 2), y + CORE_PAD);
        }
        svg.append("</g>\n");
    }

    private void drawCpu(int cpu, double x, double y) {
        boolean usable = picture.mayUse().contains(cpu);
        svg.append("<g class=\"cpu\" data-cpu=\"")
                .append(cpu)
                .append("\" data-may-use=\"")
                .append(usable)
                .append("\">");
        svg.append("<title>").append(escape(cpuTooltip(cpu, usable))).append("</title>");
        rect("cpu-box", x, y, CELL_W, cellH, usable ? "#ffffff" : "#d0d0d0", usable ? "#666666" : "#aaaaaa", "");
        text(x + 3, y + 12, 10, usable ? "#000000" : "#666666", true, Integer.toString(cpu), "cpu-label");
        List<Chip> chips = new ArrayList<>(chipsByCpu.getOrDefault(cpu, List.of()));
        chips.sort(Comparator.comparingInt(Chip::rank));
        boolean overflow = chips.size() > chipRows;
        int shown = overflow ? chipRows - 1 : chips.size();
        for (int i = 0; i < shown; i++) {
            drawChip(chips.get(i), cpu, x + 3, y + 16 + i * (CHIP_H + CHIP_GAP));
        }
        if (overflow) {
            int more = chips.size() - shown;
            List<Chip> folded = chips.subList(shown, chips.size());
            drawChip(
                    new Chip(
                            0,
                            "more",
                            "",
                            clip("+" + more),
                            "#ffffff",
                            "#000000",
                            "#000000",
                            "data-count=\"" + more + "\" data-folded=\""
                                    + String.join(
                                            " ", folded.stream().map(Chip::name).toList()) + "\"",
                            more + " more: "
                                    + chips.subList(shown, chips.size()).stream()
                                            .map(Chip::tooltip)
                                            .reduce((a, b) -> a + "; " + b)
                                            .orElse("")),
                    cpu,
                    x + 3,
                    y + 16 + shown * (CHIP_H + CHIP_GAP));
        }
        if (showCounts) {
            long count = interruptsByCpu.getOrDefault(cpu, 0L);
            svg.append("<g class=\"count\" data-cpu=\"")
                    .append(cpu)
                    .append("\" data-interrupts=\"")
                    .append(count)
                    .append("\">");
            text(
                    x + 3,
                    y + cellH - 4,
                    MIN_FONT,
                    count > 0 ? "#000000" : "#999999",
                    false,
                    "\u03a3" + compact(count),
                    "count-label");
            svg.append("</g>");
        }
        svg.append("</g>\n");
    }

    private String cpuTooltip(int cpu, boolean usable) {
        CpuInfo info = topology.cpu(cpu).orElseThrow();
        String why = usable
                ? picture.mayUseWho() + " may use it"
                : topology.isolated().contains(cpu)
                        ? "isolated: " + picture.mayUseWho() + " may not use it"
                        : topology.nohzFull().contains(cpu)
                                ? "nohz_full: " + picture.mayUseWho() + " may not use it"
                                : picture.mayUseWho() + " may not use it (--cpus, --exclude or the allowed set)";
        return "CPU " + cpu + ", node " + info.node() + ", package " + info.packageId() + ", siblings "
                + info.siblings() + "; " + why;
    }

    private void drawChip(Chip chip, int cpu, double x, double y) {
        svg.append("<g class=\"")
                .append(chip.kind())
                .append("\" data-cpu=\"")
                .append(cpu)
                .append("\" ")
                .append(chip.data())
                .append("><title>")
                .append(escape(chip.tooltip()))
                .append("</title>");
        rect(
                "chip",
                x,
                y,
                CHIP_W,
                CHIP_H,
                chip.fill(),
                chip.stroke(),
                "rx=\"2\"" + (chip.stroke().equals("none") ? "" : " stroke-width=\"1.5\" stroke-dasharray=\"3,1.5\""));
        text(x + 2, y + CHIP_H - 2.5, MIN_FONT, chip.textFill(), false, chip.label(), "chip-label");
        svg.append("</g>");
    }

    // ---- below the machine: legend, distances, lists --------------------------------------------------------

    /** Draws the legend and the distance matrix side by side, then the lists; returns {right, bottom}. */
    private double[] drawBelow(double x, double y) {
        double[] legend = drawLegend(x, y);
        double matrixX = x + legend[0] + 30;
        double[] matrix = drawDistances(matrixX, y);
        double right = matrixX + matrix[0];
        double bottom = Math.max(y + legend[1], y + matrix[1]) + 16;
        List<String[]> lines = new ArrayList<>();
        if (!picture.vectors().isEmpty()) {
            lines.add(new String[] {
                "heading", "vectors: IRQ, name, queue, planned, smp_affinity_list, effective," + " interrupts per CPU"
            });
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
                    // The IRQ and queue columns are right-aligned, as in the irqs table; the last is not padded.
                    String format = i == row.length - 1
                            ? "%s"
                            : i == 0 || i == 2 ? "%" + widths[i] + "s  " : "%-" + widths[i] + "s  ";
                    line.append(String.format(Locale.ROOT, format, row[i]));
                }
                lines.add(new String[] {row[6], "  " + line});
            }
        }
        if (picture.threadSource().isPresent()) {
            lines.add(new String[] {
                "heading",
                "threads of " + picture.threadSource().get() + ": "
                        + (picture.threads().isEmpty()
                                ? "none matched"
                                : picture.threads().size() + " matched")
            });
            for (int i = 0; i < picture.threads().size(); i++) {
                ThreadPlacement t = picture.threads().get(i);
                lines.add(new String[] {
                    "thread",
                    String.format(
                            Locale.ROOT,
                            "%-5s tid %-7d %-15s on CPU %-4d allowed %s",
                            "L" + i,
                            t.tid(),
                            t.name(),
                            t.cpu(),
                            t.allowed())
                });
            }
        }
        double listY = bottom;
        for (String[] line : lines) {
            boolean heading = line[0].equals("heading");
            String colour = line[0].equals("OFF PLAN") ? OFF_PLAN : heading ? "#000000" : "#222222";
            svg.append("<g class=\"list-line\" data-kind=\"")
                    .append(escape(line[0]))
                    .append("\">");
            text(x, listY + 11, 10, colour, heading, line[1], "list-text");
            svg.append("</g>\n");
            right = Math.max(right, x + textWidth(line[1], 10));
            listY += 14;
        }
        return new double[] {right, lines.isEmpty() ? bottom - 16 : listY};
    }

    private double[] drawLegend(double x, double y) {
        List<LegendItem> items = new ArrayList<>();
        String who = picture.mayUseWho();
        items.add(new LegendItem(new Chip("", "#ffffff", "#000000", "#666666"), "CPU " + who + " may use"));
        CpuSet unusable = topology.online().minus(picture.mayUse());
        if (!unusable.isEmpty()) {
            items.add(new LegendItem(
                    new Chip("", "#d0d0d0", "#000000", "#aaaaaa"), "CPU " + who + " may not use: " + unusable));
        }
        if (!picture.queues().isEmpty()) {
            items.add(new LegendItem(
                    new Chip("q0", QUEUE_SLOT, "#ffffff", "none"), "queue 0 planned here (its slot CPU)"));
            if (picture.queues().stream().anyMatch(q -> q.cpus().size() > 1)) {
                items.add(new LegendItem(
                        new Chip("q0", QUEUE_GROUP, "#08306b", "none"),
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
                items.add(new LegendItem(new Chip("q0a", QUEUE_SLOT, "#ffffff", "none"), suffixes.toString()));
            }
        }
        if (!picture.vectors().isEmpty()) {
            items.add(new LegendItem(
                    new Chip("i38", ON_PLAN, "#ffffff", "none"),
                    "IRQ 38 delivered here (effective_affinity_list), within its plan"));
            items.add(new LegendItem(
                    new Chip("i38", OFF_PLAN, "#ffffff", "none"),
                    "IRQ 38 delivered here, outside its plan; its queue's chips get a red outline"));
            items.add(new LegendItem(
                    new Chip("", "#ffffff", "#000000", "none"),
                    "(effective_affinity_list follows smp_affinity_list at the IRQ's next interrupt)"));
            items.add(new LegendItem(
                    new Chip("i37", CONTROL, "#ffffff", "none"),
                    "control or other vector delivered here (left alone)"));
            items.add(new LegendItem(
                    new Chip("\u03a3123", "#ffffff", "#000000", "none"),
                    "interrupts this NIC's vectors took on the CPU"));
        }
        if (picture.threadSource().isPresent()) {
            items.add(new LegendItem(
                    new Chip("L0", THREAD, "#ffffff", "none"), "thread L0 (listed below) ran here last"));
        }
        if (picture.origins().size() == 1) {
            items.add(new LegendItem(
                    new Chip("", LEVEL_COLOURS[0], "#000000", "none"),
                    "node band: darker is nearer node " + picture.origins().get(0) + "; dist = its distance"));
        }
        svg.append("<g class=\"legend\">\n");
        double width = 0;
        for (int i = 0; i < items.size(); i++) {
            Chip chip = items.get(i).sample();
            String label = items.get(i).text();
            double rowY = y + i * 15;
            rect("legend-swatch", x, rowY, CHIP_W, CHIP_H, chip.fill(), chip.stroke(), "rx=\"2\"");
            if (!chip.label().isEmpty()) {
                text(x + 2, rowY + CHIP_H - 2.5, MIN_FONT, chip.textFill(), false, chip.label(), "legend-chip");
            }
            text(x + CHIP_W + 6, rowY + 9.5, 10, "#000000", false, label, "legend-text");
            width = Math.max(width, CHIP_W + 6 + textWidth(label, 10));
        }
        svg.append("</g>\n");
        return new double[] {width, items.size() * 15};
    }

    private double[] drawDistances(double x, double y) {
        List<NumaNode> nodes = topology.nodes();
        if (nodes.isEmpty()) {
            return new double[] {0, 0};
        }
        int widest = nodes.stream()
                .flatMap(n -> n.distances().stream())
                .mapToInt(d -> Integer.toString(d).length())
                .max()
                .orElse(2);
        widest = Math.max(
                widest,
                nodes.stream()
                        .mapToInt(n -> Integer.toString(n.id()).length())
                        .max()
                        .orElse(1));
        double cell = textWidth("0".repeat(widest), 10) + 10;
        svg.append("<g class=\"distances\">\n");
        String heading = "node distances";
        text(x, y + 9.5, 10, "#000000", true, heading, "distance-title");
        double top = y + 15;
        for (int col = 0; col < nodes.size(); col++) {
            text(
                    x + (col + 1) * cell + 3,
                    top + 10,
                    10,
                    "#555555",
                    true,
                    Integer.toString(nodes.get(col).id()),
                    "distance-head");
        }
        for (int row = 0; row < nodes.size(); row++) {
            NumaNode from = nodes.get(row);
            double rowY = top + (row + 1) * 14;
            if (isOrigin(from.id())) {
                rect("distance-origin", x, rowY, (nodes.size() + 1) * cell, 14, LEVEL_COLOURS[3], "none", "");
            }
            text(x + 3, rowY + 10, 10, "#555555", true, Integer.toString(from.id()), "distance-head");
            for (int col = 0; col < nodes.size(); col++) {
                int distance = from.distances().get(col);
                text(
                        x + (col + 1) * cell + 3,
                        rowY + 10,
                        10,
                        "#000000",
                        false,
                        distance == 0 ? "?" : Integer.toString(distance),
                        "distance-value");
            }
        }
        svg.append("</g>\n");
        return new double[] {Math.max((nodes.size() + 1) * cell, textWidth(heading, 10)), 15 + (nodes.size() + 1) * 14};
    }

    // ---- SVG text -------------------------------------------------------------------------------------------

    private void rect(String cls, double x, double y, double w, double h, String fill, String stroke, String more) {
        svg.append("<rect class=\"")
                .append(cls)
                .append("\" x=\"")
                .append(num(x))
                .append("\" y=\"")
                .append(num(y))
                .append("\" width=\"")
                .append(num(w))
                .append("\" height=\"")
                .append(num(h))
                .append("\" fill=\"")
                .append(fill)
                .append("\" stroke=\"")
                .append(stroke)
                .append('"');
        if (!more.isEmpty()) {
            svg.append(' ').append(more);
        }
        svg.append("/>");
    }

    private void text(double x, double y, double size, String fill, boolean bold, String content, String cls) {
        svg.append("<text class=\"")
                .append(cls)
                .append("\" x=\"")
                .append(num(x))
                .append("\" y=\"")
                .append(num(y))
                .append("\" font-size=\"")
                .append(num(size))
                .append("\" fill=\"")
                .append(fill)
                .append('"');
        if (bold) {
            svg.append(" font-weight=\"bold\"");
        }
        // Runs of spaces line up the lists' columns; elsewhere the default whitespace handling is the same.
        svg.append(content.contains("  ") ? " xml:space=\"preserve\">" : ">")
                .append(escape(content))
                .append("</text>");
    }

    /** The width of {@code content} in the monospace font at {@code size} px. */
    public static double textWidth(String content, double size) {
        return content.codePointCount(0, content.length()) * CHAR_EM * size;
    }

    private static String num(double value) {
        return value == Math.rint(value) ? Long.toString((long) value) : String.format(Locale.ROOT, "%.1f", value);
    }

    private static String escape(String text) {
        StringBuilder out = new StringBuilder(text.length());
        for (char c : text.toCharArray()) {
            switch (c) {
                case '&' -> out.append("&amp;");
                case '<' -> out.append("&lt;");
                case '>' -> out.append("&gt;");
                case '"' -> out.append("&quot;");
                default -> out.append(c < 0x20 && c != '\t' ? '?' : c);
            }
        }
        return out.toString();
    }

    /** 950, 12k, 3.4M: what fits under a CPU. */
    static String compact(long count) {
        if (count < 1000) {
            return Long.toString(count);
        }
        String[] units = {"k", "M", "G", "T"};
        double value = count;
        int unit = -1;
        while (value >= 1000 && unit < units.length - 1) {
            value /= 1000;
            unit++;
        }
        return (value < 10 ? String.format(Locale.ROOT, "%.1f", value) : Long.toString(Math.round(value)))
                + units[unit];
    }

    private static String plural(long n) {
        return n == 1 ? "" : "s";
    }
}
