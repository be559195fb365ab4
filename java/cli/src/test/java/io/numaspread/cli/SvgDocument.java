// SPDX-License-Identifier: Apache-2.0
package io.numaspread.cli;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import javax.xml.parsers.DocumentBuilderFactory;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;

/** A picture parsed as XML, with the geometry the tests check. */
record SvgDocument(Document document) {
    /** A rectangle in picture coordinates. */
    record Box(double x, double y, double width, double height) {
        boolean contains(Box other) {
            double slack = 0.01;
            return other.x >= x - slack
                    && other.y >= y - slack
                    && other.x + other.width <= x + width + slack
                    && other.y + other.height <= y + height + slack;
        }

        boolean overlaps(Box other) {
            return x < other.x + other.width
                    && other.x < x + width
                    && y < other.y + other.height
                    && other.y < y + height;
        }
    }

    static SvgDocument parse(String svg) {
        try {
            DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
            factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
            return new SvgDocument(
                    factory.newDocumentBuilder().parse(new ByteArrayInputStream(svg.getBytes(StandardCharsets.UTF_8))));
        } catch (Exception e) {
            throw new AssertionError("the picture is not well-formed XML: " + e, e);
        }
    }

    Element root() {
        return document.getDocumentElement();
    }

    double width() {
        return Double.parseDouble(root().getAttribute("width"));
    }

    double height() {
        return Double.parseDouble(root().getAttribute("height"));
    }

    /** Every {@code g} of class {@code cls}. */
    List<Element> groups(String cls) {
        List<Element> found = new ArrayList<>();
        NodeList all = document.getElementsByTagName("g");
        for (int i = 0; i < all.getLength(); i++) {
            Element g = (Element) all.item(i);
            if (g.getAttribute("class").equals(cls)) {
                found.add(g);
            }
        }
        return found;
    }

    List<Element> texts() {
        List<Element> found = new ArrayList<>();
        NodeList all = document.getElementsByTagName("text");
        for (int i = 0; i < all.getLength(); i++) {
            found.add((Element) all.item(i));
        }
        return found;
    }

    /** The CPU cell of {@code cpu}. */
    Element cpu(int cpu) {
        return groups("cpu").stream()
                .filter(g -> g.getAttribute("data-cpu").equals(Integer.toString(cpu)))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no cell for CPU " + cpu));
    }

    /** The first {@code rect} child of {@code g}: the box it draws. */
    static Box box(Element g) {
        for (Node child = g.getFirstChild(); child != null; child = child.getNextSibling()) {
            if (child instanceof Element e && e.getTagName().equals("rect")) {
                return new Box(number(e, "x"), number(e, "y"), number(e, "width"), number(e, "height"));
            }
        }
        return fail("a " + g.getAttribute("class") + " group without a rect");
    }

    /** The nearest enclosing {@code g} of class {@code cls}. */
    static Element enclosing(Element element, String cls) {
        for (Node parent = element.getParentNode(); parent instanceof Element e; parent = e.getParentNode()) {
            if (e.getTagName().equals("g") && e.getAttribute("class").equals(cls)) {
                return e;
            }
        }
        return fail("no " + cls + " around " + element.getAttribute("class"));
    }

    static double fontSize(Element text) {
        return number(text, "font-size");
    }

    /** A text's box from its monospace advance: the glyphs span about 0.8 em above the baseline and 0.2 below. */
    static Box textBox(Element text) {
        double size = fontSize(text);
        String content = text.getTextContent();
        double width = content.codePointCount(0, content.length()) * 0.61 * size;
        return new Box(number(text, "x"), number(text, "y") - 0.8 * size, width, size);
    }

    static double number(Element element, String attribute) {
        String value = element.getAttribute(attribute);
        assertTrue(!value.isEmpty(), element.getTagName() + " has no " + attribute);
        return Double.parseDouble(value);
    }
}
