// SPDX-License-Identifier: Apache-2.0
package io.numaspread.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.numaspread.nic.NapiInstance;
import io.numaspread.nic.NapiMap;
import java.io.PrintWriter;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.OptionalInt;

/** A NIC's NAPI instances as {@code irqs} and {@code plan --nic} show them: per queue, and the source. */
final class NapiReport {
    private NapiReport() {}

    /** "netlink", "netlink_derived" or "interrupts". */
    static String source(NapiMap map) {
        return map.source().name().toLowerCase(Locale.ROOT);
    }

    /**
     * One line naming the source, then, when there are NAPI instances, a row each: its queue, NAPI ID, IRQ and
     * NAPI thread PID ("-" where the kernel gives none).
     */
    static void print(PrintWriter out, NapiMap map) {
        out.println("NAPI source: " + source(map) + " (" + map.detail() + ")");
        if (map.instances().isEmpty()) {
            return;
        }
        String format = "%5s  %7s  %5s  %s%n";
        out.printf(Locale.ROOT, format, "queue", "NAPI ID", "IRQ", "NAPI thread");
        for (NapiInstance instance : byQueue(map)) {
            out.printf(
                    Locale.ROOT,
                    format,
                    text(instance.queue()),
                    instance.id(),
                    text(instance.irq()),
                    instance.threadPid().isPresent()
                            ? "pid " + instance.threadPid().getAsInt()
                            : "-");
        }
    }

    /** {"source", "detail", "instances": [{"id", "queue", "irq", "thread_pid"}]}, null where none is known. */
    static ObjectNode toJson(NapiMap map) {
        ObjectNode napi = Json.object();
        napi.put("source", source(map));
        napi.put("detail", map.detail());
        ArrayNode instances = napi.putArray("instances");
        for (NapiInstance instance : byQueue(map)) {
            ObjectNode entry = instances.addObject();
            entry.put("id", instance.id());
            put(entry, "queue", instance.queue());
            put(entry, "irq", instance.irq());
            put(entry, "thread_pid", instance.threadPid());
        }
        return napi;
    }

    /** By queue, then those polling no known queue, by NAPI ID. */
    private static List<NapiInstance> byQueue(NapiMap map) {
        return map.instances().stream()
                .sorted(Comparator.comparingInt(
                                (NapiInstance instance) -> instance.queue().orElse(Integer.MAX_VALUE))
                        .thenComparingInt(NapiInstance::id))
                .toList();
    }

    private static String text(OptionalInt value) {
        return value.isPresent() ? Integer.toString(value.getAsInt()) : "-";
    }

    private static void put(ObjectNode entry, String name, OptionalInt value) {
        if (value.isPresent()) {
            entry.put(name, value.getAsInt());
        } else {
            entry.putNull(name);
        }
    }
}
