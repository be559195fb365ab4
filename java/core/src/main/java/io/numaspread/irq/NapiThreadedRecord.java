// SPDX-License-Identifier: Apache-2.0
package io.numaspread.irq;

import io.numaspread.kernel.InterfaceName;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * Each NAPI's own {@code threaded} (0, 1 or 2) before an apply set it with netdev netlink {@code napi-set} (Linux
 * 6.17), by NAPI ID, {@code "napi_threaded": [{"napi": 8193, "threaded": 0}]}: the change of {@link
 * NapiThreadedSwitch}. The kernel keeps the value in the NAPI's persistent config, past numaspread's exit.
 */
public record NapiThreadedRecord(SortedMap<Integer, Integer> before) implements StateRecord<NapiThreadedRecord> {
    static final Kind<NapiThreadedRecord> KIND = new Kind<>(
            NapiThreadedRecord.class,
            "napi_threaded",
            new NapiThreadedRecord(new TreeMap<>()),
            NapiThreadedRecord::decode,
            NapiThreadedSwitch::restoring);

    public NapiThreadedRecord {
        before.forEach((napiId, threaded) -> {
            StateFile.checkNapiId(napiId);
            if (threaded < 0 || threaded > 2) {
                throw new IllegalArgumentException(
                        "NAPI " + napiId + ": \"threaded\" is " + threaded + ", none of 0, 1 and 2");
            }
        });
        before = Collections.unmodifiableSortedMap(new TreeMap<>(before));
    }

    /** The record of these NAPIs' {@code threaded} as they were, by NAPI ID. */
    public static NapiThreadedRecord of(Map<Integer, Integer> before) {
        return new NapiThreadedRecord(new TreeMap<>(before));
    }

    @Override
    public Kind<NapiThreadedRecord> kind() {
        return KIND;
    }

    @Override
    public boolean isEmpty() {
        return before.isEmpty();
    }

    @Override
    public NapiThreadedRecord mergedWith(NapiThreadedRecord later) {
        SortedMap<Integer, Integer> merged = new TreeMap<>(later.before);
        merged.putAll(before);
        return new NapiThreadedRecord(merged);
    }

    /** This record without these NAPIs, once they are put back. */
    public NapiThreadedRecord without(Collection<Integer> napiIds) {
        SortedMap<Integer, Integer> left = new TreeMap<>(before);
        left.keySet().removeAll(napiIds);
        return new NapiThreadedRecord(left);
    }

    @Override
    public String encode() {
        return StateFile.entries(
                before, (napiId, threaded) -> "{\"napi\": " + napiId + ", \"threaded\": " + threaded + "}");
    }

    private static NapiThreadedRecord decode(Object value, InterfaceName iface) {
        List<?> napis = StateFile.as(List.class, value, "\"napi_threaded\"");
        SortedMap<Integer, Integer> before = new TreeMap<>();
        for (int i = 0; i < napis.size(); i++) {
            String entry = "entry " + (i + 1) + " of \"napi_threaded\"";
            Map<?, ?> fields = StateFile.as(Map.class, napis.get(i), entry);
            long napi = StateFile.as(Long.class, fields.get("napi"), entry + ": \"napi\"");
            long threaded = StateFile.as(Long.class, fields.get("threaded"), entry + ": \"threaded\"");
            StateFile.checkNapiId(napi, entry);
            if (threaded < 0 || threaded > 2) {
                throw new IllegalArgumentException(entry + ": \"threaded\" is " + threaded + ", none of 0, 1 and 2");
            }
            if (before.put((int) napi, (int) threaded) != null) {
                throw new IllegalArgumentException(entry + ": NAPI " + napi + " is recorded twice");
            }
        }
        return new NapiThreadedRecord(before);
    }
}
