// SPDX-License-Identifier: Apache-2.0
package io.numaspread.watch;

import io.numaspread.NumaspreadException;
import io.numaspread.irq.AffinityTransaction;
import io.numaspread.irq.IrqsNow;
import io.numaspread.irq.NapiThreads;
import io.numaspread.irq.NicPlacement;
import io.numaspread.irq.Setting;
import io.numaspread.irq.StateFile;
import io.numaspread.irq.Target;
import io.numaspread.kernel.InterfaceName;
import io.numaspread.kernel.KernelFiles;
import io.numaspread.kernel.KernelPaths;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The watched NICs' state files, as watch keeps them beside what its applies record: held for as long as watch
 * runs, the originals recorded before the first apply, stale entries forgotten, and the restore at the end. Every
 * state-file call of the watcher is here.
 */
final class WatchedState {
    private final KernelPaths paths;
    private final KernelFiles files;
    private final Path directory;
    private final NicPlacement placement;

    /**
     * @param directory where each NIC's state file {@code IFACE.json} is
     * @param placement what the restore at the end goes through, as {@code restore} does
     */
    WatchedState(KernelPaths paths, KernelFiles files, Path directory, NicPlacement placement) {
        this.paths = paths;
        this.files = files;
        this.directory = directory;
        this.placement = placement;
    }

    Path file(InterfaceName iface) {
        return StateFile.in(directory, iface);
    }

    /** Holds {@code iface}'s state file until the lock is closed: another apply, restore or watch is refused. */
    StateFile.Lock hold(InterfaceName iface) {
        return StateFile.hold(file(iface));
    }

    /**
     * Records, before the first apply, what every file of the plan holds, also those that already hold their
     * CPUs: apply records only what it changes, and a file that watch changes later (after a CPU went offline)
     * would otherwise be recorded as it was then, not as it was before watch. The first value recorded wins, so
     * a state file left by an earlier run keeps its originals.
     */
    @SuppressWarnings("try") // the lock is held, not used
    void recordOriginals(InterfaceName iface, List<Setting> wanted) {
        List<StateFile.Saved> now = new ArrayList<>();
        for (Setting setting : wanted) {
            if (setting.target().kind() == Target.Kind.NAPI_THREAD) {
                continue; // no file: apply records a thread's affinity before it first pins it
            }
            try {
                now.add(new StateFile.Saved(
                        setting.target(), files.read(setting.target().file(paths))));
            } catch (IOException e) {
                // Unreadable (XPS of a single-queue device): apply reports it, and there is nothing to restore.
            }
        }
        Path file = file(iface);
        try (StateFile.Lock lock = StateFile.lock(file)) {
            StateFile.write(
                    file,
                    StateFile.read(file)
                            .map(state -> state.mergedWith(now))
                            .orElseGet(() -> new StateFile.State(iface, now)));
        }
    }

    /**
     * Forgets recorded values the kernel itself discarded: IRQs freed or renumbered (a driver unbound, reloaded
     * or reset) and transmit queues removed. Their originals no longer exist, and restore could not put them back.
     * A closed NIC's vectors are kept ({@link IrqsNow#holds}): a member the bond just released still has them.
     */
    @SuppressWarnings("try") // the lock is held, not used
    void pruneStale(InterfaceName iface) {
        Path file = file(iface);
        if (!Files.exists(file)) {
            return;
        }
        try (StateFile.Lock lock = StateFile.lock(file)) {
            Optional<StateFile.State> state = StateFile.read(file);
            if (state.isEmpty()) {
                return;
            }
            IrqsNow irqs = IrqsNow.read(paths, iface);
            List<StateFile.Saved> kept = state.get().saved().stream()
                    .filter(saved -> switch (saved.target().kind()) {
                        case IRQ -> irqs.holds(saved.target());
                        case XPS -> Files.exists(saved.target().file(paths));
                        // A re-created thread keeps its name, and its original affinity is still the one to restore.
                        case NAPI_THREAD -> true;
                    })
                    .toList();
            if (kept.size() == state.get().saved().size()) {
                return;
            }
            // Only the stale IRQ and XPS entries go: the threaded and NAPI records are kept for restore.
            StateFile.State left = new StateFile.State(iface, kept, state.get().records());
            if (left.isEmpty()) {
                StateFile.delete(file);
            } else {
                StateFile.write(file, left);
            }
        }
    }

    /**
     * Whether {@code iface} is closed with IRQs its state file records ({@link IrqsNow#idle}): their values can go
     * back only once it opens.
     */
    boolean closed(InterfaceName iface) {
        Optional<StateFile.State> state = StateFile.read(file(iface));
        if (state.isEmpty()) {
            return false;
        }
        IrqsNow irqs = IrqsNow.read(paths, iface);
        return state.get().saved().stream().anyMatch(saved -> irqs.idle(saved.target()));
    }

    /**
     * Puts back everything {@code iface}'s state file records, its stale entries forgotten first, NAPI threads
     * found through {@code threads}; says what it did as the event to report.
     */
    WatchEvent restore(InterfaceName iface, NapiThreads threads) {
        Path file = file(iface);
        if (!Files.exists(file)) {
            return new WatchEvent.NothingToRestore(iface, file, false);
        }
        try {
            pruneStale(iface);
            if (!Files.exists(file)) {
                return new WatchEvent.NothingToRestore(iface, file, true);
            }
            List<AffinityTransaction.Result> results = placement.restore(file, Optional.of(iface), threads);
            long restored = results.stream()
                    .filter(r -> r.status() == AffinityTransaction.Status.RESTORED)
                    .count();
            return new WatchEvent.Restored(iface, restored, results.size(), file);
        } catch (NumaspreadException e) {
            return new WatchEvent.RestoreFailed(iface, e.getMessage());
        }
    }
}
