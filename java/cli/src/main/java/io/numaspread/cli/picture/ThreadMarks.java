// SPDX-License-Identifier: Apache-2.0
package io.numaspread.cli.picture;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A process's threads in a picture: a chip per thread on the CPU it last ran on, named L0, L1, ... in thread id
 * order, what the legend says of them and the list that tells which thread each is.
 */
final class ThreadMarks {
    private ThreadMarks() {}

    static List<Chip.OnCpu> chips(MachinePicture picture) {
        List<Chip.OnCpu> chips = new ArrayList<>();
        List<ThreadPlacement> threads = picture.threads();
        for (int i = 0; i < threads.size(); i++) {
            ThreadPlacement thread = threads.get(i);
            chips.add(new Chip.OnCpu(
                    thread.cpu(),
                    new Chip(
                            3,
                            "thread",
                            "thread:" + thread.tid(),
                            Chip.clip("L" + i),
                            Colours.THREAD,
                            "#ffffff",
                            "none",
                            "data-tid=\"" + thread.tid() + "\"",
                            "thread " + thread.tid() + " " + thread.name() + " on CPU " + thread.cpu() + ", allowed "
                                    + thread.allowed())));
        }
        return chips;
    }

    /** The legend's line for the threads' chips; none when no threads were asked for. */
    static List<Legend.Item> legend(MachinePicture picture) {
        return picture.threadSource().isEmpty()
                ? List.of()
                : List.of(new Legend.Item(
                        new Chip("L0", Colours.THREAD, "#ffffff", "none"), "thread L0 (listed below) ran here last"));
    }

    /** A heading saying whose threads, then a line per thread; none when no threads were asked for. */
    static List<ListLine> lines(MachinePicture picture) {
        List<ListLine> lines = new ArrayList<>();
        if (picture.threadSource().isEmpty()) {
            return lines;
        }
        List<ThreadPlacement> threads = picture.threads();
        lines.add(ListLine.heading("threads of " + picture.threadSource().get() + ": "
                + (threads.isEmpty() ? "none matched" : threads.size() + " matched")));
        for (int i = 0; i < threads.size(); i++) {
            ThreadPlacement t = threads.get(i);
            lines.add(new ListLine(
                    "thread",
                    String.format(
                            Locale.ROOT,
                            "%-5s tid %-7d %-15s on CPU %-4d allowed %s",
                            "L" + i,
                            t.tid(),
                            t.name(),
                            t.cpu(),
                            t.allowed())));
        }
        return lines;
    }
}
