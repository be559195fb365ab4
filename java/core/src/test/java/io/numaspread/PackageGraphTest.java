// SPDX-License-Identifier: Apache-2.0
package io.numaspread;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.numaspread.testing.Layering;
import io.numaspread.testing.PackageGraph;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The layering, read by jdeps from the core jar this test runs against (its multi-release view for this
 * JDK): the packages follow the rules of docs/architecture.md, the rules themselves are layers (no cycle), and
 * the bottom packages depend on nothing above them. cli, netty and agent hold their own classes to the same rules.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class PackageGraphTest {
    private static final String ROOT = "io.numaspread";

    private static final int VISITING = 1;
    private static final int DONE = 2;

    private static PackageGraph graph;

    @BeforeAll
    static void readGraph() throws Exception {
        graph = PackageGraph.of(coreJar());
        // A graph read wrongly would have no cycle either.
        assertTrue(graph.uses(ROOT + ".plan").contains(ROOT + ".topology"), graph.jdepsOutput());
    }

    @Test
    void followsTheLayering() {
        List<String> violations = Layering.read().violations(graph);
        assertTrue(violations.isEmpty(), String.join("\n", violations));
    }

    @Test
    void layeringIsLayers() {
        Map<String, Set<String>> rules = Layering.read().rules();
        rules.forEach((pkg, uses) -> uses.forEach(used -> assertTrue(
                rules.containsKey(used), pkg + " may use " + used + ", which has no row in " + Layering.FILE)));
        List<String> cycle = findCycle(rules.keySet(), p -> rules.getOrDefault(p, Set.of()));
        assertTrue(cycle.isEmpty(), "the layering of " + Layering.FILE + " has a cycle: " + String.join(" -> ", cycle));
    }

    @Test
    void hasNoCycleBetweenPackages() {
        List<String> cycle = findCycle(graph.packages(), graph::uses);
        assertTrue(cycle.isEmpty(), "package cycle: " + String.join(" -> ", cycle));
    }

    @Test
    void bottomPackagesDependOnNothingAbove() {
        assertEquals(Set.of(ROOT), graph.uses(ROOT + ".kernel"), "io.numaspread.kernel is the bottom package");
        assertEquals(Set.of(), graph.uses(ROOT), "io.numaspread depends on no other package");
    }

    /**
     * Netlink is one layer: it speaks through the native backends' descriptors and the kernel's types, and NIC
     * discovery and watch speak netlink only through it.
     */
    @Test
    void netlinkSitsBetweenTheBackendsAndItsUsers() {
        Set<String> netlink = graph.uses(ROOT + ".netlink");
        assertTrue(
                netlink.contains(ROOT + ".nativeaccess")
                        && Set.of(ROOT, ROOT + ".kernel", ROOT + ".nativeaccess")
                                .containsAll(netlink),
                "io.numaspread.netlink depends on " + netlink);
        assertTrue(
                !graph.uses(ROOT + ".nativeaccess").contains(ROOT + ".netlink"),
                "io.numaspread.nativeaccess depends on " + graph.uses(ROOT + ".nativeaccess"));
        for (String user : List.of(ROOT + ".nic", ROOT + ".watch")) {
            assertTrue(graph.uses(user).contains(ROOT + ".netlink"), user + " depends on " + graph.uses(user));
        }
    }

    @Test
    void nicDiscoveryDoesNotReachTheWriteTransaction() {
        assertTrue(
                !graph.uses(ROOT + ".nic").contains(ROOT + ".irq"),
                "io.numaspread.nic depends on " + graph.uses(ROOT + ".nic"));
    }

    /** Depth-first search; the first cycle found, as its packages in order, or empty. */
    private static List<String> findCycle(Set<String> packages, Function<String, Set<String>> uses) {
        Map<String, Integer> state = new TreeMap<>();
        for (String start : packages) {
            List<String> path = new ArrayList<>();
            if (visit(start, uses, state, path)) {
                return path;
            }
        }
        return List.of();
    }

    private static boolean visit(
            String node, Function<String, Set<String>> uses, Map<String, Integer> state, List<String> path) {
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
        for (String next : uses.apply(node)) {
            if (visit(next, uses, state, path)) {
                return true;
            }
        }
        state.put(node, DONE);
        path.remove(path.size() - 1);
        return false;
    }

    private static Path coreJar() throws URISyntaxException {
        Path location = Path.of(
                CpuSet.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        assertTrue(Files.isRegularFile(location), "the tests run against the core jar, not " + location);
        return location;
    }
}
