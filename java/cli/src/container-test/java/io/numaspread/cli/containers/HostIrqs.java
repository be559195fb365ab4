// SPDX-License-Identifier: Apache-2.0
package io.numaspread.cli.containers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import io.numaspread.CpuSet;
import io.numaspread.kernel.SysfsTree;
import io.numaspread.nativeaccess.Backends;
import io.numaspread.plan.PlanRequest;
import io.numaspread.plan.Planner;
import io.numaspread.plan.SpreadPlan;
import io.numaspread.topology.Topology;
import io.numaspread.topology.TopologyDiscovery;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The host's view of a virtio NIC's MSI-X vectors, read and written by the test JVM itself: the ground truth
 * that numaspread in a container must (or must not) change. Found independently of numaspread's own discovery.
 */
final class HostIrqs {
    private static final Pattern VIRTIO_QUEUE = Pattern.compile("virtio\\d+-(?:input|output)\\.(\\d+)");

    /** One vector of the NIC; {@code queue} is empty for the configuration vector. */
    record Vector(int irq, String name, OptionalInt queue) {}

    private final String nic;
    private final Path pciFunction;

    HostIrqs(String nic) {
        this.nic = nic;
        this.pciFunction = pciFunction(nic);
    }

    /** Every MSI-X vector of the NIC's PCI function, named from /proc/interrupts. */
    List<Vector> vectors() {
        Map<Integer, String> names = interruptNames();
        try (Stream<Path> entries = Files.list(pciFunction.resolve("msi_irqs"))) {
            return entries.map(entry -> Integer.parseInt(entry.getFileName().toString()))
                    .sorted()
                    .map(irq -> vector(irq, names.getOrDefault(irq, "")))
                    .toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    List<Vector> queueVectors() {
        List<Vector> queues =
                vectors().stream().filter(v -> v.queue().isPresent()).toList();
        if (queues.isEmpty()) {
            throw new IllegalStateException(nic + " has no virtio queue vectors: " + vectors());
        }
        return queues;
    }

    int queueCount() {
        return queueVectors().stream().mapToInt(v -> v.queue().getAsInt()).max().orElseThrow() + 1;
    }

    /** The NIC's node: its PCI function's numa_node, or when that is -1 the node of its local_cpulist. */
    int node() {
        int node = Integer.parseInt(read(pciFunction.resolve("numa_node")));
        if (node >= 0) {
            return node;
        }
        int firstLocalCpu =
                CpuSet.parse(read(pciFunction.resolve("local_cpulist"))).first();
        try (Stream<Path> nodes = Files.list(Path.of("/sys/devices/system/node"))) {
            return nodes.map(path -> path.getFileName().toString())
                    .filter(name -> name.matches("node\\d+"))
                    .filter(name -> CpuSet.parse(read(Path.of("/sys/devices/system/node", name, "cpulist")))
                            .contains(firstLocalCpu))
                    .map(name -> Integer.parseInt(name.substring(4)))
                    .findFirst()
                    .orElseThrow(() -> new IllegalStateException("no node holds CPU " + firstLocalCpu));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The current smp_affinity_list of every vector, by IRQ. */
    Map<Integer, CpuSet> affinities() {
        Map<Integer, CpuSet> affinities = new TreeMap<>();
        for (Vector vector : vectors()) {
            affinities.put(vector.irq(), CpuSet.parse(read(affinityFile(vector.irq()))));
        }
        return affinities;
    }

    /**
     * The affinity of each queue vector under numaspread's plan for the NIC (its node, one queue per queue
     * pair), computed here from the host's topology.
     */
    Map<Integer, CpuSet> plannedQueueAffinities() throws Exception {
        Topology topology = TopologyDiscovery.discover(Backends.live().backend(), SysfsTree.live());
        SpreadPlan plan = Planner.plan(topology, PlanRequest.irqs(node(), queueCount()));
        Map<Integer, CpuSet> planned = new TreeMap<>();
        for (HostIrqs.Vector vector : queueVectors()) {
            planned.put(vector.irq(), plan.get(vector.queue().getAsInt()).cpus());
        }
        return planned;
    }

    /**
     * Moves every queue vector to CPUs outside the plan, so that an apply that changes nothing cannot pass, and
     * returns the host's affinities then.
     */
    Map<Integer, CpuSet> startAwayFromThePlan(Map<Integer, CpuSet> planned) {
        CpuSet online = SysfsTree.live().readCpuList("devices/system/cpu/online");
        CpuSet elsewhere = planned.values().stream().reduce(online, CpuSet::minus);
        assertFalse(elsewhere.isEmpty(), "the plan " + planned + " leaves no online CPU to start from");
        Map<Integer, CpuSet> start = new TreeMap<>();
        planned.keySet().forEach(irq -> start.put(irq, elsewhere));
        set(start);
        Map<Integer, CpuSet> before = affinities();
        start.forEach((irq, cpus) -> assertEquals(cpus, before.get(irq), "IRQ " + irq + " took the starting value"));
        return before;
    }

    /** Writes smp_affinity_list of each IRQ given; every write is attempted, the first failure is thrown. */
    static void set(Map<Integer, CpuSet> affinities) {
        RuntimeException failure = null;
        for (Map.Entry<Integer, CpuSet> entry : affinities.entrySet()) {
            try {
                Files.writeString(affinityFile(entry.getKey()), entry.getValue().toString());
            } catch (IOException e) {
                RuntimeException error =
                        new UncheckedIOException("IRQ " + entry.getKey() + ": could not write " + entry.getValue(), e);
                if (failure == null) {
                    failure = error;
                } else {
                    failure.addSuppressed(error);
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
    }

    private static Path affinityFile(int irq) {
        return Path.of("/proc/irq", Integer.toString(irq), "smp_affinity_list");
    }

    private static Vector vector(int irq, String name) {
        Matcher queue = VIRTIO_QUEUE.matcher(name);
        return new Vector(
                irq, name, queue.matches() ? OptionalInt.of(Integer.parseInt(queue.group(1))) : OptionalInt.empty());
    }

    /** IRQ number to its name, the last column of /proc/interrupts. */
    private static Map<Integer, String> interruptNames() {
        Map<Integer, String> names = new TreeMap<>();
        for (String line : read(Path.of("/proc/interrupts")).split("\n")) {
            String[] fields = line.strip().split("\\s+");
            if (fields.length > 1 && fields[0].matches("\\d+:")) {
                names.put(Integer.parseInt(fields[0].substring(0, fields[0].length() - 1)), fields[fields.length - 1]);
            }
        }
        return names;
    }

    /** Walks up from /sys/class/net/NIC/device (for virtio, the virtio device) to the PCI function. */
    private static Path pciFunction(String nic) {
        try {
            Path device = Path.of("/sys/class/net", nic, "device").toRealPath();
            return Stream.iterate(device, path -> path != null && path.getNameCount() > 2, Path::getParent)
                    .filter(path -> Files.isDirectory(path.resolve("msi_irqs")))
                    .findFirst()
                    .orElseThrow(() -> new IllegalStateException("no PCI function with msi_irqs above " + device));
        } catch (IOException e) {
            throw new UncheckedIOException("the host has no network interface " + nic, e);
        }
    }

    private static String read(Path path) {
        try {
            return Files.readString(path).strip();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
