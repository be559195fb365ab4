// SPDX-License-Identifier: Apache-2.0
package io.numaspread.irq;

import io.numaspread.NumaspreadException;
import io.numaspread.kernel.Errno;
import io.numaspread.kernel.InterfaceName;
import io.numaspread.kernel.KernelPaths;
import io.numaspread.kernel.KernelText;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * A systemd {@code .link} file's {@code IRQAffinityPolicy=} (systemd-udevd 260 and later). udev writes the NIC's
 * MSI IRQs' {@code smp_affinity} each time the device is added (boot, driver load, bind, {@code udevadm
 * trigger}), never in between: {@code spread} puts one IRQ per CPU over the first SMT thread of every L3 domain,
 * whatever the NIC's NUMA node, and {@code single} puts them all on CPU 0. A placement therefore lasts until the
 * device's next add, and udev is a second writer that acts only then.
 *
 * <p>Which {@code .link} file applies to a NIC is udev's decision, recorded in its database
 * ({@code /run/udev/data/n<ifindex>}: {@code ID_NET_LINK_FILE}), so it is read there, not matched again here. Its
 * drop-ins are read from the directories as they are now, since the next add reads them so: a drop-in written since the
 * last one (numaspread's advice) counts before udev lists it in {@code ID_NET_LINK_FILE_DROPINS}. Without that entry (a
 * container without the host's {@code /run/udev}, or udev not running) every {@code .link} file that sets a policy is
 * reported, as one that may apply.
 *
 * @param file the {@code .link} file, as udev names it (a host path)
 * @param policy {@code spread} or {@code single}, after its drop-ins
 * @param fromUdevDatabase whether udev's database says this file is the NIC's; otherwise it may be
 */
public record LinkIrqPolicy(Path file, String policy, boolean fromUdevDatabase) {
    /** systemd's {@code NETWORK_DIRS}, first wins for files of one name. */
    static final List<String> NETWORK_DIRS = List.of(
            "etc/systemd/network", "run/systemd/network", "usr/local/lib/systemd/network", "usr/lib/systemd/network");

    /** No interface has index 0, so udev's database has no {@code n0}. */
    private static final int UNKNOWN_IFINDEX = 0;

    private static final String SECTION = "Link";
    private static final String KEY = "IRQAffinityPolicy";

    /**
     * The policies that place {@code nic}'s IRQs, read under {@code root} ({@code /} on a live host); the NIC's
     * interface index is read from {@code paths}' sysfs.
     *
     * @throws NumaspreadException (bad input) naming the file that could not be read
     */
    public static List<LinkIrqPolicy> find(Path root, KernelPaths paths, InterfaceName nic) {
        Path ifindexFile = paths.netDevice(nic).resolve("ifindex");
        try {
            return find(root, Integer.parseInt(KernelText.read(ifindexFile)));
        } catch (NoSuchFileException e) {
            return find(root, UNKNOWN_IFINDEX); // a copied tree without it: every .link file that sets a policy
        } catch (IOException | NumberFormatException e) {
            throw NumaspreadException.badInput(
                    "cannot read " + nic + "'s interface index from " + ifindexFile + ": "
                            + (e instanceof IOException io ? Errno.describe(io) : e.getMessage()),
                    e);
        }
    }

    /**
     * The policies that place NIC {@code ifindex}'s IRQs, read under {@code root} ({@code /} on a live host).
     *
     * @throws NumaspreadException (bad input) naming the file that could not be read
     */
    public static List<LinkIrqPolicy> find(Path root, int ifindex) {
        Path database = root.resolve("run/udev/data/n" + ifindex);
        Optional<List<String>> entry = readLines(database);
        if (entry.isPresent()) {
            String linkFile = property(entry.get(), "ID_NET_LINK_FILE");
            if (linkFile.isEmpty()) {
                return List.of();
            }
            // its drop-ins as they are now, which the next add reads, not as the database lists them from the last
            Path file = hostPath(root, linkFile);
            List<Path> files = withDropIns(root, file);
            return policy(files)
                    .map(policy -> List.of(new LinkIrqPolicy(Path.of(linkFile), policy, true)))
                    .orElse(List.of());
        }
        List<LinkIrqPolicy> found = new ArrayList<>();
        byName(root, NETWORK_DIRS, ".link").forEach((name, file) -> {
            List<String> lines = readLines(file).orElse(List.of());
            if (!hasSection(lines, "Match")) {
                return; // udev ignores a .link file without a [Match] section
            }
            List<Path> files = withDropIns(root, file);
            policy(files)
                    .ifPresent(policy ->
                            found.add(new LinkIrqPolicy(Path.of("/").resolve(root.relativize(file)), policy, false)));
        });
        return found;
    }

    /** The last valid {@code IRQAffinityPolicy=} of {@code [Link]} over the files in order; empty resets it. */
    static Optional<String> policy(List<Path> files) {
        String policy = "";
        for (Path file : files) {
            String section = "";
            for (String raw : readLines(file).orElse(List.of())) {
                String line = raw.strip();
                if (line.isEmpty() || line.startsWith("#") || line.startsWith(";")) {
                    continue;
                }
                if (line.startsWith("[") && line.endsWith("]")) {
                    section = line.substring(1, line.length() - 1);
                    continue;
                }
                int equals = line.indexOf('=');
                if (section.equals(SECTION)
                        && equals > 0
                        && line.substring(0, equals).strip().equals(KEY)) {
                    String value = line.substring(equals + 1).strip();
                    // systemd ignores a value it cannot parse and keeps the earlier one
                    if (value.isEmpty() || value.equals("spread") || value.equals("single")) {
                        policy = value;
                    }
                }
            }
        }
        return policy.isEmpty() ? Optional.empty() : Optional.of(policy);
    }

    private static boolean hasSection(List<String> lines, String name) {
        return lines.stream().anyMatch(line -> line.strip().equals("[" + name + "]"));
    }

    /** Files ending in {@code suffix} in {@code dirs} under root by name, sorted; an earlier dir masks a later. */
    private static TreeMap<String, Path> byName(Path root, List<String> dirs, String suffix) {
        TreeMap<String, Path> files = new TreeMap<>();
        for (String dir : dirs) {
            try (Stream<Path> listing = Files.list(root.resolve(dir))) {
                listing.filter(file -> file.getFileName().toString().endsWith(suffix))
                        .forEach(file -> files.putIfAbsent(file.getFileName().toString(), file));
            } catch (NoSuchFileException | NotDirectoryException e) {
                // this directory of systemd's search path is absent here
            } catch (IOException e) {
                throw NumaspreadException.badInput("cannot list " + root.resolve(dir) + ": " + Errno.describe(e), e);
            }
        }
        // a file masked by a symlink to /dev/null (or emptied) is skipped by udev; reading it yields no lines
        return files;
    }

    /** A udev database property ({@code E:KEY=value}), empty when absent. */
    private static String property(List<String> entry, String key) {
        String prefix = "E:" + key + "=";
        return entry.stream()
                .filter(line -> line.startsWith(prefix))
                .map(line -> line.substring(prefix.length()))
                .reduce((first, second) -> second)
                .orElse("");
    }

    /** {@code file} and then its drop-ins ({@code NAME.d/*.conf} in every network directory), in udev's order. */
    private static List<Path> withDropIns(Path root, Path file) {
        String name = file.getFileName().toString();
        List<Path> files = new ArrayList<>(List.of(file));
        files.addAll(byName(
                        root,
                        NETWORK_DIRS.stream()
                                .map(dir -> dir + "/" + name + ".d")
                                .toList(),
                        ".conf")
                .values());
        return files;
    }

    private static Path hostPath(Path root, String absolute) {
        return root.resolve(absolute.replaceFirst("^/+", ""));
    }

    private static Optional<List<String>> readLines(Path file) {
        try {
            return Optional.of(KernelText.readUtf8(file, KernelText.MAX_ATTRIBUTE_BYTES)
                    .lines()
                    .toList());
        } catch (NoSuchFileException e) {
            return Optional.empty();
        } catch (IOException e) {
            throw NumaspreadException.badInput("cannot read " + file + ": " + Errno.describe(e), e);
        }
    }
}
