// SPDX-License-Identifier: Apache-2.0
package io.numaspread.cli.picture;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * What the CPU cells hold: each CPU's chips, the NIC's and the threads', lowest rank first, and with a NIC's
 * vectors the interrupts each CPU took. Every cell is as tall as the fullest one; chips beyond
 * {@link #MAX_CHIP_ROWS} in a cell fold into a "+N" chip.
 *
 * @param chipRows how many chips a cell shows, at most
 * @param showCounts whether cells show their interrupt count
 */
record Cells(
        Map<Integer, List<Chip>> chipsByCpu, Map<Integer, Long> interruptsByCpu, int chipRows, boolean showCounts) {
    private static final int MAX_CHIP_ROWS = 8;

    Cells {
        chipsByCpu = Map.copyOf(chipsByCpu);
        interruptsByCpu = Map.copyOf(interruptsByCpu);
    }

    static Cells of(MachinePicture picture) {
        Map<Integer, List<Chip>> byCpu = new TreeMap<>();
        Stream.concat(NicMarks.chips(picture).stream(), ThreadMarks.chips(picture).stream())
                .forEach(on ->
                        byCpu.computeIfAbsent(on.cpu(), c -> new ArrayList<>()).add(on.chip()));
        Map<Integer, List<Chip>> ranked = new TreeMap<>();
        // A stable sort: chips of one rank stay in the order their queues, vectors or threads come.
        byCpu.forEach((cpu, chips) -> ranked.put(
                cpu, chips.stream().sorted(Comparator.comparingInt(Chip::rank)).toList()));
        int most = ranked.values().stream().mapToInt(List::size).max().orElse(0);
        return new Cells(
                ranked,
                NicMarks.interrupts(picture),
                Math.min(MAX_CHIP_ROWS, most),
                !picture.vectors().isEmpty());
    }

    /** Every cell's height: the CPU's number, the chip rows and the count. */
    double height() {
        return 16 + chipRows * (Chip.HEIGHT + Chip.GAP) + (showCounts ? 12 : 0) + 2;
    }

    /** The chips drawn in the cell of {@code cpu}, top to bottom: the last is a "+N" chip when some do not fit. */
    List<Chip> shown(int cpu) {
        List<Chip> chips = chipsByCpu.getOrDefault(cpu, List.of());
        if (chips.size() <= chipRows) {
            return chips;
        }
        List<Chip> shown = new ArrayList<>(chips.subList(0, chipRows - 1));
        shown.add(Chip.folding(chips.subList(chipRows - 1, chips.size())));
        return shown;
    }

    long interrupts(int cpu) {
        return interruptsByCpu.getOrDefault(cpu, 0L);
    }

    /** 950, 12k, 3.4M: what fits under a CPU. */
    static String compact(long count) {
        if (count < 1000) {
            return Long.toString(count);
        }
        String[] units = {"k", "M", "G", "T"};
        double value = count;
        int unit = -1;
        while (value >= 1000 && unit < units.length - 1) {
            value /= 1000;
            unit++;
        }
        return (value < 10 ? String.format(Locale.ROOT, "%.1f", value) : Long.toString(Math.round(value)))
                + units[unit];
    }
}
