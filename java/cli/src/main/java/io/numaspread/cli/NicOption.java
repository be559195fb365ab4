// SPDX-License-Identifier: Apache-2.0
package io.numaspread.cli;

import io.numaspread.NumaspreadException;
import io.numaspread.kernel.InterfaceName;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import picocli.CommandLine.Option;

/**
 * {@code --nic IFACE}, every declaration of it. The commands ask different things of the flag: irqs and apply
 * cannot work without NICs (or {@code --all}), plan takes them instead of {@code --node/--count}, restore takes
 * one instead of {@code --state}, watch keeps one or more; so there is one mixin per meaning, each with its own
 * help text, and the name, the label and the parsing into an {@link InterfaceName} are this class's.
 */
final class NicOption {
    private static final String NAME = "--nic";
    private static final String LABEL = "IFACE";

    private NicOption() {}

    /**
     * The NICs irqs, apply and plan work on: {@code --nic} once or more, or {@code --all}; several are planned
     * together ({@link io.numaspread.plan.Planner#together}). For plan they give the origins and the counts that
     * {@code --node} and {@code --count} give otherwise.
     */
    static final class Chosen {
        @Option(
                names = NAME,
                paramLabel = LABEL,
                description = "A network interface whose queue IRQs are planned (e.g. eth0): near the node of its PCI"
                        + " function (numa_node, else local_cpulist), one per queue. Repeat for several, which are"
                        + " planned together: no CPU gets a second queue IRQ while one they may use has none.")
        List<String> nics = new ArrayList<>();

        @Option(
                names = "--all",
                description = "Every NIC with queue IRQs (each interface with a device whose MSI vectors name"
                        + " queues), planned together.")
        boolean all;

        /** Whether either flag is given. */
        boolean given() {
            return all || !nics.isEmpty();
        }

        /**
         * The NICs given, in order, or empty for {@code --all}.
         *
         * @throws NumaspreadException (bad input) for neither flag, both, or a NIC given twice
         */
        List<InterfaceName> names() {
            if (all && !nics.isEmpty()) {
                throw NumaspreadException.badInput(
                        "--all takes every NIC with queue IRQs: leave out --nic " + String.join(", ", nics));
            }
            if (!all && nics.isEmpty()) {
                throw NumaspreadException.badInput("give --nic IFACE (repeat it for several NICs) or --all");
            }
            return distinct(nics);
        }
    }

    /** doctor's NIC, whose driver's links and IRQ policies are checked too. */
    static final class Checked {
        @Option(
                names = NAME,
                paramLabel = LABEL,
                description = "Also check this interface: its driver's queue-to-NAPI and NAPI-to-IRQ links, whether"
                        + " its driver keeps its own IRQ affinity, and the systemd .link files that place its IRQs.")
        String nic;

        Optional<InterfaceName> name() {
            return Optional.ofNullable(nic).map(InterfaceName::new);
        }
    }

    /** restore's NIC, which names the default state file and is checked against {@code --state}'s. */
    static final class RestoreTarget {
        @Option(
                names = NAME,
                paramLabel = LABEL,
                description =
                        "Restore this interface (its default state file," + " and a check that --state belongs to it).")
        String nic;

        Optional<InterfaceName> name() {
            return Optional.ofNullable(nic).map(InterfaceName::new);
        }
    }

    /** watch's NICs: one or more, each given once. */
    static final class Repeated {
        @Option(
                names = NAME,
                paramLabel = LABEL,
                required = true,
                description = "A network interface whose queue IRQs are placed and kept (repeat for several).")
        List<String> nics = new ArrayList<>();

        /** The NICs in the order given; a NIC given twice is bad input. */
        List<InterfaceName> names() {
            return distinct(nics);
        }

        /** "eth0, eth1", as given. */
        String joined() {
            return String.join(", ", nics);
        }
    }

    /** {@code nics} as names, in the order given; a NIC given twice is bad input. */
    private static List<InterfaceName> distinct(List<String> nics) {
        List<InterfaceName> names = new ArrayList<>();
        for (String nic : nics) {
            InterfaceName name = new InterfaceName(nic);
            if (names.contains(name)) {
                throw NumaspreadException.badInput(NAME + " " + nic + " is given twice");
            }
            names.add(name);
        }
        return names;
    }
}
