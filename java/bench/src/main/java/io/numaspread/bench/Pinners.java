// SPDX-License-Identifier: Apache-2.0
package io.numaspread.bench;

import io.numaspread.CpuSet;
import io.numaspread.kernel.SysfsTree;
import io.numaspread.nativeaccess.BackendKind;
import io.numaspread.nativeaccess.BackendUnavailableException;
import io.numaspread.nativeaccess.Backends;
import io.numaspread.nativeaccess.NativeBackend;
import io.numaspread.topology.TopologyDiscovery;
import java.util.Optional;

/** The two CPUs the pin benchmarks alternate between, and the backends they go through. */
final class Pinners {
    private Pinners() {}

    static NativeBackend backend(String id) throws BackendUnavailableException {
        return Backends.select(SysfsTree.live(), Optional.of(BackendKind.fromId(id)))
                .backend();
    }

    /** The first two CPUs this process may use: moving between them is a real migration. */
    static int[] twoCpus() throws BackendUnavailableException {
        CpuSet allowed = TopologyDiscovery.processAllowed(backend("sysfs"));
        if (allowed.size() < 2) {
            throw new IllegalStateException(
                    "the pin benchmarks need two allowed CPUs, and this process has " + allowed);
        }
        return new int[] {allowed.nth(0), allowed.nth(1)};
    }
}
