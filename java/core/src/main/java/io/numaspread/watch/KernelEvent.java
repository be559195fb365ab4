// SPDX-License-Identifier: Apache-2.0
package io.numaspread.watch;

import java.util.Optional;

/**
 * One kernel message that may change a NIC's queue placement, in words: a link message, a NIC bound or unbound,
 * a CPU going offline or online, a queue added or removed.
 *
 * @param source where it came from ("rtnetlink", "uevent")
 * @param what what happened, for the log: "eth0 RTM_DELLINK", "cpu5 offline", "virtio0 unbind from virtio_net"
 * @param iface the network interface it names, when it names one; events without one (CPUs, drivers) concern
 *     every watched NIC
 */
public record KernelEvent(String source, String what, Optional<String> iface) {
    /** Whether a watcher of {@code iface} should look again. */
    public boolean concerns(String watched) {
        return iface.isEmpty() || iface.get().equals(watched);
    }

    @Override
    public String toString() {
        return source + " " + what;
    }
}
