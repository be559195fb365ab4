// SPDX-License-Identifier: Apache-2.0
package io.numaspread.irq;

import io.numaspread.NumaspreadException;
import io.numaspread.kernel.InterfaceName;
import io.numaspread.nic.NapiSettings;
import io.numaspread.nic.NapiSettingsChange;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Putting each recorded NAPI's settings back with {@code napi-set} ({@link NapiSettingsRecord}), as {@code restore}
 * does; the change itself is {@link RecordedNapiSettings}'s, which a Netty group or {@code apply --irq-suspend}
 * makes and undoes through {@link NapiSettingsChange}.
 */
final class NapiSettingsPutBack implements Change.PutBack {
    private final NapiSettingsRecord record;
    private final ChangeContext kernel;
    private final InterfaceName iface;

    NapiSettingsPutBack(NapiSettingsRecord record, ChangeContext kernel, InterfaceName iface) {
        this.record = record;
        this.kernel = kernel;
        this.iface = iface;
    }

    /**
     * Refuses without the privilege (or the kernel) to set a recorded NAPI's settings: the first recorded NAPI that
     * exists gets its own current settings written back.
     */
    @Override
    public void probe() {
        if (!Files.exists(kernel.paths().netDevice(iface))) {
            return;
        }
        for (int napiId : record.before().keySet()) {
            Optional<NapiSettings> current = current(napiId);
            if (current.isEmpty()) {
                continue;
            }
            try {
                kernel.napiSettings().write(napiId, current.get());
            } catch (NumaspreadException e) {
                if (NapiSettingsChange.deniedPrivilege(e)) {
                    throw ChangeContext.napiSetRefused(
                            "cannot put back NAPI " + napiId + "'s settings", e.getMessage());
                }
            }
            return;
        }
    }

    /** A NAPI that no longer exists has nothing to put back. */
    @Override
    public List<String> putBack(List<AffinityTransaction.Result> results) {
        if (!Files.exists(kernel.paths().netDevice(iface))) {
            return List.of();
        }
        List<String> failures = new ArrayList<>();
        record.before().forEach((napiId, before) -> {
            try {
                Optional<NapiSettings> current = current(napiId);
                if (current.isEmpty() || current.get().equals(before)) {
                    return;
                }
                kernel.napiSettings().write(napiId, before);
                NapiSettings back = kernel.napiSettings().read(napiId);
                if (!back.equals(before)) {
                    failures.add("NAPI " + napiId + ": set " + before + " but napi-get reports " + back);
                }
            } catch (NumaspreadException e) {
                failures.add("NAPI " + napiId + ": putting its settings back failed: " + e.getMessage());
            }
        });
        return failures;
    }

    /** A NAPI's settings now, or empty when it is gone (ENOENT: its queue or device was removed). */
    private Optional<NapiSettings> current(int napiId) {
        try {
            return Optional.of(kernel.napiSettings().read(napiId));
        } catch (NumaspreadException e) {
            if (NapiSettingsChange.gone(e)) {
                return Optional.empty();
            }
            throw e;
        }
    }
}
