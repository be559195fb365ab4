// SPDX-License-Identifier: Apache-2.0
package io.numaspread.netty;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.numaspread.testing.Layering;
import io.numaspread.testing.PackageGraph;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * netty's classes, read by jdeps, follow the layering of docs/architecture.md (core's PackageGraphTest checks
 * core's classes and the rules themselves).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class PackageGraphTest {
    @Test
    void followsTheLayering() {
        PackageGraph graph = PackageGraph.ofThisModule();
        // A graph read wrongly would break no rule either.
        assertTrue(graph.uses("io.numaspread.netty").contains("io.numaspread.pin"), graph.jdepsOutput());
        List<String> violations = Layering.read().violations(graph);
        assertTrue(violations.isEmpty(), String.join("\n", violations));
    }
}
