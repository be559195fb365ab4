// SPDX-License-Identifier: Apache-2.0
package io.numaspread.irq;

import io.numaspread.kernel.InterfaceName;
import java.util.Objects;
import java.util.OptionalInt;

/**
 * {@code /sys/class/net/IFACE/threaded} before an apply turned threaded NAPI on for the whole device, {@code
 * "threaded": 0}: the change of {@link DeviceThreadedSwitch}.
 *
 * @param before 0 or 1, or empty when no apply changed it
 */
public record ThreadedRecord(OptionalInt before) implements StateRecord<ThreadedRecord> {
    /** The record of no change. */
    public static final ThreadedRecord NONE = new ThreadedRecord(OptionalInt.empty());

    static final Kind<ThreadedRecord> KIND =
            new Kind<>(ThreadedRecord.class, "threaded", NONE, ThreadedRecord::decode, DeviceThreadedSwitch::restoring);

    public ThreadedRecord {
        Objects.requireNonNull(before, "before");
        if (before.isPresent() && before.getAsInt() != 0 && before.getAsInt() != 1) {
            throw new IllegalArgumentException("\"threaded\" is " + before.getAsInt() + ", neither 0 nor 1");
        }
    }

    /** The record of {@code threaded} as it was. */
    public static ThreadedRecord of(int threaded) {
        return new ThreadedRecord(OptionalInt.of(threaded));
    }

    @Override
    public Kind<ThreadedRecord> kind() {
        return KIND;
    }

    @Override
    public boolean isEmpty() {
        return before.isEmpty();
    }

    @Override
    public ThreadedRecord mergedWith(ThreadedRecord later) {
        return isEmpty() ? later : this;
    }

    @Override
    public String encode() {
        return Integer.toString(before.orElseThrow());
    }

    private static ThreadedRecord decode(Object value, InterfaceName iface) {
        long threaded = StateFileFormat.as(Long.class, value, "\"threaded\"");
        if (threaded != 0 && threaded != 1) {
            throw new IllegalArgumentException("\"threaded\" is " + threaded + ", neither 0 nor 1");
        }
        return of((int) threaded);
    }
}
