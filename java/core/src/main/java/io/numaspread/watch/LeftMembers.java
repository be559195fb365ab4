// SPDX-License-Identifier: Apache-2.0
package io.numaspread.watch;

import io.numaspread.irq.NapiThreads;
import io.numaspread.kernel.InterfaceName;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Members that left the followed upper device, their originals still to put back. A bond closes the member it
 * releases just after it unlinks it, and a closed NIC's vectors take no affinity (IrqsNow): a value written in
 * between reads back, and the close drops it (the bonded 7.3 guest). So a member's values go back at the second
 * check in a row that finds it open (closed in between, it waits for the next two), or at the end; until then its
 * state file is kept, unheld, so that {@code restore} can do it too. A member that joins again is watched again,
 * its state file's originals kept.
 */
final class LeftMembers {
    private final WatchedState stateFiles;
    private final Map<InterfaceName, NapiThreads> waiting = new LinkedHashMap<>();
    /** The members found open at the last check. */
    private final Map<InterfaceName, Boolean> openAtLastCheck = new LinkedHashMap<>();

    LeftMembers(WatchedState stateFiles) {
        this.stateFiles = stateFiles;
    }

    /** {@code iface} left: its originals wait for it to be found open twice, said now. */
    WatchEvent left(InterfaceName iface, NapiThreads threads) {
        waiting.put(iface, threads);
        openAtLastCheck.put(iface, false);
        return new WatchEvent.WaitsToRestore(iface, stateFiles.file(iface));
    }

    /** {@code iface} joined again: watched, its state file held and its originals kept. */
    void joined(InterfaceName iface) {
        waiting.remove(iface);
        openAtLastCheck.remove(iface);
    }

    /**
     * The restores of the members found open at this check and the one before (or, at the {@code end}, of every
     * one, open or not: a closed one's failure says that its state file is kept); one whose state file another
     * restore removed is forgotten.
     */
    List<WatchEvent> putBack(boolean end) {
        List<WatchEvent> done = new ArrayList<>();
        for (var member : List.copyOf(waiting.entrySet())) {
            InterfaceName iface = member.getKey();
            boolean open = !stateFiles.closed(iface);
            if (end || open && openAtLastCheck.get(iface)) {
                joined(iface);
                WatchEvent restored = stateFiles.restore(iface, member.getValue());
                if (!(restored instanceof WatchEvent.NothingToRestore nothing) || nothing.discarded()) {
                    done.add(restored);
                }
            } else {
                openAtLastCheck.put(iface, open);
            }
        }
        return done;
    }
}
