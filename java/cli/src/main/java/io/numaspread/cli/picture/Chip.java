// SPDX-License-Identifier: Apache-2.0
package io.numaspread.cli.picture;

import java.util.List;
import java.util.stream.Collectors;

/**
 * One mark inside a CPU cell: a queue planned there, a vector the kernel delivers there, a thread that ran there,
 * or the "+N" chip that stands for those a full cell cannot show; also a legend's sample of one.
 *
 * @param rank which chips stay visible when a cell has too many: lowest first
 * @param kind its group's class: "queue", "irq", "thread", "more"; "legend" for a sample
 * @param name how a folded chip is listed on its "+N" chip ("queue:2", "irq:51", "thread:4250")
 * @param data its group's {@code data-} attributes, written out
 */
record Chip(
        int rank,
        String kind,
        String name,
        String label,
        String fill,
        String textFill,
        String stroke,
        String data,
        String tooltip) {
    static final double WIDTH = 36;
    static final double HEIGHT = 11;
    /** Between two chips of a cell, one above the other. */
    static final double GAP = 2;

    private static final int LABEL_CHARS = 6;

    /** A chip on the cell of {@code cpu}. */
    record OnCpu(int cpu, Chip chip) {}

    /** A sample chip for the legend. */
    Chip(String label, String fill, String textFill, String stroke) {
        this(0, "legend", "", label, fill, textFill, stroke, "", "");
    }

    /** {@code label} as it fits on a chip: cut, and ending in "~", when it is longer. */
    static String clip(String label) {
        return label.length() <= LABEL_CHARS ? label : label.substring(0, LABEL_CHARS - 1) + "~";
    }

    /** The "+N" chip that stands for {@code folded}, naming them and telling what each is. */
    static Chip folding(List<Chip> folded) {
        int more = folded.size();
        return new Chip(
                0,
                "more",
                "",
                clip("+" + more),
                "#ffffff",
                "#000000",
                "#000000",
                "data-count=\"" + more + "\" data-folded=\""
                        + folded.stream().map(Chip::name).collect(Collectors.joining(" ")) + "\"",
                more + " more: " + folded.stream().map(Chip::tooltip).collect(Collectors.joining("; ")));
    }

    /** Draws it with its top left corner at (x, y) in the cell of {@code cpu}. */
    void draw(SvgWriter svg, int cpu, double x, double y) {
        svg.startGroup(kind, "data-cpu=\"" + cpu + "\" " + data);
        svg.title(tooltip);
        svg.rect(
                "chip",
                x,
                y,
                WIDTH,
                HEIGHT,
                fill,
                stroke,
                "rx=\"2\"" + (stroke.equals("none") ? "" : " stroke-width=\"1.5\" stroke-dasharray=\"3,1.5\""));
        svg.text(x + 2, y + HEIGHT - 2.5, SvgWriter.MIN_FONT, textFill, false, label, "chip-label");
        svg.endGroup();
    }
}
