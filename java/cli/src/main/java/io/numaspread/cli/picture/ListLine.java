// SPDX-License-Identifier: Apache-2.0
package io.numaspread.cli.picture;

import java.util.List;

/**
 * A line of the lists below the machine, which tell what the chips stand for.
 *
 * @param kind its group's {@code data-kind}: "heading", "thread", or a vector's state ("on plan", "OFF PLAN",
 *     "control"), which also picks its colour
 */
record ListLine(String kind, String text) {
    private static final double SIZE = 10;
    private static final double LINE_HEIGHT = 14;

    static ListLine heading(String text) {
        return new ListLine("heading", text);
    }

    /**
     * Draws {@code lines} one below the other from (x, top).
     *
     * @return the right edge of the widest, at least {@code right}, and the bottom of the last
     */
    static Extent drawAll(SvgWriter svg, List<ListLine> lines, double x, double top, double right) {
        double y = top;
        double widest = right;
        for (ListLine line : lines) {
            boolean heading = line.kind().equals("heading");
            String colour = line.kind().equals("OFF PLAN") ? Colours.OFF_PLAN : heading ? "#000000" : "#222222";
            svg.startGroup("list-line", "data-kind=\"" + SvgWriter.escape(line.kind()) + "\"");
            svg.text(x, y + 11, SIZE, colour, heading, line.text(), "list-text");
            svg.endGroup();
            svg.newline();
            widest = Math.max(widest, x + SvgWriter.textWidth(line.text(), SIZE));
            y += LINE_HEIGHT;
        }
        return new Extent(widest, y);
    }
}
