// SPDX-License-Identifier: Apache-2.0
package io.numaspread.irq;

import io.numaspread.kernel.InterfaceName;
import io.numaspread.nic.NapiInstance;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The state file's JSON: a {@link StateFile.State} written as text and read back, every field of it checked, and
 * the records of newer builds told apart so that they are kept as they are. {@link StateFile} keeps the file itself
 * (where it is, who may change its directory, reading, writing and locking it); this class sees only text.
 *
 * <p>Format: {@code {"version": 1, "interface": "eth0", "saved": [{"kind": "irq", "number": 38,
 * "name": "virtio2-input.0", "value": "0-1"}, {"kind": "xps", "number": 0, "name": "eth0", "value":
 * "00000003"}]}}. With {@code apply --napi-threads} it also holds each NAPI thread's previous affinity,
 * {@code {"kind": "napi", "number": 8193, "name": "napi/eth0-8193", "value": "0-3"}}, and, when the apply turned
 * threaded NAPI on, the interface's previous {@code "threaded": 0}; when it turned it on NAPI by NAPI through
 * netdev netlink {@code napi-set} (Linux 6.17), each such NAPI's previous value, {@code "napi_threaded": [{"napi":
 * 8193, "threaded": 0}]}: the kernel keeps those in the NAPI's persistent config, past numaspread's exit, so they
 * are recorded before the first is written. A {@code napi-set} of busy-poll settings (IRQ suspension: {@code apply
 * --irq-suspend}, or a Netty group's) records each NAPI's previous ones the same way, {@code "napi_settings":
 * [{"napi": 8193, "defer_hard_irqs": 0, "gro_flush_timeout": 0, "irq_suspend_timeout": 0}]}, in the same file as the
 * interface's other records, so that one {@code restore --nic} puts everything back. {@code apply --poll-sched}
 * records each busy-poll thread's scheduling class before it sets the first, {@code "napi_thread_sched": [{"napi":
 * 8193, "policy": "other", "priority": 0}]}. Files without them (older ones) read as before. Each of these
 * records is its kind's {@link StateRecord}, which encodes and decodes it; this class writes and reads the rest.
 */
final class StateFileFormat {
    private static final int VERSION = 1;

    /**
     * The top-level keys this build reads and writes. Any other is a record of a newer build sharing the directory
     * (version 1 grows by new top-level keys; a change an older build must not touch raises the version, which it
     * refuses): every rewrite keeps it as it is, removing the file keeps the file for it, and {@code restore}
     * refuses to run without it ({@link StateFile#foreignRecords}).
     */
    private static final Set<String> KNOWN_KEYS = Stream.concat(
                    Stream.of("version", "interface", "saved"),
                    StateRecord.KINDS.stream().map(StateRecord.Kind::key))
            .collect(Collectors.toUnmodifiableSet());

    private StateFileFormat() {}

    /** The records in the file's JSON object {@code root} that this build does not know, by key. */
    static SortedMap<String, Object> foreign(Optional<Map<?, ?>> root) {
        SortedMap<String, Object> foreign = new TreeMap<>();
        root.ifPresent(fields -> fields.forEach((key, value) -> {
            if (!KNOWN_KEYS.contains(key)) {
                foreign.put((String) key, value);
            }
        }));
        return foreign;
    }

    static String encode(StateFile.State state) {
        return encode(state, Map.of());
    }

    /** {@code state} and, after it, the {@code foreign} records a newer build wrote, as they were. */
    static String encode(StateFile.State state, Map<String, Object> foreign) {
        StringBuilder json = new StringBuilder();
        json.append("{\n  \"version\": ")
                .append(VERSION)
                .append(",\n  \"interface\": ")
                .append(MiniJson.quote(state.iface().value()));
        state.records()
                .forEach(record -> json.append(",\n  ")
                        .append(MiniJson.quote(record.kind().key()))
                        .append(": ")
                        .append(record.encode()));
        json.append(",\n  \"saved\": [");
        for (int i = 0; i < state.saved().size(); i++) {
            StateFile.Saved saved = state.saved().get(i);
            json.append(i == 0 ? "\n" : ",\n")
                    .append("    {\"kind\": ")
                    .append(MiniJson.quote(kindName(saved.target().kind())))
                    .append(", \"number\": ")
                    .append(saved.target().number())
                    .append(", \"name\": ")
                    .append(MiniJson.quote(saved.target().name()))
                    .append(", \"value\": ")
                    .append(MiniJson.quote(saved.value()))
                    .append('}');
        }
        json.append("\n  ]");
        foreign.forEach((key, value) ->
                json.append(",\n  ").append(MiniJson.quote(key)).append(": ").append(MiniJson.write(value)));
        return json.append("\n}\n").toString();
    }

    /**
     * The state in {@code text}, every field checked for its type and every value for its form, so that nothing
     * is written from a file that is wrong anywhere.
     *
     * @throws IllegalArgumentException naming the field or entry that is wrong
     */
    static StateFile.State decode(String text) {
        Map<?, ?> root = as(Map.class, MiniJson.parse(text), "the file");
        Object version = root.get("version");
        if (!Long.valueOf(VERSION).equals(version)) {
            throw new IllegalArgumentException(
                    "\"version\" is " + MiniJson.quote(String.valueOf(version)) + ", expected " + VERSION);
        }
        InterfaceName iface = new InterfaceName(as(String.class, root.get("interface"), "\"interface\""));
        List<StateRecord<?>> records = new ArrayList<>();
        StateRecord.KINDS.forEach(kind -> kind.decode(root, iface).ifPresent(records::add));
        List<?> entries = as(List.class, root.get("saved"), "\"saved\"");
        List<StateFile.Saved> saved = new ArrayList<>();
        Set<String> files = new HashSet<>();
        for (int i = 0; i < entries.size(); i++) {
            String entry = "entry " + (i + 1) + " of \"saved\"";
            Map<?, ?> fields = as(Map.class, entries.get(i), entry);
            Target.Kind kind = switch (as(String.class, fields.get("kind"), entry + ": \"kind\"")) {
                case "irq" -> Target.Kind.IRQ;
                case "xps" -> Target.Kind.XPS;
                case "napi" -> Target.Kind.NAPI_THREAD;
                default ->
                    throw new IllegalArgumentException(entry + ": \"kind\" is none of \"irq\", \"xps\" and \"napi\"");
            };
            long number = as(Long.class, fields.get("number"), entry + ": \"number\"");
            if (number < 0 || number > Integer.MAX_VALUE) {
                throw new IllegalArgumentException(entry + ": \"number\" " + number + " is out of range");
            }
            String name = as(String.class, fields.get("name"), entry + ": \"name\"");
            if (kind == Target.Kind.XPS && !name.equals(iface.value())) {
                throw new IllegalArgumentException(
                        entry + ": an xps entry names " + MiniJson.quote(name) + " in the state of " + iface);
            }
            if (kind == Target.Kind.NAPI_THREAD
                    && (number < NapiInstance.MIN_NAPI_ID
                            || !name.equals(Target.napiThreadName(iface, (int) number)))) {
                throw new IllegalArgumentException(entry + ": a napi entry for NAPI " + number + " names "
                        + MiniJson.quote(name) + ", not the thread "
                        + (number < NapiInstance.MIN_NAPI_ID
                                ? "of a NAPI ID (they start at " + NapiInstance.MIN_NAPI_ID + ")"
                                : MiniJson.quote(Target.napiThreadName(iface, (int) number)))
                        + " of " + iface);
            }
            Target target = new Target(kind, (int) number, name);
            if (!files.add(kind + " " + number)) {
                throw new IllegalArgumentException(entry + ": " + target.label() + " is recorded twice");
            }
            String value = as(String.class, fields.get("value"), entry + " (" + target.label() + "): \"value\"");
            try {
                saved.add(new StateFile.Saved(target, value));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(entry + " (" + target.label() + "): " + e.getMessage(), e);
            }
        }
        return new StateFile.State(iface, saved, records);
    }

    /** How the file names a kind: "irq", "xps", "napi". */
    private static String kindName(Target.Kind kind) {
        return switch (kind) {
            case IRQ -> "irq";
            case XPS -> "xps";
            case NAPI_THREAD -> "napi";
        };
    }

    /** {@code value} as a {@code type}, or a message naming {@code what} and what JSON type it should be. */
    static <T> T as(Class<T> type, Object value, String what) {
        if (!type.isInstance(value)) {
            String expected = type == Map.class
                    ? "an object"
                    : type == List.class ? "an array" : type == String.class ? "a string" : "an integer";
            throw new IllegalArgumentException(what + " is " + (value == null ? "missing or null" : "not " + expected));
        }
        return type.cast(value);
    }
}
