// SPDX-License-Identifier: Apache-2.0
package io.numaspread.nativeaccess;

import io.numaspread.CpuSet;
import io.numaspread.kernel.SysfsTree;
import io.numaspread.topology.Topology;
import io.numaspread.topology.TopologyDiscovery;
import java.util.Optional;

/**
 * Run by {@link MissingLibnumaTest} in a JVM that cannot load libnuma: for each backend that loads, prints
 * one line {@code KIND|numa unavailable cause|topology backend|pinning works|same machine as sysfs}; the
 * messages are printed as they are, so a reason that spans lines fails the test.
 */
public final class WithoutLibnuma {
    private WithoutLibnuma() {}

    public static void main(String[] args) throws Exception {
        SysfsTree sysfs = SysfsTree.live();
        Topology reference = TopologyDiscovery.discover(SysfsBackend.live(), sysfs);
        System.out.println("selected|"
                + Backends.select(sysfs, Optional.empty()).backend().kind().id());
        for (BackendKind kind : new BackendKind[] {BackendKind.FFM, BackendKind.JNA}) {
            NativeBackend backend;
            try {
                backend = Backends.select(sysfs, Optional.of(kind)).backend();
            } catch (BackendUnavailableException e) {
                System.out.println(kind.id() + "|" + e.getMessage());
                continue;
            }
            Topology topology = TopologyDiscovery.discover(backend, sysfs);
            CpuSet allowed = backend.affinity(0);
            backend.setAffinity(0, CpuSet.of(allowed.first()));
            boolean pinned = backend.affinity(0).equals(CpuSet.of(allowed.first()));
            backend.setAffinity(0, allowed);
            System.out.println(kind.id() + "|" + backend.numaUnavailableCause().orElse("") + "|"
                    + topology.backend().id() + "|" + pinned + "|" + topology.sameMachineAs(reference));
        }
    }
}
