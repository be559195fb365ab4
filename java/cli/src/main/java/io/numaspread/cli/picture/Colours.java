// SPDX-License-Identifier: Apache-2.0
package io.numaspread.cli.picture;

import java.util.List;

/** The colours that mean something, the same in the cells, the legend and the lists. */
final class Colours {
    /** Node bands by hop level from a single origin: the origin's level first, darkest. */
    static final List<String> LEVELS = List.of("#74c476", "#a1d99b", "#c7e9c0", "#e5f5e0");
    /** A node band beyond the levels, or with several origins or none. */
    static final String FAR = "#e7e7e7";

    static final String QUEUE_SLOT = "#2166ac";
    static final String QUEUE_GROUP = "#9ecae1";
    static final String ON_PLAN = "#1a9850";
    static final String OFF_PLAN = "#d73027";
    static final String CONTROL = "#8c8c8c";
    static final String THREAD = "#762a83";

    private Colours() {}
}
