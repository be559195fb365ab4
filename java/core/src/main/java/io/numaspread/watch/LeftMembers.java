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
    /** A member waiting: how its NAPI threads are found, and whether the last check found it open. */
    private record Waiting(NapiThreads threads, boolean openAtLastCheck) {}

    private final WatchedState stateFiles;
    private final Map<InterfaceName, Waiting> waiting = new LinkedHashMap<>();

    LeftMembers(WatchedState stateFiles) {
        this.stateFiles = stateFiles;
    }

    /** {@code iface} left: its originals wait for it to be found open twice, said now. */
    WatchEvent left(InterfaceName iface, NapiThreads threads) {
        waiting.put(iface, new Waiting(threads, false));
        return new WatchEvent.WaitsToRestore(iface, stateFiles.file(iface));
    }

    /** {@code iface} joined again: watched, its state file held and its originals kept. */
    void joined(InterfaceName iface) {
        waiting.remove(iface);
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
            if (end || open && member.getValue().openAtLastCheck()) {
                waiting.remove(iface);
                WatchEvent restored =
                        stateFiles.restore(iface, member.getValue().threads());
                if (!(restored instanceof WatchEvent.NothingToRestore nothing) || nothing.discarded()) {
                    done.add(restored);
                }
            } else {
                waiting.put(iface, new Waiting(member.getValue().threads(), open));
            }
        }
        return done;
    }
}
