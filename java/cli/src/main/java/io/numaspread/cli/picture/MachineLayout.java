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
import java.util.Map;
import java.util.OptionalInt;
import java.util.TreeMap;

/**
 * Where the machine's boxes go: packages holding the parts of the NUMA nodes in them, nodes holding their cores,
 * cores their CPU cells. Every size is fixed (a CPU cell is {@link #CELL_W} px wide whatever the machine), and
 * the picture grows instead: nodes wrap their cores into rows of about {@link #CPUS_PER_ROW} CPUs, and packages
 * and nodes flow left to right and wrap at {@link #MAX_WIDTH}, so that text never shrinks on 512 CPUs. Nodes
 * go in nearest-neighbour order. Pure geometry; {@link MachineDrawing} draws what it places.
 */
final class MachineLayout {
    static final double MAX_WIDTH = 1600;
    static final double CELL_W = 42;
    static final double PAD = 6;
    static final double CORE_PAD = 3;
    static final double NODE_HEADER = 36;
    static final double PACKAGE_HEADER = 22;

    private static final double GAP = 8;
    /** Cells per row in a node before its cores wrap to the next row. */
    private static final int CPUS_PER_ROW = 16;

    private static final double LEFT = 10;
    private static final double TOP = 56;

    /** A package's box or a node's. */
    sealed interface Box permits NodePart, PackageBox {
        double width();

        double height();
    }

    /** A node's CPUs within one package: the box drawn for it. */
    record NodePart(
            int node,
            int packageId,
            boolean partial,
            CpuSet cpus,
            List<CpuSet> cores,
            int columns,
            double coreWidth,
            double width,
            double height)
            implements Box {}

    /** A package's box: its nodes' CPUs in it. */
    record PackageBox(int id, List<NodePart> parts, double width, double height) implements Box {}

    /** Something with its top left corner at (x, y). */
    record Placed<T>(T item, double x, double y) {}

    /** The machine's boxes where they go, and how far they reach. */
    record Placement(List<Placed<Box>> boxes, Extent extent) {}

    private final Topology topology;
    private final NodeLabels labels;
    private final double cellHeight;

    MachineLayout(NodeLabels labels, double cellHeight) {
        this.topology = labels.picture().topology();
        this.labels = labels;
        this.cellHeight = cellHeight;
    }

    /** The packages, then the nodes without online CPUs, from the top left below the titles. */
    Placement place() {
        List<Box> topLevel = new ArrayList<>(packages());
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
                        headerWidth(node.id(), false, CpuSet.EMPTY),
                        NODE_HEADER + PAD));
            }
        }
        List<Placed<Box>> placed = flow(topLevel, LEFT, TOP, MAX_WIDTH, 12);
        double right =
                placed.stream().mapToDouble(p -> p.x() + p.item().width()).max().orElse(LEFT);
        double bottom = placed.stream()
                .mapToDouble(p -> p.y() + p.item().height())
                .max()
                .orElse(TOP);
        return new Placement(placed, new Extent(right, bottom));
    }

    /** The node parts of a package whose box is at (x, y). */
    static List<Placed<NodePart>> nodesIn(PackageBox box, double x, double y) {
        return flow(box.parts(), x + PAD, y + PACKAGE_HEADER, MAX_WIDTH - 2 * PAD, GAP);
    }

    /** The cores of a node part whose box is at (x, y), in rows of {@link NodePart#columns()}. */
    List<Placed<CpuSet>> coresIn(NodePart part, double x, double y) {
        List<Placed<CpuSet>> cores = new ArrayList<>();
        for (int i = 0; i < part.cores().size(); i++) {
            double coreX = x + PAD + (i % part.columns()) * (part.coreWidth() + 4);
            double coreY = y + NODE_HEADER + (i / part.columns()) * (cellHeight + 2 * CORE_PAD + 4);
            cores.add(new Placed<>(part.cores().get(i), coreX, coreY));
        }
        return cores;
    }

    /** The CPU cells of a core whose box is at (x, y), side by side. */
    static List<Placed<Integer>> cpusIn(CpuSet core, double x, double y) {
        List<Placed<Integer>> cpus = new ArrayList<>();
        int[] ids = core.toArray();
        for (int i = 0; i < ids.length; i++) {
            cpus.add(new Placed<>(ids[i], x + CORE_PAD + i * (CELL_W + 2), y + CORE_PAD));
        }
        return cpus;
    }

    static double coreBoxWidth(CpuSet core) {
        return 2 * CORE_PAD + core.size() * CELL_W + (core.size() - 1) * 2;
    }

    double coreBoxHeight() {
        return cellHeight + 2 * CORE_PAD;
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
            result.add(packageBox(pkg, parts));
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
        double width = Math.max(2 * PAD + gridWidth, headerWidth(node, partial, here));
        double height = NODE_HEADER + rows * (cellHeight + 2 * CORE_PAD) + (rows - 1) * 4 + PAD;
        return new NodePart(node, packageId, partial, here, coreSets, columns, coreWidth, width, height);
    }

    private double headerWidth(int node, boolean partial, CpuSet cpus) {
        return 2 * PAD + labels.headerTextWidth(node, partial, cpus);
    }

    /** A package's box, as large as its node parts placed in it and its title. */
    private static PackageBox packageBox(int id, List<NodePart> parts) {
        List<Placed<NodePart>> placed = flow(parts, 0, 0, MAX_WIDTH - 2 * PAD, GAP);
        double width =
                placed.stream().mapToDouble(p -> p.x() + p.item().width()).max().orElse(0);
        double height = placed.stream()
                .mapToDouble(p -> p.y() + p.item().height())
                .max()
                .orElse(0);
        return new PackageBox(
                id,
                parts,
                Math.max(
                        width + 2 * PAD,
                        SvgWriter.textWidth(NodeLabels.packageTitle(parts.get(0).packageId()), NodeLabels.TITLE_SIZE)
                                + 2 * PAD),
                PACKAGE_HEADER + height + PAD);
    }

    /** Left to right from (x, y), wrapping before {@code maxWidth}; each row as tall as its tallest box. */
    private static <T extends Box> List<Placed<T>> flow(
            List<? extends T> items, double x, double y, double maxWidth, double gap) {
        List<Placed<T>> placed = new ArrayList<>();
        double cursorX = x;
        double rowTop = y;
        double rowHeight = 0;
        for (T item : items) {
            if (cursorX > x && cursorX + item.width() > x + maxWidth) {
                cursorX = x;
                rowTop += rowHeight + gap;
                rowHeight = 0;
            }
            placed.add(new Placed<>(item, cursorX, rowTop));
            cursorX += item.width() + gap;
            rowHeight = Math.max(rowHeight, item.height());
        }
        return placed;
    }
}
