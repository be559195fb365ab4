// SPDX-License-Identifier: Apache-2.0
package io.numaspread.watch;

import io.numaspread.irq.NapiThreads;
import io.numaspread.kernel.InterfaceName;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Members that left the followed upper device closed, their originals still to put back. A bond closes the member
 * it releases, and a closed NIC's vectors take no affinity (IrqsNow): watch puts its values back at the first
 * check that finds it open, or at the end, and until then keeps its state file, unheld, so that {@code restore}
 * can do it too. A member that joins again is watched again, its state file's originals kept.
 */
final class ClosedMembers {
    private final WatchedState stateFiles;
    private final Map<InterfaceName, NapiThreads> waiting = new LinkedHashMap<>();

    ClosedMembers(WatchedState stateFiles) {
        this.stateFiles = stateFiles;
    }

    /** Puts back what {@code iface} recorded now, or, when it is closed, once it opens: what was done, said. */
    WatchEvent left(InterfaceName iface, NapiThreads threads) {
        if (stateFiles.closed(iface)) {
            waiting.put(iface, threads);
            return new WatchEvent.WaitsToRestore(iface, stateFiles.file(iface));
        }
        return stateFiles.restore(iface, threads);
    }

    /** {@code iface} joined again: watched, its state file held and its originals kept. */
    void joined(InterfaceName iface) {
        waiting.remove(iface);
    }

    /**
     * The restores of the members found open since they left (or, at the {@code end}, of every one, open or not:
     * a closed one's failure says that its state file is kept); one whose state file another restore removed is
     * forgotten.
     */
    List<WatchEvent> putBack(boolean end) {
        List<WatchEvent> done = new ArrayList<>();
        for (var member : List.copyOf(waiting.entrySet())) {
            InterfaceName iface = member.getKey();
            if (end || !stateFiles.closed(iface)) {
                waiting.remove(iface);
                WatchEvent restored = stateFiles.restore(iface, member.getValue());
                if (!(restored instanceof WatchEvent.NothingToRestore nothing) || nothing.discarded()) {
                    done.add(restored);
                }
            }
        }
        return done;
    }
}
