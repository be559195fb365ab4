// SPDX-License-Identifier: Apache-2.0
package io.numaspread.cli;

import io.numaspread.irq.PlacementOptions;
import picocli.CommandLine.Option;

/**
 * How a plan is written, shared by {@code apply} and {@code watch}: one declaration of each flag and its default,
 * parsed into one {@link PlacementOptions}, so that watch applies exactly as apply does.
 */
final class ApplyOptions {
    @Option(
            names = "--force",
            description = "Apply even though irqbalance is running: it will move the IRQs again"
                    + " (watch then puts them back, and backs off from it).")
    boolean force;

    // On by default: a multi-queue tap, like a NIC with aRFS, moves a flow to the receive queue of the transmit
    // queue its last packet left on, so without XPS the flow follows the old XPS map away from the planned CPU.
    @Option(
            names = "--xps",
            negatable = true,
            defaultValue = "true",
            fallbackValue = "true",
            description = "Also write /sys/class/net/IFACE/queues/tx-Q/xps_cpus, so that transmit queue Q is used"
                    + " from queue Q's CPUs (recorded and restored too, and kept by watch). On by default; --no-xps"
                    + " leaves XPS alone.")
    boolean xps;

    @Option(
            names = "--napi-threads",
            description = "Also pin each queue's threaded NAPI kernel thread (napi/IFACE-ID) to the queue's planned"
                    + " CPUs, in the same all-or-nothing apply. Turns threaded NAPI on (/sys/class/net/IFACE/threaded,"
                    + " Linux 5.12+) when it is off; restore puts back the threads' affinity and threaded. Which thread"
                    + " serves which queue comes from netdev netlink (Linux 6.8+). Watch pins again the threads that"
                    + " are re-created (threaded toggled, ethtool -L, a reset) or moved, and keeps threaded NAPI on.")
    boolean napiThreads;

    // Off by default: a host may use RPS on purpose (a NIC with fewer queues than the CPUs that serve it).
    @Option(
            names = "--rps-off",
            description = "Also turn Receive Packet Steering off on each receive queue (write 0 to"
                    + " /sys/class/net/IFACE/queues/rx-Q/rps_cpus), so that a packet's protocol work, and the"
                    + " socket's SO_INCOMING_CPU, stay on the CPU of its queue's IRQ. Each mask that was set is"
                    + " recorded, and restore puts it back; watch turns RPS off again at each apply.")
    boolean rpsOff;

    PlacementOptions placement() {
        return new PlacementOptions(force, xps, napiThreads, rpsOff);
    }
}
