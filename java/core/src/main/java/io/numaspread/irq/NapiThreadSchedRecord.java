// SPDX-License-Identifier: Apache-2.0
package io.numaspread.irq;

import io.numaspread.kernel.InterfaceName;
import io.numaspread.kernel.SchedPolicy;
import io.numaspread.kernel.ThreadScheduling;
import java.util.Arrays;
import java.util.Collection;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * Each busy-poll thread's scheduling class before {@code apply --poll-sched} set it with {@code
 * sched_setscheduler}, by NAPI ID, {@code "napi_thread_sched": [{"napi": 8193, "policy": "other", "priority": 0}]}:
 * the change of {@link BusyPollScheduling}.
 */
public record NapiThreadSchedRecord(SortedMap<Integer, ThreadScheduling> before)
        implements StateRecord<NapiThreadSchedRecord> {
    private static final String KEY = "napi_thread_sched";
    static final Kind<NapiThreadSchedRecord> KIND = new Kind<>(
            NapiThreadSchedRecord.class,
            KEY,
            new NapiThreadSchedRecord(new TreeMap<>()),
            NapiThreadSchedRecord::decode,
            BusyPollScheduling::restoring);

    public NapiThreadSchedRecord {
        before = NapiEntries.checked(before, (napiId, scheduling) -> Objects.requireNonNull(scheduling, "scheduling"));
    }

    /** The record of these threads' scheduling classes as they were, by NAPI ID. */
    public static NapiThreadSchedRecord of(Map<Integer, ThreadScheduling> before) {
        return new NapiThreadSchedRecord(new TreeMap<>(before));
    }

    @Override
    public Kind<NapiThreadSchedRecord> kind() {
        return KIND;
    }

    @Override
    public boolean isEmpty() {
        return before.isEmpty();
    }

    @Override
    public NapiThreadSchedRecord mergedWith(NapiThreadSchedRecord later) {
        return new NapiThreadSchedRecord(NapiEntries.merged(before, later.before));
    }

    /** This record without these NAPI threads, once they are put back. */
    public NapiThreadSchedRecord without(Collection<Integer> napiIds) {
        return new NapiThreadSchedRecord(NapiEntries.without(before, napiIds));
    }

    @Override
    public String encode() {
        return NapiEntries.encode(
                before,
                (napiId, scheduling) -> "{\"napi\": " + napiId + ", \"policy\": "
                        + MiniJson.quote(scheduling.policy().name().toLowerCase(Locale.ROOT)) + ", \"priority\": "
                        + scheduling.priority() + "}");
    }

    private static NapiThreadSchedRecord decode(Object value, InterfaceName iface) {
        return new NapiThreadSchedRecord(NapiEntries.decode(value, KEY, (entry, napi, fields) -> {
            NapiEntries.checkNapiId(napi, entry);
            String policy = StateFileFormat.as(String.class, fields.get("policy"), entry + ": \"policy\"");
            long priority = StateFileFormat.as(Long.class, fields.get("priority"), entry + ": \"priority\"");
            try {
                return new ThreadScheduling(
                        Arrays.stream(SchedPolicy.values())
                                .filter(p -> p.name().toLowerCase(Locale.ROOT).equals(policy))
                                .findFirst()
                                .orElseThrow(() -> new IllegalArgumentException("\"policy\" is "
                                        + MiniJson.quote(policy) + ", none of other, fifo, rr, batch and idle")),
                        (int) Math.max(Integer.MIN_VALUE, Math.min(Integer.MAX_VALUE, priority)));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(entry + " (NAPI " + napi + "): " + e.getMessage(), e);
            }
        }));
    }
}
