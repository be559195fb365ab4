// SPDX-License-Identifier: Apache-2.0
package io.numaspread;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleFinder;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The core jar as a module, as the JDK this test runs on reads it: on JDK 23 and newer the overlay's descriptor,
 * which exports the API to all and the internals only to numaspread's own modules that use them (the exports
 * of docs/architecture.md); below 23 an automatic module of the same name, which exports everything.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ModuleExportsTest {
    private static final String ROOT = "io.numaspread";
    private static final Set<String> API = Set.of(
            ROOT,
            ROOT + ".kernel",
            ROOT + ".lease",
            ROOT + ".nativeaccess",
            ROOT + ".nic",
            ROOT + ".pin",
            ROOT + ".plan",
            ROOT + ".topology");
    /** numaspread's modules that may be given an internal package. */
    private static final Set<String> OWN_MODULES = Set.of(ROOT + ".cli", ROOT + ".netty", ROOT + ".agent");

    private static final ModuleDescriptor CORE = ModuleFinder.of(coreJar())
            .find(ROOT + ".core")
            .orElseThrow(() -> new AssertionError("the core jar is no module io.numaspread.core"))
            .descriptor();

    @Test
    void theApiIsExportedToAllAndNothingElse() {
        if (Runtime.version().feature() < 23) {
            assertTrue(CORE.isAutomatic(), "below JDK 23 the overlay's descriptor is not read: " + CORE);
            return;
        }
        Set<String> exportedToAll = new TreeSet<>();
        CORE.exports().stream().filter(e -> !e.isQualified()).forEach(e -> exportedToAll.add(e.source()));
        assertEquals(new TreeSet<>(API), exportedToAll, "the packages exported to all: the API");
    }

    @Test
    void internalsAreExportedOnlyToNumaspreadsOwnModules() {
        if (Runtime.version().feature() < 23) {
            assertTrue(CORE.isAutomatic(), "below JDK 23 the overlay's descriptor is not read: " + CORE);
            return;
        }
        Map<String, Set<String>> qualified = new TreeMap<>();
        CORE.exports().stream()
                .filter(ModuleDescriptor.Exports::isQualified)
                .forEach(e -> qualified.put(e.source(), e.targets()));
        qualified.forEach((pkg, targets) -> assertTrue(
                OWN_MODULES.containsAll(targets), pkg + " is exported to " + targets + ", not only to " + OWN_MODULES));
        assertEquals(
                Map.of(
                        ROOT + ".doctor", Set.of(ROOT + ".cli"),
                        ROOT + ".irq", Set.of(ROOT + ".cli", ROOT + ".netty"),
                        ROOT + ".watch", Set.of(ROOT + ".cli")),
                qualified,
                "the internals exported, and to whom (docs/architecture.md)");
        Set<String> concealed = new TreeSet<>(CORE.packages());
        CORE.exports().forEach(e -> concealed.remove(e.source()));
        assertEquals(
                Set.of(ROOT + ".internal", ROOT + ".internal.ffm", ROOT + ".internal.ffm.gen", ROOT + ".netlink"),
                concealed,
                "the packages exported to none: the FFM bindings and netlink");
    }

    private static Path coreJar() {
        try {
            Path location = Path.of(CpuSet.class
                    .getProtectionDomain()
                    .getCodeSource()
                    .getLocation()
                    .toURI());
            assertTrue(Files.isRegularFile(location), "the tests run against the core jar, not " + location);
            return location;
        } catch (URISyntaxException e) {
            throw new AssertionError(e);
        }
    }
}
