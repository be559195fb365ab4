// SPDX-License-Identifier: Apache-2.0
package io.numaspread.watch;

import io.numaspread.kernel.InterfaceName;
import io.numaspread.kernel.KernelPaths;
import io.numaspread.nic.LowerDevices;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The NICs that the names watch was given stand for, read again at every check when one of them is an upper device
 * (a bond, a VLAN on one): a member that joins the bond is watched from the check that finds it, one that leaves
 * is let go. A watch given only NICs has none, and keeps the NICs it was given.
 */
public final class UpperMembers {
    private final List<InterfaceName> given;
    private final List<InterfaceName> uppers;
    private final KernelPaths paths;
    /**
     * Every upper device on the way down to the members at the last reading (a VLAN's bond too), read by the event
     * threads: a member joining changes the bond, whose link message is then the only one of a watched name.
     */
    private volatile Set<String> stack;

    private UpperMembers(List<InterfaceName> given, List<InterfaceName> uppers, KernelPaths paths) {
        this.given = List.copyOf(given);
        this.uppers = List.copyOf(uppers);
        this.paths = paths;
        this.stack = names(uppers);
    }

    /** The members to follow of {@code given}, the names watch was given; empty when none is an upper device. */
    public static Optional<UpperMembers> of(List<InterfaceName> given, KernelPaths paths) {
        List<InterfaceName> uppers =
                given.stream().filter(name -> LowerDevices.isUpper(name, paths)).toList();
        return uppers.isEmpty() ? Optional.empty() : Optional.of(new UpperMembers(given, uppers, paths));
    }

    /** How the membership changed against {@code watched}: the NICs that joined, by name, and those that left. */
    record Change(Map<InterfaceName, String> joined, List<InterfaceName> left) {}

    /**
     * Reads the upper devices' members again. A NIC no longer under them whose interface is gone is not said to
     * have left: an unbind also takes a NIC out of its bond, and a watched NIC that goes is waited for.
     *
     * @throws io.numaspread.NumaspreadException when sysfs cannot be read as {@link LowerDevices#resolve} reads it
     */
    Change change(List<InterfaceName> watched) {
        Map<InterfaceName, String> now = new LinkedHashMap<>();
        Set<String> uppersNow = new HashSet<>(names(uppers));
        for (InterfaceName name : given) {
            if (!uppers.contains(name)) {
                now.putIfAbsent(name, "");
            } else if (LowerDevices.isUpper(name, paths)) {
                for (LowerDevices.Member member :
                        LowerDevices.resolve(name, paths).nics()) {
                    now.putIfAbsent(member.name(), member.relation());
                    member.uppers().forEach(upper -> uppersNow.add(upper.name().value()));
                }
            }
            // An upper device with no lower device left (every member released, or the device deleted) stands for
            // no NIC: its last members leave.
        }
        stack = Set.copyOf(uppersNow);
        Map<InterfaceName, String> joined = new LinkedHashMap<>(now);
        joined.keySet().removeAll(watched);
        List<InterfaceName> left = new ArrayList<>();
        for (InterfaceName nic : watched) {
            if (!now.containsKey(nic) && Files.isDirectory(paths.netDevice(nic))) {
                left.add(nic);
            }
        }
        return new Change(joined, left);
    }

    /** Whether {@code event} names one of the upper devices: it may be a member joining or leaving. */
    boolean concerns(KernelEvent event) {
        return event.iface().map(stack::contains).orElse(false);
    }

    /** "bond0.100": the upper devices followed, for a line that says a NIC left them. */
    String followed() {
        return String.join(", ", names(uppers));
    }

    private static Set<String> names(List<InterfaceName> devices) {
        return devices.stream().map(InterfaceName::value).collect(Collectors.toCollection(LinkedHashSet::new));
    }
}
