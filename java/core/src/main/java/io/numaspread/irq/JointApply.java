// SPDX-License-Identifier: Apache-2.0
package io.numaspread.irq;

import io.numaspread.NumaspreadException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * {@link NicPlacement#applyTogether}: several NICs' shares of one plan applied all or nothing across them. Each NIC
 * keeps its own state file and its own transaction, which rolls back only that NIC; the NICs applied before a
 * failed one are put back here, from their outcomes, because the shares were planned as one ({@link
 * io.numaspread.plan.Planner#together}) and a joint plan half applied is neither the old placement nor the new.
 */
final class JointApply {
    private final NicPlacement placement;

    JointApply(NicPlacement placement) {
        this.placement = placement;
    }

    List<NicPlacement.Outcome> apply(List<NicPlacement.Share> shares, NicPlacement.Options options) {
        if (shares.size() == 1 || options.dryRun()) {
            return shares.stream()
                    .map(share -> placement.apply(share.nic(), Wanted.plan(share.plan()), options))
                    .toList();
        }
        List<Path> stateFiles = shares.stream()
                .map(share -> placement.stateFile(share.nic().name()))
                .toList();
        if (Set.copyOf(stateFiles).size() != stateFiles.size()) {
            throw new IllegalArgumentException("the NICs of a joint apply need a state file each, not " + stateFiles);
        }
        List<StateFile.Lock> held = new ArrayList<>();
        try {
            for (Path stateFile : stateFiles) {
                held.add(StateFile.hold(stateFile));
            }
            List<Optional<StateFile.State>> recorded =
                    stateFiles.stream().map(StateFile::read).toList();
            List<NicPlacement.Outcome> done = new ArrayList<>();
            for (NicPlacement.Share share : shares) {
                try {
                    done.add(placement.apply(share.nic(), Wanted.plan(share.plan()), options));
                } catch (NumaspreadException failed) {
                    throw undone(done, recorded, options, failed);
                }
            }
            return List.copyOf(done);
        } finally {
            for (int i = held.size() - 1; i >= 0; i--) {
                held.get(i).close();
            }
        }
    }

    /**
     * Puts back the NICs a joint apply changed before {@code failed}, newest first, and their state files as they
     * were: the failure to throw.
     */
    private NumaspreadException undone(
            List<NicPlacement.Outcome> done,
            List<Optional<StateFile.State>> recorded,
            NicPlacement.Options options,
            NumaspreadException failed) {
        List<String> back = new ArrayList<>();
        for (int i = done.size() - 1; i >= 0; i--) {
            NicPlacement.Outcome outcome = done.get(i);
            StateFile.State changed = changed(outcome);
            if (changed.isEmpty()) {
                continue;
            }
            NapiThreads threads = options.napiThreads()
                    ? placement.napiAccess(outcome.iface()).threads(placement.paths(), placement.files())
                    : NapiThreads.NONE;
            List<String> stuck = placement.transaction(threads).putBack(changed);
            if (!stuck.isEmpty()) {
                RestoreNeeded needed = new RestoreNeeded(
                        NumaspreadException.Kind.ROLLED_BACK,
                        failed.getMessage() + "; ROLLBACK FAILED for " + outcome.iface() + ": "
                                + String.join("; ", stuck),
                        outcome.stateFile(),
                        placement.paths(),
                        "");
                needed.initCause(failed);
                return needed;
            }
            Optional<StateFile.State> before = recorded.get(i);
            if (before.isPresent()) {
                StateFile.write(outcome.stateFile(), before.get());
            } else {
                StateFile.delete(outcome.stateFile());
            }
            back.add(outcome.iface() + " (" + changed.saved().size() + " value"
                    + (changed.saved().size() == 1 ? "" : "s") + ")");
        }
        if (back.isEmpty()) {
            return failed;
        }
        String more = "; " + String.join(", ", back) + " put back too, with "
                + (back.size() == 1 ? "its state file" : "their state files") + " as before";
        if (failed instanceof RestoreNeeded stale) {
            return stale.followedBy(more);
        }
        if (failed instanceof NapiFeatureFailure feature) {
            return feature.followedBy(more);
        }
        return new NumaspreadException(failed.kind(), failed.getMessage() + more, failed);
    }

    /** What an apply changed, each value as it was before: what its undo puts back. */
    private static StateFile.State changed(NicPlacement.Outcome outcome) {
        List<StateFile.Saved> saved = outcome.results().stream()
                .filter(result -> result.status() == AffinityTransaction.Status.CHANGED)
                .map(result -> new StateFile.Saved(result.target(), result.before()))
                .toList();
        StateFile.State changed = new StateFile.State(outcome.iface(), saved);
        if (outcome.threading().isEmpty()) {
            return changed;
        }
        NicPlacement.Threading threading = outcome.threading().get();
        if (threading.way() == NicPlacement.ThreadingWay.DEVICE) {
            return threading.switchedDevice() ? changed.recording(ThreadedRecord.of(0)) : changed;
        }
        Map<Integer, Integer> off = new TreeMap<>();
        threading.turnedOn().forEach(napiId -> off.put(napiId, 0));
        return changed.recording(NapiThreadedRecord.of(off));
    }
}
