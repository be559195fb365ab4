// SPDX-License-Identifier: Apache-2.0
package io.numaspread.cli.picture;

import io.numaspread.topology.NumaNode;
import java.util.List;
import java.util.function.IntPredicate;

/** The node distance matrix, as {@code numactl -H} shows it, the origins' rows shaded. */
final class DistanceTable {
    private static final double SIZE = 10;
    private static final double ROW_HEIGHT = 14;

    private DistanceTable() {}

    /** Draws the matrix of {@code nodes} from (x, y); nothing without nodes. */
    static Extent draw(SvgWriter svg, List<NumaNode> nodes, IntPredicate isOrigin, double x, double y) {
        if (nodes.isEmpty()) {
            return new Extent(x, y);
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
        double cell = SvgWriter.textWidth("0".repeat(widest), SIZE) + 10;
        svg.startGroup("distances", "");
        svg.newline();
        String heading = "node distances";
        svg.text(x, y + 9.5, SIZE, "#000000", true, heading, "distance-title");
        double top = y + 15;
        for (int col = 0; col < nodes.size(); col++) {
            svg.text(
                    x + (col + 1) * cell + 3,
                    top + 10,
                    SIZE,
                    "#555555",
                    true,
                    Integer.toString(nodes.get(col).id()),
                    "distance-head");
        }
        for (int row = 0; row < nodes.size(); row++) {
            NumaNode from = nodes.get(row);
            double rowY = top + (row + 1) * ROW_HEIGHT;
            if (isOrigin.test(from.id())) {
                svg.rect(
                        "distance-origin",
                        x,
                        rowY,
                        (nodes.size() + 1) * cell,
                        ROW_HEIGHT,
                        Colours.LEVELS.get(3),
                        "none",
                        "");
            }
            svg.text(x + 3, rowY + 10, SIZE, "#555555", true, Integer.toString(from.id()), "distance-head");
            for (int col = 0; col < nodes.size(); col++) {
                int distance = from.distances().get(col);
                svg.text(
                        x + (col + 1) * cell + 3,
                        rowY + 10,
                        SIZE,
                        "#000000",
                        false,
                        distance == 0 ? "?" : Integer.toString(distance),
                        "distance-value");
            }
        }
        svg.endGroup();
        svg.newline();
        double width = Math.max((nodes.size() + 1) * cell, SvgWriter.textWidth(heading, SIZE));
        return new Extent(x + width, y + (15 + (nodes.size() + 1) * ROW_HEIGHT));
    }
}
