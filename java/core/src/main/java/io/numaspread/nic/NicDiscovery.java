// SPDX-License-Identifier: Apache-2.0
package io.numaspread.nic;

import io.numaspread.CpuSet;
import io.numaspread.NumaspreadException;
import io.numaspread.kernel.Errno;
import io.numaspread.kernel.InterfaceName;
import io.numaspread.kernel.KernelPaths;
import io.numaspread.kernel.KernelText;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import java.util.stream.Stream;

/** Finds a NIC's PCI function, vectors and queues in a sysfs tree and a proc tree. Reads only. */
public final class NicDiscovery {
    private NicDiscovery() {}

    /**
     * @throws NumaspreadException (bad input) when the interface does not exist, is virtual, has no MSI vectors,
     *     or a file is unreadable or malformed, naming it
     */
    public static Nic discover(InterfaceName iface, KernelPaths paths) {
        Path netDir = paths.netDevice(iface);
        if (!Files.isDirectory(netDir)) {
            throw noSuchInterface(iface, paths);
        }
        Path device = netDir.resolve("device");
        if (!Files.exists(device)) {
            throw NumaspreadException.badInput(
                    iface + " is a virtual interface (" + device + " does not exist): it has no queue IRQs");
        }
        Path pciFunction = msiOwner(iface, device, paths);
        List<Integer> irqs = numbersIn(pciFunction.resolve("msi_irqs"), "");
        InterruptTable interrupts = InterruptTable.read(paths);
        Map<Integer, String> named = new LinkedHashMap<>();
        List<NicVector> unnamed = new ArrayList<>();
        for (int irq : irqs) {
            String name = interrupts.name(irq);
            if (name.isEmpty()) {
                unnamed.add(new NicVector(irq, "", VectorRole.OTHER, -1));
            } else {
                named.put(irq, name);
            }
        }
        if (named.isEmpty()) {
            throw NumaspreadException.badInput(iface + "'s " + irqs.size() + " vectors (IRQs " + irqs
                    + ") have no handler in " + paths.interrupts() + ": is " + iface + " up?");
        }
        QueueNaming.Grouping grouping = QueueNaming.group(iface, named);
        if (!unnamed.isEmpty()) {
            List<NicVector> all = new ArrayList<>(grouping.vectors());
            all.addAll(unnamed);
            grouping = new QueueNaming.Grouping(grouping.scheme(), grouping.recognised(), all);
        }
        int numaNode = KernelText.readOptional(pciFunction.resolve("numa_node"))
                .map(text -> parseInt(pciFunction.resolve("numa_node"), text))
                .orElse(-1);
        CpuSet localCpus = KernelText.readOptional(pciFunction.resolve("local_cpulist"))
                .map(text -> KernelText.parseCpuList(pciFunction.resolve("local_cpulist"), text))
                .orElse(CpuSet.EMPTY);
        return new Nic(
                iface,
                driverOf(device),
                pciFunction,
                numaNode,
                localCpus,
                grouping,
                numbersIn(netDir.resolve("queues"), "tx-"));
    }

    /**
     * Every NIC with queue IRQs, by interface name: each interface with a device whose discovery finds queue
     * vectors ({@code numaspread apply --all}). An interface discovery cannot place (virtual, down, without MSI
     * vectors) has no queue IRQs to plan and is left out.
     */
    public static List<Nic> withQueueIrqs(KernelPaths paths) {
        List<Nic> nics = new ArrayList<>();
        for (String name : interfaces(paths)) {
            try {
                InterfaceName iface = new InterfaceName(name);
                if (Files.exists(paths.netDevice(iface).resolve("device"))) {
                    Nic nic = discover(iface, paths);
                    if (!nic.queueVectors().isEmpty()) {
                        nics.add(nic);
                    }
                }
            } catch (NumaspreadException e) {
                if (e.kind() != NumaspreadException.Kind.BAD_INPUT) {
                    throw e;
                }
            }
        }
        return List.copyOf(nics);
    }

    /**
     * The interface of the default route in {@code /proc/net/route} (destination and mask 0, flag RTF_UP),
     * lowest metric first.
     */
    public static Optional<InterfaceName> defaultRouteInterface(KernelPaths paths) {
        Optional<String> table = KernelText.readOptional(paths.defaultRoutes());
        if (table.isEmpty()) {
            return Optional.empty();
        }
        String best = null;
        long bestMetric = Long.MAX_VALUE;
        for (String line : table.get().split("\n")) {
            String[] fields = line.trim().split("\\s+");
            if (fields.length < 8 || fields[0].equals("Iface")) {
                continue;
            }
            try {
                boolean up = (Integer.parseInt(fields[3], 16) & 1) != 0;
                long metric = Long.parseLong(fields[6]);
                if (up && fields[1].equals("00000000") && fields[7].equals("00000000") && metric < bestMetric) {
                    best = fields[0];
                    bestMetric = metric;
                }
            } catch (NumberFormatException e) {
                throw NumaspreadException.badInput(
                        paths.defaultRoutes() + ": malformed line \"" + KernelText.escape(line.trim()) + "\"");
            }
        }
        return Optional.ofNullable(best).map(InterfaceName::new);
    }

    /**
     * The IRQ numbers of the MSI vectors the interface's device holds now, handler or not: a closed NIC (down, or
     * released by a bond, which closes it) keeps its vectors and their affinity, though they leave
     * {@code /proc/interrupts} until it opens again. None when the interface, its device or its vectors are gone
     * (unbound, removed, or a virtual interface).
     */
    public static List<Integer> allocatedVectors(InterfaceName iface, KernelPaths paths) {
        Path device = paths.netDevice(iface).resolve("device");
        if (!Files.exists(device)) {
            return List.of();
        }
        return vectorOwner(device, paths)
                .map(owner -> numbersIn(owner.resolve("msi_irqs"), ""))
                .orElse(List.of());
    }

    /** Walks up from the interface's device to the PCI function that owns the vectors (for virtio, a parent). */
    private static Path msiOwner(InterfaceName iface, Path device, KernelPaths paths) {
        return vectorOwner(device, paths)
                .orElseThrow(() -> NumaspreadException.badInput(iface + "'s device " + realPath(device)
                        + " and its parents have no msi_irqs/: " + iface + " has no MSI/MSI-X vectors to place"));
    }

    private static Optional<Path> vectorOwner(Path device, KernelPaths paths) {
        Path start = realPath(device);
        Path top = realPath(paths.sysfsRoot());
        for (Path dir = start; dir != null && dir.startsWith(top) && !dir.equals(top); dir = dir.getParent()) {
            if (Files.isDirectory(dir.resolve("msi_irqs"))) {
                return Optional.of(dir);
            }
        }
        return Optional.empty();
    }

    private static Path realPath(Path path) {
        try {
            return path.toRealPath();
        } catch (IOException e) {
            throw NumaspreadException.badInput("cannot resolve " + path + ": " + Errno.describe(e));
        }
    }

    private static String driverOf(Path device) {
        Path driver = device.resolve("driver");
        try {
            return Files.exists(driver) ? driver.toRealPath().getFileName().toString() : "";
        } catch (IOException e) {
            throw NumaspreadException.badInput("cannot resolve " + driver + ": " + Errno.describe(e));
        }
    }

    /** The numbers N of the entries named PREFIX+N in {@code dir}, ascending; none when it is absent. */
    static List<Integer> numbersIn(Path dir, String prefix) {
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        TreeSet<Integer> numbers = new TreeSet<>();
        try (Stream<Path> entries = Files.list(dir)) {
            entries.map(p -> p.getFileName().toString())
                    .filter(n -> n.startsWith(prefix)
                            && n.length() > prefix.length()
                            && n.length() < prefix.length() + 10
                            && n.substring(prefix.length()).chars().allMatch(Character::isDigit))
                    .forEach(n -> numbers.add(Integer.parseInt(n.substring(prefix.length()))));
        } catch (IOException e) {
            throw NumaspreadException.badInput("cannot list " + dir + ": " + Errno.describe(e));
        }
        return List.copyOf(numbers);
    }

    /** The error for an interface that is not in the tree, naming those that are. */
    static NumaspreadException noSuchInterface(InterfaceName iface, KernelPaths paths) {
        return NumaspreadException.badInput("no such interface " + iface + " (" + paths.netClass() + " has "
                + String.join(", ", interfaces(paths)) + ")");
    }

    private static List<String> interfaces(KernelPaths paths) {
        try (Stream<Path> entries = Files.list(paths.netClass())) {
            return entries.map(p -> p.getFileName().toString()).sorted().toList();
        } catch (IOException e) {
            return List.of("no interfaces");
        }
    }

    private static int parseInt(Path file, String text) {
        try {
            return Integer.parseInt(text);
        } catch (NumberFormatException e) {
            throw NumaspreadException.badInput(file + ": \"" + KernelText.escape(text) + "\" is not an integer");
        }
    }
}
