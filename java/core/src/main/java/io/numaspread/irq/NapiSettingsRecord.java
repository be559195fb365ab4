// SPDX-License-Identifier: Apache-2.0
package io.numaspread.irq;

import io.numaspread.kernel.InterfaceName;
import io.numaspread.nic.NapiSettings;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * Each NAPI's own {@code defer-hard-irqs}, {@code gro-flush-timeout} and {@code irq-suspend-timeout} before a
 * {@code napi-set} of them ({@code apply --irq-suspend}, a Netty group's), by NAPI ID, {@code "napi_settings":
 * [{"napi": 8193, "defer_hard_irqs": 0, "gro_flush_timeout": 0, "irq_suspend_timeout": 0}]}: the kernel keeps them
 * past the process (and, from 6.13's persistent NAPI config, past a queue reset), so they are recorded before the
 * first write. {@link RecordedNapiSettings} records them; {@link NapiSettingsPutBack} puts them back.
 */
public record NapiSettingsRecord(SortedMap<Integer, NapiSettings> before) implements StateRecord<NapiSettingsRecord> {
    static final Kind<NapiSettingsRecord> KIND = new Kind<>(
            NapiSettingsRecord.class,
            "napi_settings",
            new NapiSettingsRecord(new TreeMap<>()),
            NapiSettingsRecord::decode,
            NapiSettingsPutBack::new);

    public NapiSettingsRecord {
        before.forEach((napiId, settings) -> {
            StateFile.checkNapiId(napiId);
            Objects.requireNonNull(settings, "settings");
        });
        before = Collections.unmodifiableSortedMap(new TreeMap<>(before));
    }

    /** The record of these NAPIs' settings as they were, by NAPI ID. */
    public static NapiSettingsRecord of(Map<Integer, NapiSettings> before) {
        return new NapiSettingsRecord(new TreeMap<>(before));
    }

    @Override
    public Kind<NapiSettingsRecord> kind() {
        return KIND;
    }

    @Override
    public boolean isEmpty() {
        return before.isEmpty();
    }

    @Override
    public NapiSettingsRecord mergedWith(NapiSettingsRecord later) {
        SortedMap<Integer, NapiSettings> merged = new TreeMap<>(later.before);
        merged.putAll(before);
        return new NapiSettingsRecord(merged);
    }

    /** This record without these NAPIs, once they are put back. */
    public NapiSettingsRecord without(Collection<Integer> napiIds) {
        SortedMap<Integer, NapiSettings> left = new TreeMap<>(before);
        left.keySet().removeAll(napiIds);
        return new NapiSettingsRecord(left);
    }

    @Override
    public String encode() {
        return StateFile.entries(
                before,
                (napiId, settings) -> "{\"napi\": " + napiId + ", \"defer_hard_irqs\": " + settings.deferHardIrqs()
                        + ", \"gro_flush_timeout\": " + settings.groFlushTimeoutNanos() + ", \"irq_suspend_timeout\": "
                        + settings.irqSuspendTimeoutNanos() + "}");
    }

    private static NapiSettingsRecord decode(Object value, InterfaceName iface) {
        List<?> napis = StateFile.as(List.class, value, "\"napi_settings\"");
        SortedMap<Integer, NapiSettings> before = new TreeMap<>();
        for (int i = 0; i < napis.size(); i++) {
            String entry = "entry " + (i + 1) + " of \"napi_settings\"";
            Map<?, ?> fields = StateFile.as(Map.class, napis.get(i), entry);
            long napi = StateFile.as(Long.class, fields.get("napi"), entry + ": \"napi\"");
            StateFile.checkNapiId(napi, entry);
            NapiSettings settings;
            try {
                settings = new NapiSettings(
                        StateFile.as(Long.class, fields.get("defer_hard_irqs"), entry + ": \"defer_hard_irqs\""),
                        StateFile.as(Long.class, fields.get("gro_flush_timeout"), entry + ": \"gro_flush_timeout\""),
                        StateFile.as(
                                Long.class, fields.get("irq_suspend_timeout"), entry + ": \"irq_suspend_timeout\""));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(entry + " (NAPI " + napi + "): " + e.getMessage(), e);
            }
            if (before.put((int) napi, settings) != null) {
                throw new IllegalArgumentException(entry + ": NAPI " + napi + " is recorded twice");
            }
        }
        return new NapiSettingsRecord(before);
    }
}
