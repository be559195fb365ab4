// SPDX-License-Identifier: Apache-2.0
package io.numaspread.cli.picture;

import io.numaspread.CpuSet;
import java.util.ArrayList;
import java.util.List;

/** The legend: a sample chip and what it means, for each kind of mark the picture holds. */
final class Legend {
    private static final double ROW_HEIGHT = 15;
    private static final double SIZE = 10;

    /** A line of the legend. */
    record Item(Chip sample, String text) {}

    private Legend() {}

    /** The cells' two kinds, the NIC's chips, the threads' and, with a single origin, the node bands. */
    static List<Item> items(MachinePicture picture) {
        List<Item> items = new ArrayList<>();
        String who = picture.mayUseWho();
        items.add(new Item(new Chip("", "#ffffff", "#000000", "#666666"), "CPU " + who + " may use"));
        CpuSet unusable = picture.topology().online().minus(picture.mayUse());
        if (!unusable.isEmpty()) {
            items.add(new Item(
                    new Chip("", "#d0d0d0", "#000000", "#aaaaaa"), "CPU " + who + " may not use: " + unusable));
        }
        items.addAll(NicMarks.legend(picture));
        items.addAll(ThreadMarks.legend(picture));
        if (picture.origins().size() == 1) {
            items.add(new Item(
                    new Chip("", Colours.LEVELS.get(0), "#000000", "none"),
                    "node band: darker is nearer node " + picture.origins().get(0) + "; dist = its distance"));
        }
        return items;
    }

    /** Draws {@code items} one below the other from (x, y). */
    static Extent draw(SvgWriter svg, List<Item> items, double x, double y) {
        svg.startGroup("legend", "");
        svg.newline();
        double width = 0;
        for (int i = 0; i < items.size(); i++) {
            Chip chip = items.get(i).sample();
            String label = items.get(i).text();
            double rowY = y + i * ROW_HEIGHT;
            svg.rect("legend-swatch", x, rowY, Chip.WIDTH, Chip.HEIGHT, chip.fill(), chip.stroke(), "rx=\"2\"");
            if (!chip.label().isEmpty()) {
                svg.text(
                        x + 2,
                        rowY + Chip.HEIGHT - 2.5,
                        SvgWriter.MIN_FONT,
                        chip.textFill(),
                        false,
                        chip.label(),
                        "legend-chip");
            }
            svg.text(x + Chip.WIDTH + 6, rowY + 9.5, SIZE, "#000000", false, label, "legend-text");
            width = Math.max(width, Chip.WIDTH + 6 + SvgWriter.textWidth(label, SIZE));
        }
        svg.endGroup();
        svg.newline();
        return new Extent(x + width, y + items.size() * ROW_HEIGHT);
    }
}
