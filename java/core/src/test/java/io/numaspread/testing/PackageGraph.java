// SPDX-License-Identifier: Apache-2.0
package io.numaspread.testing;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.spi.ToolProvider;

/**
 * Which of numaspread's packages use which, as jdeps reads them from compiled classes: a jar (its multi-release
 * view for this JDK) or a class folder. Every module's PackageGraphTest holds its classes to {@link Layering}.
 */
public final class PackageGraph {
    static final String ROOT = "io.numaspread";
    /** "   io.numaspread.nic   ->   io.numaspread.plan   io.numaspread.core", or "-> java.lang   java.base". */
    private static final Pattern EDGE = Pattern.compile("^\\s+(io\\.numaspread[\\w.]*)\\s+->\\s+(\\S+)\\s");

    private final Map<String, Set<String>> uses;
    private final String jdepsOutput;

    private PackageGraph(Map<String, Set<String>> uses, String jdepsOutput) {
        this.uses = uses;
        this.jdepsOutput = jdepsOutput;
    }

    /** The graph of the classes at {@code location}. */
    public static PackageGraph of(Path location) {
        if (!Files.exists(location)) {
            throw new AssertionError("no classes at " + location);
        }
        ToolProvider jdeps =
                ToolProvider.findFirst("jdeps").orElseThrow(() -> new AssertionError("no jdeps in this JDK"));
        StringWriter out = new StringWriter();
        int status = jdeps.run(
                new PrintWriter(out),
                new PrintWriter(out),
                "--multi-release",
                Integer.toString(Runtime.version().feature()),
                "-verbose:package",
                "-filter:none",
                "--ignore-missing-deps",
                location.toString());
        if (status != 0) {
            throw new AssertionError("jdeps exited with " + status + ":\n" + out);
        }
        Map<String, Set<String>> uses = new TreeMap<>();
        for (String line : out.toString().lines().toList()) {
            Matcher edge = EDGE.matcher(line);
            if (edge.find()) {
                // Every class uses java.lang at least, so each package with classes has a line of its own.
                Set<String> used = uses.computeIfAbsent(edge.group(1), p -> new TreeSet<>());
                String target = edge.group(2);
                if ((target.equals(ROOT) || target.startsWith(ROOT + ".")) && !target.equals(edge.group(1))) {
                    used.add(target);
                }
            }
        }
        return new PackageGraph(uses, out.toString());
    }

    /** The classes of the module whose tests run: its {@code target/classes} (Maven runs tests in the module). */
    public static PackageGraph ofThisModule() {
        return of(Path.of(System.getProperty("basedir", System.getProperty("user.dir")), "target", "classes"));
    }

    /** numaspread's packages that have classes here. */
    public Set<String> packages() {
        return uses.keySet();
    }

    /** The other numaspread packages {@code pkg} uses; empty for a package without classes here. */
    public Set<String> uses(String pkg) {
        return uses.getOrDefault(pkg, Set.of());
    }

    /** What jdeps printed, for a failure's message. */
    public String jdepsOutput() {
        return jdepsOutput;
    }
}
