// SPDX-License-Identifier: Apache-2.0
package io.numaspread.nativeaccess;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.numaspread.kernel.SysfsTree;
import io.numaspread.topology.Topology;
import io.numaspread.topology.TopologyDiscovery;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Every backend that loads on this JVM describes this host identically. */
class BackendDifferentialTest {

    @Test
    void everyBackendBuildsTheSameTopology() throws BackendUnavailableException {
        SysfsTree sysfs = SysfsTree.live();
        Map<BackendKind, Topology> topologies = new EnumMap<>(BackendKind.class);
        for (BackendKind kind : loadableHere()) {
            NativeBackend backend = Backends.select(sysfs, Optional.of(kind)).backend();
            Topology topology = TopologyDiscovery.discover(backend, sysfs);
            assertEquals(kind, topology.backend(), "NUMA facts come from the " + kind.id() + " backend itself");
            topologies.put(kind, topology);
        }
        Topology reference = topologies.get(BackendKind.SYSFS);
        topologies.forEach((kind, topology) -> assertTrue(
                topology.sameMachineAs(reference), kind.id() + " sees " + topology + "\nbut sysfs sees " + reference));
    }

    /** FFM needs JDK 23; JNA and sysfs load on any JDK from 17 on a host with libnuma. */
    private static List<BackendKind> loadableHere() {
        List<BackendKind> kinds = new ArrayList<>(List.of(BackendKind.JNA, BackendKind.SYSFS));
        if (Runtime.version().feature() >= 23) {
            kinds.add(0, BackendKind.FFM);
        }
        return kinds;
    }
}
