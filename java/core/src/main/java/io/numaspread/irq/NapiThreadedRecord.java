// SPDX-License-Identifier: Apache-2.0
package io.numaspread.irq;

import io.numaspread.kernel.InterfaceName;
import java.util.Collection;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * Each NAPI's own {@code threaded} (0, 1 or 2) before an apply set it with netdev netlink {@code napi-set} (Linux
 * 6.17), by NAPI ID, {@code "napi_threaded": [{"napi": 8193, "threaded": 0}]}: the change of {@link
 * NapiThreadedSwitch}. The kernel keeps the value in the NAPI's persistent config, past numaspread's exit.
 */
public record NapiThreadedRecord(SortedMap<Integer, Integer> before) implements StateRecord<NapiThreadedRecord> {
    private static final String KEY = "napi_threaded";
    static final Kind<NapiThreadedRecord> KIND = new Kind<>(
            NapiThreadedRecord.class,
            KEY,
            new NapiThreadedRecord(new TreeMap<>()),
            NapiThreadedRecord::decode,
            NapiThreadedSwitch::restoring);

    public NapiThreadedRecord {
        before = NapiEntries.checked(before, (napiId, threaded) -> {
            if (threaded < 0 || threaded > 2) {
                throw new IllegalArgumentException(
                        "NAPI " + napiId + ": \"threaded\" is " + threaded + ", none of 0, 1 and 2");
            }
        });
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
        return new NapiThreadedRecord(NapiEntries.merged(before, later.before));
    }

    /** This record without these NAPIs, once they are put back. */
    public NapiThreadedRecord without(Collection<Integer> napiIds) {
        return new NapiThreadedRecord(NapiEntries.without(before, napiIds));
    }

    @Override
    public String encode() {
        return NapiEntries.encode(
                before, (napiId, threaded) -> "{\"napi\": " + napiId + ", \"threaded\": " + threaded + "}");
    }

    private static NapiThreadedRecord decode(Object value, InterfaceName iface) {
        return new NapiThreadedRecord(NapiEntries.decode(value, KEY, (entry, napi, fields) -> {
            long threaded = StateFileFormat.as(Long.class, fields.get("threaded"), entry + ": \"threaded\"");
            NapiEntries.checkNapiId(napi, entry);
            if (threaded < 0 || threaded > 2) {
                throw new IllegalArgumentException(entry + ": \"threaded\" is " + threaded + ", none of 0, 1 and 2");
            }
            return (int) threaded;
        }));
    }
}
