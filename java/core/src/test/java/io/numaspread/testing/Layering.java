// SPDX-License-Identifier: Apache-2.0
package io.numaspread.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Which package may use which: the table between the markers in {@code docs/architecture.md}, the one place the
 * layering is written. A row is {@code | PACKAGE | USES |}: names under {@code io.numaspread} ({@code nic} for
 * {@code io.numaspread.nic}), {@code io.numaspread} for the base package itself, and the used packages separated by
 * commas, or "-" for none.
 */
public final class Layering {
    public static final String FILE = "docs/architecture.md";
    static final String START = "<!-- layering:start -->";
    static final String END = "<!-- layering:end -->";

    private final Map<String, Set<String>> mayUse;

    private Layering(Map<String, Set<String>> mayUse) {
        this.mayUse = Collections.unmodifiableMap(mayUse);
    }

    /** The rules of the repository's {@value #FILE}. */
    public static Layering read() {
        Path root = Path.of(System.getProperty("basedir", System.getProperty("user.dir")), "../..")
                .normalize();
        Path file = root.resolve(FILE);
        try {
            return parse(Files.readString(file));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the layering from " + file, e);
        }
    }

    static Layering parse(String markdown) {
        int start = markdown.indexOf(START);
        int end = markdown.indexOf(END);
        if (start < 0 || end < start) {
            throw new IllegalArgumentException(FILE + " has no table between " + START + " and " + END);
        }
        Map<String, Set<String>> mayUse = new TreeMap<>();
        List<String> rows = markdown.substring(start + START.length(), end)
                .lines()
                .map(String::strip)
                .filter(line -> line.startsWith("|"))
                .toList();
        // The first row is the header, the second the line under it.
        for (String row : rows.subList(Math.min(2, rows.size()), rows.size())) {
            String[] cells = row.split("\\|", -1);
            if (cells.length != 4) {
                throw new IllegalArgumentException(FILE + ": not a row of two cells: " + row);
            }
            String pkg = name(cells[1]);
            Set<String> uses = new TreeSet<>();
            String used = cells[2].strip();
            if (!used.equals("-")) {
                Arrays.stream(used.split(",")).map(Layering::name).forEach(uses::add);
            }
            if (mayUse.put(pkg, uses) != null) {
                throw new IllegalArgumentException(FILE + ": " + pkg + " has two rows");
            }
        }
        if (mayUse.isEmpty()) {
            throw new IllegalArgumentException(FILE + ": the layering table has no rows");
        }
        return new Layering(mayUse);
    }

    private static String name(String cell) {
        String name = cell.replace("`", "").strip();
        if (name.isEmpty()) {
            throw new IllegalArgumentException(FILE + ": an empty package name in the layering table");
        }
        return name.equals(PackageGraph.ROOT) ? name : PackageGraph.ROOT + "." + name;
    }

    /** Every package the table has a row for, and the packages each may use. */
    public Map<String, Set<String>> rules() {
        return mayUse;
    }

    /**
     * Where {@code graph} breaks the rules: a package with classes but no row, and each use the row does not
     * allow. A package with a row but no classes there is fine: each module has some of the packages.
     */
    public List<String> violations(PackageGraph graph) {
        List<String> violations = new ArrayList<>();
        for (String pkg : graph.packages()) {
            Set<String> allowed = mayUse.get(pkg);
            if (allowed == null) {
                violations.add(pkg + " has classes but no row in " + FILE);
                continue;
            }
            for (String used : graph.uses(pkg)) {
                if (!allowed.contains(used)) {
                    violations.add(pkg + " uses " + used + ", which its row in " + FILE + " does not allow");
                }
            }
        }
        return violations;
    }
}
