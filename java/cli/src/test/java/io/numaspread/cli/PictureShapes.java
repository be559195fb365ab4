// SPDX-License-Identifier: Apache-2.0
package io.numaspread.cli;

import io.numaspread.testing.MachineShape;
import io.numaspread.testing.Topologies;
import java.util.List;

/** The machines the pictures are drawn for: the guests' shapes, a 2 sockets x 4 nodes server, and 512 CPUs. */
final class PictureShapes {
    private PictureShapes() {}

    /** The mana guest: 2 sockets x 2 cores x 2 threads, one node per socket. */
    static MachineShape mana() {
        return MachineShape.mana();
    }

    /** The kunpeng guest: 2 sockets of 2 nodes, 2 cores x 2 threads per node, the Kunpeng 920's distances. */
    static MachineShape kunpeng() {
        return sockets("kunpeng", 2, 2, 2, 2, new int[][] {
            {10, 16, 32, 33}, {16, 10, 25, 32}, {32, 25, 10, 16}, {33, 32, 16, 10}
        });
    }

    /** 2 sockets x 4 nodes x 2 cores x 2 threads: 32 CPUs, 12 within a socket, 32 across. */
    static MachineShape twoByFour() {
        return sockets("2x4", 2, 4, 2, 2, Topologies.socketDistances(8, 4));
    }

    /** 2 sockets x 4 nodes x 32 cores x 2 threads: 512 CPUs. */
    static MachineShape cpus512() {
        return sockets("512", 2, 4, 32, 2, Topologies.socketDistances(8, 4));
    }

    /** {@link MachineShape#smt} with {@code nodesPerSocket} nodes in each package instead of one. */
    static MachineShape sockets(
            String name, int sockets, int nodesPerSocket, int coresPerNode, int threads, int[][] distances) {
        MachineShape flat = MachineShape.smt(name, sockets * nodesPerSocket, coresPerNode, threads, false, distances);
        List<Integer> packages =
                flat.packages().stream().map(node -> node / nodesPerSocket).toList();
        return new MachineShape(
                name,
                flat.possible(),
                flat.online(),
                flat.nodeIds(),
                flat.nodeCpus(),
                flat.distances(),
                flat.cores(),
                packages,
                flat.isolated(),
                flat.nohzFull());
    }
}
