// SPDX-License-Identifier: Apache-2.0
package io.numaspread.nic;

import io.numaspread.NumaspreadException;
import io.numaspread.kernel.Errno;
import io.numaspread.kernel.KernelPaths;
import io.numaspread.kernel.KernelText;
import java.io.IOException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * {@code /proc/interrupts}, parsed by IRQ number. Only the numbered lines matter here. The columns between the
 * counts and the name differ between kernels and architectures ({@code PCI-MSIX-0000:00:03.0 1-edge},
 * {@code PCI-MSI 67633153-edge}, {@code IR-PCI-MSI 524288-edge}, {@code ITS-MSI 524288 Edge}, the old
 * {@code PCI-MSI-edge}), so the name is taken as what follows the trigger-type column.
 *
 * <p>A name is whatever bytes the driver gave it (a renamed interface's name, in a tenant's namespace), so the
 * file is read one character per byte ({@link KernelText}) and never fails to decode.
 */
public final class InterruptTable {
    /**
     * The size limit: one line per IRQ, one 11-character column per CPU, so a machine of 8192 CPUs with a
     * thousand IRQs prints about 90 MB.
     */
    private static final int MAX_BYTES = 128 << 20;

    private static final Pattern TRIGGER = Pattern.compile("(?i)(?:\\S*-)?(?:edge|level|fasteoi|simple)");

    /** One IRQ line: its name(s) as the kernel prints them, and its count per CPU column. */
    public record Line(int irq, String name, Map<Integer, Long> countsByCpu) {
        public Line {
            countsByCpu = Collections.unmodifiableMap(new LinkedHashMap<>(countsByCpu));
        }

        public long total() {
            return countsByCpu.values().stream().mapToLong(Long::longValue).sum();
        }
    }

    private final Map<Integer, Line> lines;

    private InterruptTable(Map<Integer, Line> lines) {
        this.lines = lines;
    }

    /**
     * @throws IllegalArgumentException if the header has no CPU columns or a numbered line is malformed,
     *     naming the line
     */
    public static InterruptTable parse(String text) {
        String[] rows = text.split("\n");
        if (rows.length == 0 || rows[0].isBlank()) {
            throw new IllegalArgumentException("it is empty");
        }
        List<Integer> cpus = new ArrayList<>();
        for (String column : rows[0].trim().split("\\s+")) {
            String number = column.startsWith("CPU") ? column.substring(3) : "";
            if (!isCount(number) || number.length() > 9) {
                throw new IllegalArgumentException("header column \"" + column + "\" is not CPUn");
            }
            cpus.add(number(column.substring(3), "header column \"" + column + "\""));
        }
        Map<Integer, Line> lines = new LinkedHashMap<>();
        for (int r = 1; r < rows.length; r++) {
            String row = rows[r].trim();
            int colon = row.indexOf(':');
            if (colon <= 0 || !isCount(row.substring(0, colon))) {
                continue; // NMI:, LOC:, ERR: and other architecture summaries
            }
            int irq = number(row.substring(0, colon), "IRQ number \"" + row.substring(0, colon) + "\"");
            String[] tokens = row.substring(colon + 1).trim().split("\\s+");
            Map<Integer, Long> counts = new LinkedHashMap<>();
            int column = 0;
            while (column < cpus.size()
                    && column < tokens.length
                    && isCount(tokens[column])
                    && tokens[column].length() <= 19) {
                counts.put(cpus.get(column), Long.parseLong(tokens[column]));
                column++;
            }
            if (column < cpus.size()) {
                throw new IllegalArgumentException("line for IRQ " + irq + " has " + column + " counts for "
                        + cpus.size() + " CPU columns: \"" + row + "\"");
            }
            lines.put(irq, new Line(irq, nameOf(tokens, column), counts));
        }
        return new InterruptTable(lines);
    }

    /** A CPU or IRQ number; the kernel prints neither beyond an int. */
    private static int number(String digits, String what) {
        if (digits.isEmpty() || digits.length() > 9 || !digits.chars().allMatch(c -> c >= '0' && c <= '9')) {
            throw new IllegalArgumentException("/proc/interrupts " + what + " is not a CPU or IRQ number");
        }
        return Integer.parseInt(digits);
    }

    private static boolean isCount(String token) {
        // The kernel's counts are unsigned ints: ten digits at most, so a long never overflows.
        return !token.isEmpty() && token.length() <= 18 && token.chars().allMatch(c -> c >= '0' && c <= '9');
    }

    /**
     * The text after the first trigger-type column; without one, the last column. Control characters in it
     * are escaped ({@link KernelText#escape}), so that a name is always printable.
     */
    private static String nameOf(String[] tokens, int firstAfterCounts) {
        for (int i = firstAfterCounts; i < tokens.length; i++) {
            if (TRIGGER.matcher(tokens[i]).matches()) {
                return KernelText.escape(String.join(" ", List.of(tokens).subList(i + 1, tokens.length)));
            }
        }
        return tokens.length - firstAfterCounts >= 2 ? KernelText.escape(tokens[tokens.length - 1]) : "";
    }

    /**
     * @throws NumaspreadException (bad input) if the file is missing, unreadable or malformed, naming it
     */
    public static InterruptTable read(KernelPaths paths) {
        Path file = paths.interrupts();
        String text;
        try {
            text = KernelText.read(file, MAX_BYTES);
        } catch (NoSuchFileException e) {
            throw NumaspreadException.badInput("missing file " + file);
        } catch (IOException e) {
            throw NumaspreadException.badInput("cannot read " + file + ": " + Errno.describe(e));
        }
        try {
            return parse(text);
        } catch (IllegalArgumentException e) {
            throw NumaspreadException.badInput(file + ": " + KernelText.escape(e.getMessage()), e);
        }
    }

    public Optional<Line> line(int irq) {
        return Optional.ofNullable(lines.get(irq));
    }

    /** The lowest IRQ named {@code name}, if any. */
    public Optional<Integer> numberOf(String name) {
        return lines.values().stream()
                .filter(line -> line.name().equals(name))
                .map(Line::irq)
                .min(Integer::compare);
    }

    /** The name of {@code irq}, or the empty string when the kernel prints none (no handler requested). */
    public String name(int irq) {
        return line(irq).map(Line::name).orElse("");
    }
}
