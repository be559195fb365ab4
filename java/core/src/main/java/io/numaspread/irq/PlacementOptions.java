// SPDX-License-Identifier: Apache-2.0
package io.numaspread.irq;

import java.util.List;

/**
 * What {@code apply} and {@code watch} both choose about writing a NIC's plan. One value for both commands, parsed
 * once from the same flags, so that watch applies exactly as apply does and their defaults cannot drift apart.
 *
 * @param force write even though irqbalance is running
 * @param xps also write each transmit queue's {@code xps_cpus}
 * @param napiThreads also pin each queue's threaded NAPI kernel thread, turning threaded NAPI on if it is off
 * @param rpsOff also turn Receive Packet Steering off on each receive queue ({@link RpsOff})
 */
public record PlacementOptions(boolean force, boolean xps, boolean napiThreads, boolean rpsOff) {
    /**
     * What {@code apply}, {@code watch} and the agent's {@code irqs=apply} do unless told otherwise: no force, XPS
     * aligned (without it a flow follows the old XPS map away from its queue's CPU), NAPI threads left alone.
     */
    public static final PlacementOptions DEFAULTS = new PlacementOptions(false, true, false, false);

    /** RPS left as it is. */
    public PlacementOptions(boolean force, boolean xps, boolean napiThreads) {
        this(force, xps, napiThreads, false);
    }

    /** The changes these options ask for beside the plan's settings, one a kind, in the order they are made. */
    List<Change.Asked> asked() {
        return rpsOff ? List.of(RpsOff::new) : List.of();
    }
}
