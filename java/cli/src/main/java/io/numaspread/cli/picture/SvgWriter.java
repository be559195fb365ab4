// SPDX-License-Identifier: Apache-2.0
package io.numaspread.cli.picture;

import java.util.Locale;

/**
 * A picture's SVG text, element by element: rectangles and texts at absolute coordinates (no transforms) and
 * groups with a class and {@code data-} attributes, so that tests (and people) can check what is where. Numbers
 * take as few digits as they need, one decimal at most; text is escaped. Text is monospace, whose advance is
 * {@link #CHAR_EM} of the font size, so {@link #textWidth} knows every label's width.
 */
final class SvgWriter {
    /** The smallest font used anywhere. */
    static final double MIN_FONT = 9;
    /** The advance of one character of the monospace font, in ems (DejaVu Sans Mono: 0.602). */
    static final double CHAR_EM = 0.61;

    private static final String FONT = "DejaVu Sans Mono,Menlo,Consolas,monospace";

    private final StringBuilder svg = new StringBuilder();

    /** The {@code svg} element's start: the picture's size and the font of all its text. */
    void startDocument(double width, double height) {
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
    }

    void endDocument() {
        svg.append("</svg>\n");
    }

    /** A group's start tag; {@code data} is its {@code data-} attributes, already written out, or empty. */
    void startGroup(String cls, String data) {
        svg.append("<g class=\"").append(cls).append('"');
        if (!data.isEmpty()) {
            svg.append(' ').append(data);
        }
        svg.append('>');
    }

    void endGroup() {
        svg.append("</g>");
    }

    /** A line break between elements: it changes nothing drawn, and keeps the text readable. */
    void newline() {
        svg.append('\n');
    }

    /** The tooltip of the group just started. */
    void title(String tooltip) {
        svg.append("<title>").append(escape(tooltip)).append("</title>");
    }

    /** The elements another writer holds, in place. */
    void include(SvgWriter other) {
        svg.append(other.svg);
    }

    /** {@code more} is further attributes, already written out, or empty. */
    void rect(String cls, double x, double y, double w, double h, String fill, String stroke, String more) {
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

    /** A text whose baseline starts at (x, y). */
    void text(double x, double y, double size, String fill, boolean bold, String content, String cls) {
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

    @Override
    public String toString() {
        return svg.toString();
    }

    /** The width of {@code content} in the monospace font at {@code size} px. */
    static double textWidth(String content, double size) {
        return content.codePointCount(0, content.length()) * CHAR_EM * size;
    }

    static String escape(String text) {
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

    private static String num(double value) {
        return value == Math.rint(value) ? Long.toString((long) value) : String.format(Locale.ROOT, "%.1f", value);
    }
}
