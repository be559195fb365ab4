// SPDX-License-Identifier: Apache-2.0
package io.numaspread.irq;

import io.numaspread.kernel.InterfaceName;
import io.numaspread.nic.NapiSettings;
import java.util.Collection;
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
    private static final String KEY = "napi_settings";
    static final Kind<NapiSettingsRecord> KIND = new Kind<>(
            NapiSettingsRecord.class,
            KEY,
            new NapiSettingsRecord(new TreeMap<>()),
            NapiSettingsRecord::decode,
            NapiSettingsPutBack::new);

    public NapiSettingsRecord {
        before = NapiEntries.checked(before, (napiId, settings) -> Objects.requireNonNull(settings, "settings"));
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
        return new NapiSettingsRecord(NapiEntries.merged(before, later.before));
    }

    /** This record without these NAPIs, once they are put back. */
    public NapiSettingsRecord without(Collection<Integer> napiIds) {
        return new NapiSettingsRecord(NapiEntries.without(before, napiIds));
    }

    @Override
    public String encode() {
        return NapiEntries.encode(
                before,
                (napiId, settings) -> "{\"napi\": " + napiId + ", \"defer_hard_irqs\": " + settings.deferHardIrqs()
                        + ", \"gro_flush_timeout\": " + settings.groFlushTimeoutNanos() + ", \"irq_suspend_timeout\": "
                        + settings.irqSuspendTimeoutNanos() + "}");
    }

    private static NapiSettingsRecord decode(Object value, InterfaceName iface) {
        return new NapiSettingsRecord(NapiEntries.decode(value, KEY, (entry, napi, fields) -> {
            NapiEntries.checkNapiId(napi, entry);
            try {
                return new NapiSettings(
                        StateFileFormat.as(Long.class, fields.get("defer_hard_irqs"), entry + ": \"defer_hard_irqs\""),
                        StateFileFormat.as(
                                Long.class, fields.get("gro_flush_timeout"), entry + ": \"gro_flush_timeout\""),
                        StateFileFormat.as(
                                Long.class, fields.get("irq_suspend_timeout"), entry + ": \"irq_suspend_timeout\""));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(entry + " (NAPI " + napi + "): " + e.getMessage(), e);
            }
        }));
    }
}
