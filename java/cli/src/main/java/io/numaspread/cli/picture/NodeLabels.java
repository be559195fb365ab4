// SPDX-License-Identifier: Apache-2.0
package io.numaspread.cli.picture;

import io.numaspread.CpuSet;
import java.util.OptionalInt;

/**
 * What a node's and a package's headers say, which the layout measures and the drawing writes: a node's title
 * (with its origin badge), its CPUs and its distance from a single origin.
 */
record NodeLabels(MachinePicture picture) {
    static final double TITLE_SIZE = 12;
    static final double DETAIL_SIZE = 10;
    static final double BADGE_SIZE = 10;

    static String nodeTitle(int node, boolean partial) {
        return (node < 0 ? "no node" : "node " + node) + (partial ? " (part)" : "");
    }

    static String packageTitle(int packageId) {
        return packageId < 0 ? "package unknown" : "package " + packageId;
    }

    /** "CPUs 0-3 · dist 21", the distance only with a single origin. */
    String nodeDetail(int node, CpuSet cpus) {
        String where = cpus.isEmpty() ? "no CPUs (memory only)" : "CPUs " + cpus;
        if (picture.origins().size() == 1 && node >= 0) {
            OptionalInt distance = picture.topology().distance(picture.origins().get(0), node);
            if (distance.isPresent()) {
                where += " \u00b7 dist " + distance.getAsInt();
            }
        }
        return where;
    }

    boolean isOrigin(int node) {
        return node >= 0 && picture.origins().contains(node);
    }

    /** The width of the origin badge's box, which holds {@link MachinePicture#originLabel()}. */
    double badgeWidth() {
        return SvgWriter.textWidth(picture.originLabel(), BADGE_SIZE) + 6;
    }

    /** How wide a node's header text is: its title line (with the badge) or its detail line. */
    double headerTextWidth(int node, boolean partial, CpuSet cpus) {
        double first = SvgWriter.textWidth(nodeTitle(node, partial), TITLE_SIZE)
                + (isOrigin(node) ? 8 + SvgWriter.textWidth(picture.originLabel(), BADGE_SIZE) + 6 : 0);
        return Math.max(first, SvgWriter.textWidth(nodeDetail(node, cpus), DETAIL_SIZE));
    }
}
