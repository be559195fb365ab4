// SPDX-License-Identifier: Apache-2.0
package io.numaspread.irq;

import io.numaspread.kernel.InterfaceName;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.BiFunction;

/**
 * One kind of change's record in a state file, under a top-level key of its own: what the change replaced, written
 * before the change. Each kind encodes and decodes its own record, so that {@link StateFile} holds a list of them
 * and knows none; a new kind of change names its record type here, in {@code permits} and {@link #KINDS}, and
 * nothing else of the file changes. The affinity of IRQs, XPS queues and NAPI threads is the file's {@code "saved"}
 * array ({@link StateFile.Saved}), which every build since the first writes.
 *
 * @param <R> the record type itself, so that merging keeps it
 */
public sealed interface StateRecord<R extends StateRecord<R>>
        permits ThreadedRecord, NapiThreadedRecord, NapiSettingsRecord, NapiThreadSchedRecord, RpsRecord {
    /**
     * The kinds this build reads and writes, in the order they are written (and put back: {@link
     * Change.PutBack#needsNapiThreads} first). A key of none of them is a newer build's record.
     */
    List<Kind<?>> KINDS = List.of(
            ThreadedRecord.KIND,
            NapiThreadedRecord.KIND,
            NapiSettingsRecord.KIND,
            NapiThreadSchedRecord.KIND,
            RpsRecord.KIND);

    Kind<R> kind();

    /** Whether it records nothing to put back: such a record is not written. */
    boolean isEmpty();

    /** This record plus {@code later}'s entries for what it does not hold yet: the first value recorded wins. */
    R mergedWith(R later);

    /** The record's JSON value, as it follows its key at the file's top level (entries indented by four). */
    String encode();

    /**
     * What one kind's record is: its type, its key in the file, the record of nothing, how it is read from the
     * file's JSON and the change that puts back what it records.
     */
    final class Kind<R extends StateRecord<R>> {
        final Class<R> type;
        final String key;
        final R empty;
        final BiFunction<Object, InterfaceName, R> decoder;
        final Change.Restorer<R> restorer;

        /**
         * @param decoder reads the record from its JSON value: an {@link IllegalArgumentException} names what is wrong
         */
        Kind(
                Class<R> type,
                String key,
                R empty,
                BiFunction<Object, InterfaceName, R> decoder,
                Change.Restorer<R> restorer) {
            this.type = type;
            this.key = key;
            this.empty = empty;
            this.decoder = decoder;
            this.restorer = restorer;
        }

        /** Its top-level key in the file. */
        public String key() {
            return key;
        }

        /** The record in a file's top level, or empty when it has none. */
        Optional<R> decode(Map<?, ?> root, InterfaceName iface) {
            return root.containsKey(key) ? Optional.of(decoder.apply(root.get(key), iface)) : Optional.empty();
        }

        /** The change that puts back what {@code record} holds. */
        @SuppressWarnings("unchecked") // every record of a kind is of its type
        Change.PutBack restoring(StateRecord<?> record, ChangeContext kernel, InterfaceName iface) {
            return restorer.restoring((R) record, kernel, iface);
        }

        static Kind<?> of(Class<?> type) {
            return KINDS.stream()
                    .filter(kind -> kind.type == type)
                    .findFirst()
                    .orElseThrow(() -> new IllegalArgumentException(type + " is no kind of state record"));
        }
    }
}
