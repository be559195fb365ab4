// SPDX-License-Identifier: Apache-2.0
package io.numaspread.cli.picture;

import io.numaspread.topology.CpuInfo;
import io.numaspread.topology.Topology;
import java.util.ArrayList;
import java.util.List;

/**
 * Draws a {@link MachinePicture} as plain SVG text: packages holding NUMA nodes holding cores holding CPUs, each
 * CPU a cell with a chip per queue planned on it, per vector the kernel delivers there and per thread running
 * there, then a legend, the node distances and the lists the chips stand for.
 *
 * <p>The layers are apart: {@link Cells} gathers each cell's chips from {@link NicMarks} and {@link ThreadMarks},
 * {@link MachineLayout} places the boxes, {@link MachineDrawing} draws the machine, {@link Legend},
 * {@link DistanceTable} and {@link ListLine} what is below it, all into an {@link SvgWriter}.
 */
public final class SvgPicture {
    private static final double TITLE_SIZE = 15;
    private static final double SUBTITLE_SIZE = 11;
    private static final double MARGIN = 10;

    private SvgPicture() {}

    /** The SVG document for {@code picture}. */
    public static String render(MachinePicture picture) {
        NodeLabels labels = new NodeLabels(picture);
        Cells cells = Cells.of(picture);
        MachineLayout layout = new MachineLayout(labels, cells.height());
        MachineLayout.Placement machine = layout.place();

        SvgWriter body = new SvgWriter();
        new MachineDrawing(picture, labels, cells, layout).draw(body, machine.boxes());
        Extent below = drawBelow(body, picture, labels, MARGIN, machine.extent().bottom() + 20);

        String subtitle = subtitle(picture);
        double width = Math.ceil(Math.max(
                        Math.max(machine.extent().right(), below.right()),
                        Math.max(
                                        SvgWriter.textWidth(picture.title(), TITLE_SIZE),
                                        SvgWriter.textWidth(subtitle, SUBTITLE_SIZE))
                                + MARGIN)
                + MARGIN);
        double height = Math.ceil(below.bottom() + MARGIN);
        SvgWriter page = new SvgWriter();
        page.startDocument(width, height);
        page.rect("background", 0, 0, width, height, "#ffffff", "none", "");
        page.text(MARGIN, 22, TITLE_SIZE, "#000000", true, picture.title(), "title");
        page.text(MARGIN, 38, SUBTITLE_SIZE, "#333333", false, subtitle, "subtitle");
        page.include(body);
        page.endDocument();
        return page.toString();
    }

    private static String subtitle(MachinePicture picture) {
        Topology topology = picture.topology();
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

    /** The legend and the distance matrix side by side from (x, y), then the lists below them. */
    private static Extent drawBelow(SvgWriter svg, MachinePicture picture, NodeLabels labels, double x, double y) {
        Extent legend = Legend.draw(svg, Legend.items(picture), x, y);
        double matrixX = legend.right() + 30;
        Extent matrix = DistanceTable.draw(svg, picture.topology().nodes(), labels::isOrigin, matrixX, y);
        double bottom = Math.max(legend.bottom(), matrix.bottom()) + 16;
        List<ListLine> lines = new ArrayList<>(NicMarks.lines(picture));
        lines.addAll(ThreadMarks.lines(picture));
        Extent lists = ListLine.drawAll(svg, lines, x, bottom, matrix.right());
        return new Extent(lists.right(), lines.isEmpty() ? bottom - 16 : lists.bottom());
    }

    private static String plural(long n) {
        return n == 1 ? "" : "s";
    }
}
