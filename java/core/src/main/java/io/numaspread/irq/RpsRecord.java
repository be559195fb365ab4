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
 * Each receive queue's {@code rps_cpus} before an apply turned Receive Packet Steering off, by queue, {@code "rps":
 * [{"queue": 0, "cpus": "0000000f"}]}: the change of {@link RpsOff}. Only queues whose mask was not empty are
 * recorded, each mask as the kernel printed it.
 */
public record RpsRecord(SortedMap<Integer, String> before) implements StateRecord<RpsRecord> {
    private static final String KEY = "rps";
    static final Kind<RpsRecord> KIND =
            new Kind<>(RpsRecord.class, KEY, new RpsRecord(new TreeMap<>()), RpsRecord::decode, RpsOff::restoring);

    public RpsRecord {
        before.forEach((queue, cpus) -> {
            if (queue < 0) {
                throw new IllegalArgumentException("rx-" + queue + " is no receive queue");
            }
            if (!RpsOff.isMask(cpus)) {
                throw new IllegalArgumentException("rx-" + queue + ": \"" + cpus + "\" is not a hex mask");
            }
        });
        before = Collections.unmodifiableSortedMap(new TreeMap<>(before));
    }

    /** The record of these queues' masks as they were. */
    public static RpsRecord of(Map<Integer, String> before) {
        return new RpsRecord(new TreeMap<>(before));
    }

    @Override
    public Kind<RpsRecord> kind() {
        return KIND;
    }

    @Override
    public boolean isEmpty() {
        return before.isEmpty();
    }

    @Override
    public RpsRecord mergedWith(RpsRecord later) {
        SortedMap<Integer, String> merged = new TreeMap<>(later.before);
        merged.putAll(before);
        return new RpsRecord(merged);
    }

    /** This record without these queues, once they are put back. */
    RpsRecord without(Collection<Integer> queues) {
        SortedMap<Integer, String> left = new TreeMap<>(before);
        left.keySet().removeAll(queues);
        return new RpsRecord(left);
    }

    @Override
    public String encode() {
        return NapiEntries.encode(before, (queue, cpus) -> "{\"queue\": " + queue + ", \"cpus\": \"" + cpus + "\"}");
    }

    private static RpsRecord decode(Object value, InterfaceName iface) {
        List<?> queues = StateFileFormat.as(List.class, value, "\"" + KEY + "\"");
        SortedMap<Integer, String> before = new TreeMap<>();
        for (int i = 0; i < queues.size(); i++) {
            String entry = "entry " + (i + 1) + " of \"" + KEY + "\"";
            Map<?, ?> fields = StateFileFormat.as(Map.class, queues.get(i), entry);
            long queue = StateFileFormat.as(Long.class, fields.get("queue"), entry + ": \"queue\"");
            String cpus = StateFileFormat.as(String.class, fields.get("cpus"), entry + ": \"cpus\"");
            if (queue < 0 || queue > Integer.MAX_VALUE) {
                throw new IllegalArgumentException(entry + ": \"queue\" " + queue + " is no receive queue");
            }
            if (!RpsOff.isMask(cpus)) {
                throw new IllegalArgumentException(entry + ": \"cpus\" \"" + cpus + "\" is not a hex mask");
            }
            if (before.put((int) queue, cpus) != null) {
                throw new IllegalArgumentException(entry + ": rx-" + queue + " is recorded twice");
            }
        }
        return new RpsRecord(before);
    }
}
