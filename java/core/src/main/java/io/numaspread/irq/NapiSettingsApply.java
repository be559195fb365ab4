// SPDX-License-Identifier: Apache-2.0
package io.numaspread.irq;

import io.numaspread.NumaspreadException;
import io.numaspread.nic.NapiInstance;
import io.numaspread.nic.NapiMap;
import io.numaspread.nic.NapiSettings;
import io.numaspread.nic.NapiSettingsChange;
import io.numaspread.nic.Nic;
import io.numaspread.plan.SpreadPlan;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * {@link Wanted#suspended}: IRQ suspension's per-NAPI half and the plan's IRQs, all or nothing
 * together. Each planned NAPI's settings are read, recorded and written first, so that a kernel without them
 * (before Linux 6.13) or a process without CAP_NET_ADMIN is refused before any IRQ moves; when the IRQs'
 * transaction then fails, every NAPI's settings are put back and the state file is left as it was.
 */
final class NapiSettingsApply {
    /** A {@code napi-set} that failed, named by its NAPI; kept apart from the reads' refusals. */
    private static final class NapiSetFailed extends NumaspreadException {
        private static final long serialVersionUID = 1L;

        NapiSetFailed(Kind kind, String message, Throwable cause) {
            super(kind, message, cause);
        }
    }

    private final NicPlacement placement;

    NapiSettingsApply(NicPlacement placement) {
        this.placement = placement;
    }

    NicPlacement.Outcome apply(
            Nic nic,
            SpreadPlan plan,
            NicPlacement.Options options,
            NapiSettings wanted,
            NicPlacement.NapiSettingsAccess access,
            Path stateFile) {
        placement.refuseIfIrqbalance(IrqPlan.settings(nic, plan, options.xps()), options);
        List<Integer> napiIds = plannedNapis(nic, access.discover().get());
        NapiSettingsChange.Access named = named(access.settings());
        Wanted whole = Wanted.plan(plan);
        if (options.dryRun()) {
            Map<Integer, NapiSettings> before = new LinkedHashMap<>();
            napiIds.forEach(napiId -> before.put(napiId, named.read(napiId)));
            return whole.applyBy(placement, nic, options, stateFile)
                    .withNapiSettings(new NicPlacement.NapiSettingsOutcome(wanted, before));
        }
        boolean hadState = Files.exists(stateFile);
        RecordedNapiSettings recorded;
        try {
            recorded = RecordedNapiSettings.apply(stateFile, nic.name(), named, napiIds, wanted);
        } catch (NapiSetFailed e) {
            if (e.getSuppressed().length == 0) {
                throw new NapiFeatureFailure(
                        e.kind(),
                        NapiFeatureFailure.Feature.IRQ_SUSPENSION,
                        e.getMessage() + "; the NAPIs already set were put back; nothing was changed",
                        e);
            }
            // The NAPIs' entries stay in the state file (RecordedNapiSettings keeps them when a put-back failed).
            RestoreNeeded needed = new RestoreNeeded(
                    NumaspreadException.Kind.ROLLED_BACK,
                    "IRQ suspension: " + e.getMessage() + "; ROLLBACK FAILED: " + e.getSuppressed()[0].getMessage(),
                    stateFile,
                    placement.paths(),
                    "");
            needed.initCause(e);
            throw needed;
        }
        try {
            return whole.applyBy(placement, nic, options, stateFile)
                    .withNapiSettings(new NicPlacement.NapiSettingsOutcome(wanted, recorded.before()));
        } catch (RuntimeException e) {
            throw putBack(recorded, stateFile, hadState, e);
        }
    }

    /**
     * Puts back every NAPI's settings after the IRQs' transaction failed with {@code failed} (which rolled its own
     * changes back), and the state file as it was: the failure to throw, saying so.
     */
    private static RuntimeException putBack(
            RecordedNapiSettings recorded, Path stateFile, boolean hadState, RuntimeException failed) {
        try {
            recorded.restore();
        } catch (RuntimeException notBack) {
            return new NumaspreadException(
                    NumaspreadException.Kind.ROLLED_BACK,
                    failed.getMessage() + "; ROLLBACK FAILED for the NAPI settings (" + notBack.getMessage()
                            + "): numaspread restore puts them back from " + stateFile,
                    failed);
        }
        if (!hadState) {
            // The IRQ transaction's roll back keeps a file it did not create (here, for the NAPIs' entries).
            deleteState(stateFile);
        }
        String back = "; every NAPI's settings were put back too";
        if (failed instanceof RestoreNeeded stale) {
            return stale.followedBy(back);
        }
        if (failed instanceof NapiFeatureFailure feature) {
            return feature.followedBy(back);
        }
        if (failed instanceof NumaspreadException failure) {
            return new NumaspreadException(failure.kind(), failure.getMessage() + back, failure);
        }
        return failed;
    }

    @SuppressWarnings("try") // the lock is held, not used
    private static void deleteState(Path stateFile) {
        try (StateFile.Lock lock = StateFile.lock(stateFile)) {
            StateFile.delete(stateFile);
        }
    }

    /**
     * The NAPI ID of each queue of {@code nic} that {@code map} links to one, in queue order.
     *
     * @throws NumaspreadException (refused) when it links none
     */
    private static List<Integer> plannedNapis(Nic nic, NapiMap map) {
        List<Integer> napiIds = nic.queues().stream()
                .map(map::forQueue)
                .flatMap(Optional::stream)
                .map(NapiInstance::id)
                .toList();
        if (napiIds.isEmpty()) {
            throw new NapiFeatureFailure(
                    NumaspreadException.Kind.REFUSED,
                    NapiFeatureFailure.Feature.IRQ_SUSPENSION,
                    "no queue of " + nic.name() + " has a NAPI ID: "
                            + (map.instances().isEmpty()
                                    ? "netdev netlink napi-get lists no NAPI of it (the kernel lists an interface's"
                                            + " NAPIs only while it is up, and only for drivers that poll with NAPI)"
                                    : "netdev netlink links none of its "
                                            + map.instances().size() + " NAPI instances to queues " + nic.queues())
                            + " (" + map.detail() + "); nothing was changed");
        }
        return napiIds;
    }

    /** {@code access} whose failures name the feature and the NAPI. */
    private static NapiSettingsChange.Access named(NapiSettingsChange.Access access) {
        return new NapiSettingsChange.Access() {
            @Override
            public NapiSettings read(int napiId) {
                try {
                    return access.read(napiId);
                } catch (NumaspreadException e) {
                    throw new NapiFeatureFailure(
                            e.kind(),
                            NapiFeatureFailure.Feature.IRQ_SUSPENSION,
                            "NAPI " + napiId + ": " + e.getMessage() + "; nothing was changed",
                            e);
                }
            }

            @Override
            public void write(int napiId, NapiSettings settings) {
                try {
                    access.write(napiId, settings);
                } catch (RuntimeException e) {
                    boolean denied = NapiSettingsChange.deniedPrivilege(e);
                    throw new NapiSetFailed(
                            denied ? NumaspreadException.Kind.REFUSED : NumaspreadException.Kind.ROLLED_BACK,
                            "NAPI " + napiId + ": " + e.getMessage()
                                    + (denied ? ": netdev netlink napi-set needs CAP_NET_ADMIN" : ""),
                            e);
                }
            }
        };
    }
}
