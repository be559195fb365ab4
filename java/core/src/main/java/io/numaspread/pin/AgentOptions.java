// SPDX-License-Identifier: Apache-2.0
package io.numaspread.pin;

import io.numaspread.NumaspreadException;
import io.numaspread.kernel.InterfaceName;
import io.numaspread.plan.Mode;
import io.numaspread.plan.PlanRequest;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * The agent's option string, in the one place that both the {@code -javaagent} and {@code numaspread attach}
 * read it: {@value #SYNTAX}.
 *
 * <p>It is parsed before the application's {@code main}, so it is written for a cold JVM: plain loops, no
 * regular expressions, lambdas, streams or {@code String.format}, each of which loads and links classes that
 * cost milliseconds there.
 *
 * @param globs thread-name globs; a thread matching any of them takes the next assignment of the one plan
 * @param nic the NIC whose node is the origin and whose queue count is the default count
 * @param node the origin node, when no NIC is given
 * @param count how many assignments the rotation has, at most {@link PlanRequest#MAX_QUEUES} (checked here, before
 *     the agent's library or planner allocates anything for them)
 * @param applyIrqs also apply the NIC's IRQ plan, as {@code numaspread apply} does
 * @param leases lease the plan's CPUs in the host's CPU lease registry and plan around the CPUs other processes
 *     hold there ({@code leases=on}, the default), as a {@code PinnedEventLoopGroup} does; {@code leases=off}
 *     plans as if alone on the host
 * @param strict refuse to start the JVM (or fail the attach) when anything is wrong, instead of running without
 *     pinning
 * @param verbose print each pin to stderr, not only failures
 */
public record AgentOptions(
        List<String> globs,
        Optional<InterfaceName> nic,
        OptionalInt node,
        OptionalInt count,
        Mode mode,
        boolean applyIrqs,
        boolean leases,
        boolean strict,
        boolean verbose) {

    public static final String SYNTAX = "threads=GLOB[|GLOB...],(nic=IFACE|node=N,count=K)[,mode=siblings|cpu]"
            + "[,irqs=apply][,leases=on|off][,strict=true][,verbose=true]";

    /** The keys, in the order {@link #SYNTAX} gives them. */
    public static final String KEYS = "[threads, nic, node, count, mode, irqs, leases, strict, verbose]";

    private static final String[] KEY_NAMES = {
        "threads", "nic", "node", "count", "mode", "irqs", "leases", "strict", "verbose"
    };
    private static final int THREADS = 0;
    private static final int NIC = 1;
    private static final int NODE = 2;
    private static final int COUNT = 3;
    private static final int MODE = 4;
    private static final int IRQS = 5;
    private static final int LEASES = 6;
    private static final int STRICT = 7;
    private static final int VERBOSE = 8;

    public AgentOptions {
        globs = List.copyOf(globs);
    }

    /**
     * @throws NumaspreadException (bad input) naming the option that is unknown, repeated, missing or malformed
     */
    public static AgentOptions parse(String text) {
        if (text == null || text.isBlank()) {
            throw NumaspreadException.badInput("no options; use " + SYNTAX);
        }
        String[] values = new String[KEY_NAMES.length];
        int start = 0;
        while (start <= text.length()) {
            int end = text.indexOf(',', start);
            if (end < 0) {
                end = text.length();
            }
            String option = text.substring(start, end);
            int equals = option.indexOf('=');
            if (equals <= 0) {
                throw NumaspreadException.badInput("option \"" + option + "\" is not KEY=VALUE; use " + SYNTAX);
            }
            String key = option.substring(0, equals).strip();
            int index = keyIndex(key);
            if (index < 0) {
                throw NumaspreadException.badInput("unknown option \"" + key + "\"; the options are " + KEYS);
            }
            if (values[index] != null) {
                throw NumaspreadException.badInput("option \"" + key + "\" is given twice");
            }
            values[index] = option.substring(equals + 1).strip();
            start = end + 1;
        }
        if (values[THREADS] == null) {
            throw NumaspreadException.badInput("threads=GLOB is missing; use " + SYNTAX);
        }
        OptionalInt node = number(values[NODE], "node", 0, Integer.MAX_VALUE, "of at least 0");
        // MAX_QUEUES is a constant that javac copies here: PlanRequest is not loaded before main.
        OptionalInt count = number(
                values[COUNT],
                "count",
                1,
                PlanRequest.MAX_QUEUES,
                "from 1 to " + PlanRequest.MAX_QUEUES + ", the most queues a plan may hold");
        if ((values[NIC] != null) == node.isPresent()) {
            throw NumaspreadException.badInput(
                    node.isPresent()
                            ? "give nic= or node=, not both"
                            : "nic=IFACE or node=N,count=K is missing; use " + SYNTAX);
        }
        if (node.isPresent() && count.isEmpty()) {
            throw NumaspreadException.badInput("node=" + node.getAsInt() + " needs count=K");
        }
        Optional<InterfaceName> nic =
                values[NIC] == null ? Optional.empty() : Optional.of(new InterfaceName(values[NIC]));
        boolean applyIrqs = choice(values[IRQS], "irqs", "apply", null, "[apply]");
        if (applyIrqs && nic.isEmpty()) {
            throw NumaspreadException.badInput("irqs=apply needs nic=IFACE");
        }
        Mode mode = choice(values[MODE], "mode", "cpu", "siblings", "[siblings, cpu]") ? Mode.CPU : Mode.SIBLINGS;
        return new AgentOptions(
                split(values[THREADS], '|'),
                nic,
                node,
                count,
                mode,
                applyIrqs,
                !choice(values[LEASES], "leases", "off", "on", "[on, off]"),
                choice(values[STRICT], "strict", "true", "false", "[true, false]"),
                choice(values[VERBOSE], "verbose", "true", "false", "[true, false]"));
    }

    /** Whether the raw option string asks for strict mode, for when it fails to parse as a whole. */
    public static boolean strictRequested(String text) {
        if (text == null) {
            return false;
        }
        for (String option : split(text, ',')) {
            if (option.strip().equals("strict=true")) {
                return true;
            }
        }
        return false;
    }

    /** The options with {@code strict=true} added unless they say {@code strict=} themselves. */
    public static String strictByDefault(String text) {
        for (String option : split(text, ',')) {
            int equals = option.indexOf('=');
            if (equals > 0 && option.substring(0, equals).strip().equals("strict")) {
                return text;
            }
        }
        return text + ",strict=true";
    }

    private static int keyIndex(String key) {
        for (int i = 0; i < KEY_NAMES.length; i++) {
            if (KEY_NAMES[i].equals(key)) {
                return i;
            }
        }
        return -1;
    }

    /** The pieces between separators, empty ones kept (an empty glob is then named as such). */
    private static List<String> split(String text, char separator) {
        List<String> pieces = new ArrayList<>();
        int start = 0;
        for (int end = text.indexOf(separator); end >= 0; end = text.indexOf(separator, start)) {
            pieces.add(text.substring(start, end));
            start = end + 1;
        }
        pieces.add(text.substring(start));
        return pieces;
    }

    /** {@code value} as a whole number from {@code minimum} to {@code maximum}, which {@code range} words. */
    private static OptionalInt number(String value, String key, int minimum, int maximum, String range) {
        if (value == null) {
            return OptionalInt.empty();
        }
        try {
            int number = Integer.parseInt(value);
            if (number >= minimum && number <= maximum) {
                return OptionalInt.of(number);
            }
        } catch (NumberFormatException e) {
            // reported below with the option's name
        }
        throw NumaspreadException.badInput(key + "=\"" + value + "\" is not a whole number " + range);
    }

    /** True for {@code yes}, false for {@code no} or no value; anything else is refused, naming {@code allowed}. */
    private static boolean choice(String value, String key, String yes, String no, String allowed) {
        if (value == null || value.equals(no)) {
            return false;
        }
        if (value.equals(yes)) {
            return true;
        }
        throw NumaspreadException.badInput(key + "=\"" + value + "\" must be one of " + allowed);
    }
}
