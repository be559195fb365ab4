// SPDX-License-Identifier: Apache-2.0
package io.numaspread.nic;

import io.numaspread.NumaspreadException;
import io.numaspread.kernel.Errno;
import io.numaspread.kernel.InterfaceName;
import io.numaspread.kernel.KernelPaths;
import io.numaspread.kernel.KernelText;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The NICs under a network device: a NIC is its own; a bond, team, VLAN, macvlan or bridge has the NICs its
 * {@code lower_*} links in sysfs lead to, through any stack of upper devices (a VLAN on a bond). These are the
 * devices with queues and queue IRQs, which a bond or VLAN has none of.
 *
 * @param device the device asked about
 * @param kind what it is
 * @param nics the NICs under it, each once, in name order at every level (a NIC is its own only NIC)
 * @param withoutQueues the virtual devices at the bottom of its stack (a bridge's veth ports), which have no queue
 *     IRQs and are left out of {@code nics}
 */
public record LowerDevices(InterfaceName device, Kind kind, List<Member> nics, List<Member> withoutQueues) {
    /**
     * The kernel's {@code MAX_NEST_DEV}: no device has more levels of lower devices than this, so a deeper stack
     * in a tree is a corrupt or looping one.
     */
    public static final int MAX_DEPTH = 8;

    public LowerDevices {
        nics = List.copyOf(nics);
        withoutQueues = List.copyOf(withoutQueues);
        if (nics.isEmpty()) {
            throw new IllegalArgumentException(device + " has no NIC under it");
        }
    }

    /** What a device is, as far as sysfs tells: {@code DEVTYPE} in {@code uevent}, {@code iflink}, its links. */
    public enum Kind {
        /** No lower devices, and a {@code device/}: the queues and their IRQs are its own. */
        NIC("NIC", false),
        /** {@code DEVTYPE=bond}. */
        BOND("bond", true),
        /** {@code DEVTYPE=vlan}. */
        VLAN("VLAN", false),
        /** {@code DEVTYPE=bridge}. */
        BRIDGE("bridge", true),
        /**
         * No {@code DEVTYPE}, one lower device, and an {@code iflink} that names another device than itself:
         * macvlan, macvtap or ipvlan, which sysfs does not tell apart.
         */
        MACVLAN("macvlan", false),
        /**
         * No {@code DEVTYPE}, and its own {@code iflink}: a master of its lower devices that sysfs does not name,
         * a team, net_failover or VRF device.
         */
        MASTER("team or other master", true);

        private final String label;
        private final boolean aggregates;

        Kind(String label, boolean aggregates) {
            this.label = label;
            this.aggregates = aggregates;
        }

        /** For people: "bond", "VLAN", "team or other master". */
        public String label() {
            return label;
        }
    }

    /** An upper device on the way down to a NIC. */
    public record Upper(InterfaceName name, Kind kind) {}

    /**
     * A device at the bottom of the stack.
     *
     * @param uppers the upper devices from the device asked about down to this one's own upper; empty when it is
     *     the device asked about
     */
    public record Member(InterfaceName name, List<Upper> uppers) {
        public Member {
            uppers = List.copyOf(uppers);
        }

        /**
         * "member of bond0 (bond), via bond0.100" or "lower device of eth0.77 (VLAN)"; empty for the device asked
         * about itself.
         */
        public String relation() {
            if (uppers.isEmpty()) {
                return "";
            }
            Upper own = uppers.get(uppers.size() - 1);
            String via = uppers.subList(0, uppers.size() - 1).stream()
                    .map(upper -> upper.name().value())
                    .collect(Collectors.joining(", "));
            return (own.kind().aggregates ? "member of " : "lower device of ") + own.name() + " (" + own.kind().label
                    + ")" + (via.isEmpty() ? "" : ", via " + via);
        }
    }

    /**
     * What sysfs says of one device, read and not yet judged.
     *
     * @param devtype {@code DEVTYPE} of its {@code uevent}, empty when it has none
     * @param hasDevice whether it has a {@code device} link (a bus device: PCI, virtio)
     * @param ownIflink whether its {@code iflink} is its {@code ifindex}
     * @param lowers the names of its {@code lower_*} links, in name order
     */
    public record Links(
            InterfaceName name,
            Optional<String> devtype,
            boolean hasDevice,
            boolean ownIflink,
            List<InterfaceName> lowers) {
        public Links {
            lowers = List.copyOf(lowers);
        }

        /** Pure: what the device is. */
        Kind kind() {
            if (lowers.isEmpty()) {
                return Kind.NIC;
            }
            return switch (devtype.orElse("")) {
                case "bond" -> Kind.BOND;
                case "vlan" -> Kind.VLAN;
                case "bridge" -> Kind.BRIDGE;
                default -> ownIflink ? Kind.MASTER : Kind.MACVLAN;
            };
        }
    }

    /**
     * The NICs under {@code iface} in the sysfs tree of {@code paths}.
     *
     * @throws NumaspreadException (bad input) when the interface does not exist, has neither lower devices nor a
     *     device of its own, has only virtual devices under it, or its lower devices loop, nest deeper than {@link
     *     #MAX_DEPTH} or are missing, naming the device and the path to it
     */
    public static LowerDevices resolve(InterfaceName iface, KernelPaths paths) {
        if (!Files.isDirectory(paths.netDevice(iface))) {
            throw NicDiscovery.noSuchInterface(iface, paths);
        }
        return resolve(iface, name -> read(name, paths), paths.netClass().toString());
    }

    /**
     * Pure: the NICs under {@code iface} as {@code links} describes each device.
     *
     * @param links a device's links, empty when there is no such device
     * @param where where the devices are, for messages ("/sys/class/net")
     */
    public static LowerDevices resolve(
            InterfaceName iface, Function<InterfaceName, Optional<Links>> links, String where) {
        Links top = links.apply(iface)
                .orElseThrow(() -> NumaspreadException.badInput("no such interface " + iface + " in " + where));
        if (top.lowers().isEmpty() && !top.hasDevice()) {
            throw NumaspreadException.badInput(iface + " is a virtual interface (no device link in " + where + "/"
                    + iface + ") with no lower devices: it has no queue IRQs");
        }
        Set<InterfaceName> seen = new LinkedHashSet<>();
        List<Member> nics = new ArrayList<>();
        List<Member> virtual = new ArrayList<>();
        walk(top, new ArrayList<>(), links, where, seen, nics, virtual);
        if (nics.isEmpty()) {
            throw NumaspreadException.badInput(iface + "'s lower devices "
                    + virtual.stream().map(m -> m.name().value()).collect(Collectors.joining(", "))
                    + " are virtual (no device link in " + where + "): " + iface + " has no queue IRQs");
        }
        return new LowerDevices(iface, top.kind(), nics, virtual);
    }

    private static void walk(
            Links device,
            List<Upper> above,
            Function<InterfaceName, Optional<Links>> links,
            String where,
            Set<InterfaceName> seen,
            List<Member> nics,
            List<Member> virtual) {
        if (device.lowers().isEmpty()) {
            if (seen.add(device.name())) {
                (device.hasDevice() ? nics : virtual).add(new Member(device.name(), above));
            }
            return;
        }
        List<Upper> path = new ArrayList<>(above);
        path.add(new Upper(device.name(), device.kind()));
        if (path.size() > MAX_DEPTH) {
            throw NumaspreadException.badInput("the lower devices of "
                    + path.get(0).name() + " nest deeper than the " + MAX_DEPTH + " levels the kernel allows: "
                    + chain(path, device.lowers().get(0)));
        }
        for (InterfaceName lower : device.lowers()) {
            if (path.stream().anyMatch(upper -> upper.name().equals(lower))) {
                throw NumaspreadException.badInput(
                        "the lower devices of " + path.get(0).name() + " loop: " + chain(path, lower));
            }
            Links next = links.apply(lower)
                    .orElseThrow(() -> NumaspreadException.badInput(device.name() + " has lower device " + lower
                            + " (lower_" + lower + "), which is not in " + where
                            + ": is it in another network namespace?"));
            walk(next, path, links, where, seen, nics, virtual);
        }
    }

    /** "bond0.100 -> bond0 -> eth0". */
    private static String chain(List<Upper> path, InterfaceName last) {
        return Stream.concat(path.stream().map(Upper::name), Stream.of(last))
                .map(InterfaceName::value)
                .collect(Collectors.joining(" -> "));
    }

    /**
     * The NICs that {@code names} stand for: a NIC for itself, an upper device (a bond, a VLAN on one) for the NICs
     * under it; each NIC once, in the order first named. {@code apply}, {@code watch} and {@code restore} take a
     * bond's or VLAN's name as its members' names, so that a host's plan is made for the NICs that carry it. A
     * name that is no upper device stays as given, for its discovery to judge (and name it if it is no NIC).
     *
     * @throws NumaspreadException (bad input) as {@link #resolve(InterfaceName, KernelPaths)} for an upper device
     */
    public static List<InterfaceName> nicsUnder(List<InterfaceName> names, KernelPaths paths) {
        Set<InterfaceName> nics = new LinkedHashSet<>();
        for (InterfaceName name : names) {
            if (isUpper(name, paths)) {
                resolve(name, paths).nics().forEach(member -> nics.add(member.name()));
            } else {
                nics.add(name);
            }
        }
        return List.copyOf(nics);
    }

    /**
     * Whether {@code iface} is an upper device, one with {@code lower_*} links (a bond, a VLAN, a macvlan); false
     * for a NIC and for a name with no directory in the tree, which the callers' discovery then names.
     */
    public static boolean isUpper(InterfaceName iface, KernelPaths paths) {
        return read(iface, paths).map(links -> !links.lowers().isEmpty()).orElse(false);
    }

    /** A device's links as sysfs shows them; empty when it has no directory in the tree. */
    static Optional<Links> read(InterfaceName name, KernelPaths paths) {
        Path dir = paths.netDevice(name);
        if (!Files.isDirectory(dir)) {
            return Optional.empty();
        }
        List<String> entries;
        try (Stream<Path> listing = Files.list(dir)) {
            entries = listing.map(p -> p.getFileName().toString()).toList();
        } catch (IOException e) {
            throw NumaspreadException.badInput("cannot list " + dir + ": " + Errno.describe(e));
        }
        Optional<String> devtype =
                KernelText.readOptional(dir.resolve("uevent")).flatMap(LowerDevices::devtype);
        Optional<String> ifindex = KernelText.readOptional(dir.resolve("ifindex"));
        Optional<String> iflink = KernelText.readOptional(dir.resolve("iflink"));
        boolean ownIflink = iflink.isEmpty() || iflink.equals(ifindex);
        return Optional.of(
                new Links(name, devtype, Files.exists(dir.resolve("device")), ownIflink, lowerNames(dir, entries)));
    }

    /** Pure: {@code DEVTYPE} of a {@code uevent} file's text. */
    static Optional<String> devtype(String uevent) {
        return uevent.lines()
                .filter(line -> line.startsWith("DEVTYPE="))
                .map(line -> line.substring("DEVTYPE=".length()).strip())
                .findFirst();
    }

    /**
     * Pure: the devices that a directory's {@code lower_NAME} entries name, in name order.
     *
     * @throws NumaspreadException (bad input) naming the entry when NAME is no interface name
     */
    static List<InterfaceName> lowerNames(Path dir, List<String> entries) {
        List<InterfaceName> lowers = new ArrayList<>();
        for (String entry : entries.stream().sorted().toList()) {
            if (entry.startsWith("lower_")) {
                try {
                    lowers.add(new InterfaceName(entry.substring("lower_".length())));
                } catch (NumaspreadException e) {
                    throw NumaspreadException.badInput(dir.resolve(entry) + ": " + e.getMessage());
                }
            }
        }
        return List.copyOf(lowers);
    }
}
