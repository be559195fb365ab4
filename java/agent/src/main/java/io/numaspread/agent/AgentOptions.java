// SPDX-License-Identifier: Apache-2.0
package io.numaspread.agent;

import io.numaspread.plan.Mode;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * The agent's option string:
 * {@code threads=GLOB[|GLOB...],(nic=IFACE|node=N,count=K)[,mode=siblings|cpu][,irqs=apply][,strict=true][,verbose=true]}.
 *
 * @param globs thread-name globs; a thread matching any of them takes the next assignment of the one plan
 * @param nic the NIC whose node is the origin and whose queue count is the default count
 * @param node the origin node, when no NIC is given
 * @param count how many assignments the rotation has
 * @param applyIrqs also apply the NIC's IRQ plan, as {@code numaspread apply} does
 * @param strict refuse to start the JVM when anything is wrong, instead of running without pinning
 * @param verbose print each pin to stderr, not only failures
 */
record AgentOptions(List<String> globs, Optional<String> nic, OptionalInt node, OptionalInt count, Mode mode,
        boolean applyIrqs, boolean strict, boolean verbose) {

    static final String SYNTAX = "threads=GLOB[|GLOB...],(nic=IFACE|node=N,count=K)[,mode=siblings|cpu]"
            + "[,irqs=apply][,strict=true][,verbose=true]";

    private static final List<String> KEYS = List.of("threads", "nic", "node", "count", "mode", "irqs", "strict",
            "verbose");

    AgentOptions {
        globs = List.copyOf(globs);
    }

    /**
     * @throws AgentException naming the option that is unknown, repeated, missing or malformed
     */
    static AgentOptions parse(String text) {
        Map<String, String> values = new LinkedHashMap<>();
        if (text == null || text.isBlank()) {
            throw new AgentException("no options; use " + SYNTAX);
        }
        for (String option : text.split(",", -1)) {
            int equals = option.indexOf('=');
            if (equals <= 0) {
                throw new AgentException("option \"" + option + "\" is not KEY=VALUE; use " + SYNTAX);
            }
            String key = option.substring(0, equals).strip();
            if (!KEYS.contains(key)) {
                throw new AgentException("unknown option \"" + key + "\"; the options are " + KEYS);
            }
            if (values.put(key, option.substring(equals + 1).strip()) != null) {
                throw new AgentException("option \"" + key + "\" is given twice");
            }
        }
        String threads = values.get("threads");
        if (threads == null) {
            throw new AgentException("threads=GLOB is missing; use " + SYNTAX);
        }
        List<String> globs = Arrays.asList(threads.split("\\|", -1));
        Optional<String> nic = Optional.ofNullable(values.get("nic"));
        OptionalInt node = number(values, "node", 0);
        OptionalInt count = number(values, "count", 1);
        if (nic.isPresent() == node.isPresent()) {
            throw new AgentException(nic.isPresent() ? "give nic= or node=, not both"
                    : "nic=IFACE or node=N,count=K is missing; use " + SYNTAX);
        }
        if (node.isPresent() && count.isEmpty()) {
            throw new AgentException("node=" + node.getAsInt() + " needs count=K");
        }
        if (nic.isPresent() && (nic.get().isEmpty() || nic.get().contains("/") || nic.get().contains(".."))) {
            throw new AgentException("nic=\"" + nic.get() + "\" is no interface name");
        }
        boolean applyIrqs = choice(values, "irqs", List.of("apply"), null) != null;
        if (applyIrqs && nic.isEmpty()) {
            throw new AgentException("irqs=apply needs nic=IFACE");
        }
        Mode mode = "cpu".equals(choice(values, "mode", List.of("siblings", "cpu"), "siblings")) ? Mode.CPU
                : Mode.SIBLINGS;
        return new AgentOptions(globs, nic, node, count, mode, applyIrqs, flag(values, "strict"), flag(values, "verbose"));
    }

    /** Whether the raw option string asks for strict mode, for when it fails to parse as a whole. */
    static boolean strictRequested(String text) {
        return text != null && Arrays.stream(text.split(",", -1)).anyMatch(o -> o.strip().equals("strict=true"));
    }

    private static OptionalInt number(Map<String, String> values, String key, int minimum) {
        String value = values.get(key);
        if (value == null) {
            return OptionalInt.empty();
        }
        try {
            int number = Integer.parseInt(value);
            if (number >= minimum) {
                return OptionalInt.of(number);
            }
        } catch (NumberFormatException e) {
            // reported below with the option's name
        }
        throw new AgentException(key + "=\"" + value + "\" is not a whole number of at least " + minimum);
    }

    private static String choice(Map<String, String> values, String key, List<String> allowed, String fallback) {
        String value = values.get(key);
        if (value == null) {
            return fallback;
        }
        if (!allowed.contains(value)) {
            throw new AgentException(key + "=\"" + value + "\" must be one of " + allowed);
        }
        return value;
    }

    private static boolean flag(Map<String, String> values, String key) {
        return "true".equals(choice(values, key, List.of("true", "false"), "false"));
    }
}
