package io.numaspread.netty;

import io.numaspread.topology.SysfsTree;
import io.numaspread.topology.TopologyException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * What the event loops need to know of a NIC, from {@code /sys/class/net/NIC}: its receive queue count and the
 * NUMA node of its device (empty when the kernel does not say, as for virtual NICs).
 */
record NicQueues(String nic, int queues, Optional<Integer> node) {
    static final String NET_DIR = "class/net";

    /**
     * @throws IllegalArgumentException when there is no such NIC, naming it and the NICs there are
     * @throws TopologyException when a file of it cannot be read
     */
    static NicQueues read(SysfsTree sysfs, String nic) {
        Path dir = sysfs.resolve(NET_DIR + "/" + nic);
        if (nic.isBlank() || nic.contains("/") || !Files.isDirectory(dir)) {
            throw new IllegalArgumentException("no NIC \"" + nic + "\" in " + sysfs.resolve(NET_DIR)
                    + "; the NICs are " + list(sysfs.resolve(NET_DIR)));
        }
        long queues;
        try (Stream<Path> entries = Files.list(dir.resolve("queues"))) {
            queues = entries.filter(p -> p.getFileName().toString().startsWith("rx-")).count();
        } catch (IOException e) {
            throw new TopologyException("cannot list " + dir.resolve("queues") + ": " + e.getMessage(), e);
        }
        if (queues == 0) {
            throw new TopologyException(dir.resolve("queues") + " has no rx-N queue directories");
        }
        String nodeFile = NET_DIR + "/" + nic + "/device/numa_node";
        Optional<Integer> node = sysfs.exists(nodeFile) ? Optional.of(sysfs.readInt(nodeFile)).filter(n -> n >= 0)
                : Optional.empty();
        return new NicQueues(nic, (int) queues, node);
    }

    private static String list(Path netDir) {
        try (Stream<Path> entries = Files.list(netDir)) {
            return entries.map(p -> p.getFileName().toString()).sorted().toList().toString();
        } catch (IOException e) {
            return "unknown (" + netDir + " cannot be listed)";
        }
    }
}
