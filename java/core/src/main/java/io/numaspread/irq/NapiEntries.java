// SPDX-License-Identifier: Apache-2.0
package io.numaspread.irq;

import io.numaspread.nic.NapiInstance;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.function.BiConsumer;
import java.util.function.BiFunction;

/**
 * The state records kept NAPI by NAPI ({@link NapiThreadedRecord}, {@link NapiSettingsRecord}, {@link
 * NapiThreadSchedRecord}): a value by NAPI ID, written as a JSON array of objects that each name their {@code
 * "napi"}. What they share is here, so that each record says only what its value is.
 */
final class NapiEntries {
    private NapiEntries() {}

    /** Reads one entry's value; its {@code "napi"} is read, not yet checked. */
    interface EntryDecoder<V> {
        V decode(String entry, long napi, Map<?, ?> fields);
    }

    /** {@code entries} checked, each NAPI ID and value by {@code check}, as an unmodifiable copy. */
    static <V> SortedMap<Integer, V> checked(Map<Integer, V> entries, BiConsumer<Integer, V> check) {
        entries.forEach((napiId, value) -> {
            requireNapiId(napiId);
            check.accept(napiId, value);
        });
        return Collections.unmodifiableSortedMap(new TreeMap<>(entries));
    }

    private static void requireNapiId(int napiId) {
        if (napiId < NapiInstance.MIN_NAPI_ID) {
            throw new IllegalArgumentException(
                    "NAPI " + napiId + " is no NAPI ID (they start at " + NapiInstance.MIN_NAPI_ID + ")");
        }
    }

    /** {@code first} plus {@code later}'s entries for NAPIs it does not hold: the first value recorded wins. */
    static <V> SortedMap<Integer, V> merged(SortedMap<Integer, V> first, SortedMap<Integer, V> later) {
        SortedMap<Integer, V> merged = new TreeMap<>(later);
        merged.putAll(first);
        return merged;
    }

    static <V> SortedMap<Integer, V> without(SortedMap<Integer, V> entries, Collection<Integer> napiIds) {
        SortedMap<Integer, V> left = new TreeMap<>(entries);
        left.keySet().removeAll(napiIds);
        return left;
    }

    /** The NAPIs of {@code napiIds} that {@code earlier} holds no entry for: those a record of them adds. */
    static List<Integer> notIn(Collection<Integer> napiIds, SortedMap<Integer, ?> earlier) {
        return napiIds.stream().filter(napiId -> !earlier.containsKey(napiId)).toList();
    }

    /** The entries as a JSON array, one entry a line; {@link RpsRecord}'s, by receive queue, too. */
    static <V> String encode(SortedMap<Integer, V> entries, BiFunction<Integer, V, String> entry) {
        StringBuilder json = new StringBuilder("[");
        String separator = "\n";
        for (Map.Entry<Integer, V> napi : entries.entrySet()) {
            json.append(separator).append("    ").append(entry.apply(napi.getKey(), napi.getValue()));
            separator = ",\n";
        }
        return json.append("\n  ]").toString();
    }

    /**
     * The entries of the array {@code value} under {@code key}, each read by {@code decoder}.
     *
     * @throws IllegalArgumentException naming the entry that is wrong, or the NAPI recorded twice
     */
    static <V> SortedMap<Integer, V> decode(Object value, String key, EntryDecoder<V> decoder) {
        List<?> napis = StateFileFormat.as(List.class, value, "\"" + key + "\"");
        SortedMap<Integer, V> entries = new TreeMap<>();
        for (int i = 0; i < napis.size(); i++) {
            String entry = "entry " + (i + 1) + " of \"" + key + "\"";
            Map<?, ?> fields = StateFileFormat.as(Map.class, napis.get(i), entry);
            long napi = StateFileFormat.as(Long.class, fields.get("napi"), entry + ": \"napi\"");
            if (entries.put((int) napi, decoder.decode(entry, napi, fields)) != null) {
                throw new IllegalArgumentException(entry + ": NAPI " + napi + " is recorded twice");
            }
        }
        return entries;
    }

    /** Refuses a {@code "napi"} of an {@code entry} that is no NAPI ID, naming the entry. */
    static void checkNapiId(long napi, String entry) {
        if (napi < NapiInstance.MIN_NAPI_ID || napi > Integer.MAX_VALUE) {
            throw new IllegalArgumentException(entry + ": \"napi\" " + napi + " is no NAPI ID");
        }
    }
}
