// SPDX-License-Identifier: Apache-2.0
package io.numaspread;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.spi.ToolProvider;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The layering, read by jdeps from the core jar this test runs against (its multi-release view for this
 * JDK): no cycle between packages, and the bottom packages depend on nothing above them.
 */
class PackageGraphTest {
    private static final String ROOT = "io.numaspread";
    private static final Pattern EDGE = Pattern.compile("^\\s+(io\\.numaspread[\\w.]*)\\s+->\\s+(io\\.numaspread[\\w.]*)\\s");

    private static final int VISITING = 1;
    private static final int DONE = 2;

    private static Map<String, Set<String>> graph;

    @BeforeAll
    static void readGraph() throws Exception {
        Path jar = coreJar();
        ToolProvider jdeps = ToolProvider.findFirst("jdeps").orElseThrow(() -> new AssertionError("no jdeps in this JDK"));
        StringWriter out = new StringWriter();
        int status = jdeps.run(new PrintWriter(out), new PrintWriter(out), "--multi-release",
                Integer.toString(Runtime.version().feature()), "-verbose:package", "-filter:none",
                "--ignore-missing-deps", jar.toString());
        assertEquals(0, status, out.toString());
        graph = new TreeMap<>();
        for (String line : out.toString().lines().toList()) {
            Matcher edge = EDGE.matcher(line);
            if (edge.find() && !edge.group(1).equals(edge.group(2))) {
                graph.computeIfAbsent(edge.group(1), p -> new TreeSet<>()).add(edge.group(2));
            }
        }
        // A graph read wrongly would have no cycle either.
        assertTrue(graph.getOrDefault(ROOT + ".plan", Set.of()).contains(ROOT + ".topology"), out.toString());
    }

    @Test
    void hasNoCycleBetweenPackages() {
        List<String> cycle = findCycle();
        assertTrue(cycle.isEmpty(), "package cycle: " + String.join(" -> ", cycle));
    }

    @Test
    void bottomPackagesDependOnNothingAbove() {
        assertEquals(Set.of(ROOT), graph.getOrDefault(ROOT + ".kernel", Set.of(ROOT)),
                "io.numaspread.kernel is the bottom package");
        assertEquals(Set.of(), graph.getOrDefault(ROOT, Set.of()), "io.numaspread depends on no other package");
    }

    /**
     * Netlink is one layer: it speaks through the native backends' descriptors and the kernel's types, and NIC
     * discovery and watch speak netlink only through it.
     */
    @Test
    void netlinkSitsBetweenTheBackendsAndItsUsers() {
        Set<String> netlink = graph.getOrDefault(ROOT + ".netlink", Set.of());
        assertTrue(netlink.contains(ROOT + ".nativeaccess")
                && Set.of(ROOT, ROOT + ".kernel", ROOT + ".nativeaccess").containsAll(netlink),
                "io.numaspread.netlink depends on " + netlink);
        assertTrue(!graph.getOrDefault(ROOT + ".nativeaccess", Set.of()).contains(ROOT + ".netlink"),
                "io.numaspread.nativeaccess depends on " + graph.get(ROOT + ".nativeaccess"));
        for (String user : List.of(ROOT + ".nic", ROOT + ".watch")) {
            assertTrue(graph.getOrDefault(user, Set.of()).contains(ROOT + ".netlink"),
                    user + " depends on " + graph.get(user));
        }
    }

    @Test
    void nicDiscoveryDoesNotReachTheWriteTransaction() {
        assertTrue(!graph.getOrDefault(ROOT + ".nic", Set.of()).contains(ROOT + ".irq"),
                "io.numaspread.nic depends on " + graph.get(ROOT + ".nic"));
    }

    /** Depth-first search; the first cycle found, as its packages in order, or empty. */
    private static List<String> findCycle() {
        Map<String, Integer> state = new TreeMap<>();
        for (String start : graph.keySet()) {
            List<String> path = new ArrayList<>();
            if (visit(start, state, path)) {
                return path;
            }
        }
        return List.of();
    }

    private static boolean visit(String node, Map<String, Integer> state, List<String> path) {
        Integer seen = state.get(node);
        if (seen != null && seen == DONE) {
            return false;
        }
        path.add(node);
        if (seen != null && seen == VISITING) {
            path.subList(0, path.indexOf(node)).clear();
            return true;
        }
        state.put(node, VISITING);
        for (String next : graph.getOrDefault(node, Set.of())) {
            if (visit(next, state, path)) {
                return true;
            }
        }
        state.put(node, DONE);
        path.remove(path.size() - 1);
        return false;
    }

    private static Path coreJar() throws URISyntaxException {
        Path location = Path.of(CpuSet.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        assertTrue(Files.isRegularFile(location), "the tests run against the core jar, not " + location);
        return location;
    }
}
