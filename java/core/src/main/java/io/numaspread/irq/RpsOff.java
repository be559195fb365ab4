// SPDX-License-Identifier: Apache-2.0
package io.numaspread.irq;

import io.numaspread.CpuSet;
import io.numaspread.NumaspreadException;
import io.numaspread.kernel.Errno;
import io.numaspread.kernel.InterfaceName;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * Receive Packet Steering off on each of a NIC's receive queues: {@code /sys/class/net/IFACE/queues/rx-N/rps_cpus}
 * written as an empty mask. With RPS on, the kernel hands each packet's protocol work from the queue's IRQ CPU to
 * a CPU of the mask, and the socket's {@code SO_INCOMING_CPU}, which steering by incoming CPU reads, names that
 * CPU rather than the one the plan placed the queue on; with a queue per planned CPU RPS only adds that hop (the
 * kernel's {@code scaling.rst}: with RSS "RPS is probably redundant and unnecessary"). It records each mask that
 * was not empty ({@link RpsRecord}), and restore writes it back.
 */
final class RpsOff implements Change {
    private static final Pattern RX_QUEUE = Pattern.compile("rx-(\\d+)");

    private final ChangeContext kernel;
    private final InterfaceName iface;
    /** The queues whose RPS is on, with their masks as read. */
    private SortedMap<Integer, String> on = new TreeMap<>();
    /** The queues written so far, in order, for the undo. */
    private final List<Integer> written = new ArrayList<>();
    /** The queues this run added to the state file, for {@link #forget}. */
    private List<Integer> recorded = List.of();

    RpsOff(ChangeContext kernel, InterfaceName iface) {
        this.kernel = kernel;
        this.iface = iface;
    }

    /** Whether {@code text} is a mask as the kernel prints {@code rps_cpus}: {@link CpuSet#parseHexMask}'s. */
    static boolean isMask(String text) {
        return cpus(text).isPresent();
    }

    /** The CPUs of a mask as the kernel prints it, or empty when {@code text} is none. */
    private static Optional<CpuSet> cpus(String text) {
        try {
            return Optional.of(CpuSet.parseHexMask(text));
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    @Override
    public void read() {
        SortedMap<Integer, String> masks = new TreeMap<>();
        for (int queue : receiveQueues()) {
            Path file = file(queue);
            if (!Files.exists(file)) {
                continue; // a kernel built without CONFIG_RPS has no rps_cpus: RPS is off
            }
            String mask = readText(file);
            CpuSet cpus = cpus(mask)
                    .orElseThrow(() -> NumaspreadException.badInput(
                            file + " reads \"" + mask + "\", not a hex mask; nothing was changed"));
            if (!cpus.isEmpty()) {
                masks.put(queue, mask);
            }
        }
        on = masks;
    }

    @Override
    public boolean changesAnything() {
        return !on.isEmpty();
    }

    @Override
    public void probe() {
        on.keySet()
                .forEach(queue -> SysfsProbe.probe(
                        kernel.files(),
                        file(queue),
                        "RPS needs CAP_NET_ADMIN and root's write access to /sys/class/net"));
    }

    @Override
    public StateFile.State record(StateFile.State state) {
        RpsRecord earlier = state.record(RpsRecord.class);
        recorded = on.keySet().stream()
                .filter(queue -> !earlier.before().containsKey(queue))
                .toList();
        return state.recording(RpsRecord.of(on));
    }

    @Override
    public void apply() {
        for (int queue : on.keySet()) {
            Path file = file(queue);
            written.add(queue);
            try {
                kernel.files().write(file, "0");
                String back = kernel.files().read(file).strip();
                if (!cpus(back).map(CpuSet::isEmpty).orElse(false)) {
                    throw new Failed(file + ": wrote 0 to turn RPS off, and it reads back " + back);
                }
            } catch (IOException e) {
                throw new Failed(
                        file + ": writing 0 to turn RPS off failed: " + Errno.describe(e), Errno.of(e) == Errno.EPERM);
            }
        }
    }

    @Override
    public List<String> undo() {
        List<String> stuck = new ArrayList<>();
        for (int i = written.size() - 1; i >= 0; i--) {
            int queue = written.get(i);
            writeBack(file(queue), on.get(queue)).ifPresent(stuck::add);
        }
        return stuck;
    }

    @Override
    public StateFile.State forget(StateFile.State state) {
        return state.with(state.record(RpsRecord.class).without(recorded));
    }

    @Override
    public int undone() {
        return written.size();
    }

    @Override
    public Optional<String> undoneWords() {
        return written.isEmpty()
                ? Optional.empty()
                : Optional.of("rps_cpus of " + iface + " "
                        + written.stream().map(queue -> "rx-" + queue).collect(Collectors.joining(", "))
                        + " is as it was again");
    }

    /** Puts back each recorded mask; a queue that no longer exists has nothing to put back. */
    static PutBack restoring(RpsRecord record, ChangeContext kernel, InterfaceName iface) {
        return new PutBack() {
            @Override
            public void probe() {
                record.before().keySet().stream()
                        .map(queue -> file(kernel, iface, queue))
                        .filter(Files::exists)
                        .forEach(file -> SysfsProbe.probe(
                                kernel.files(),
                                file,
                                "RPS needs CAP_NET_ADMIN and root's write access to /sys/class/net"));
            }

            @Override
            public List<String> putBack(List<AffinityTransaction.Result> results) {
                List<String> failures = new ArrayList<>();
                record.before().forEach((queue, mask) -> {
                    Path file = file(kernel, iface, queue);
                    if (Files.exists(file)) {
                        writeBack(kernel, file, mask).ifPresent(failures::add);
                    }
                });
                return failures;
            }
        };
    }

    private Optional<String> writeBack(Path file, String mask) {
        return writeBack(kernel, file, mask);
    }

    /** Writes {@code mask} and reads it back: the failure, naming the file, or empty when it holds. */
    private static Optional<String> writeBack(ChangeContext kernel, Path file, String mask) {
        try {
            kernel.files().write(file, mask);
            String back = kernel.files().read(file).strip();
            return cpus(back).equals(cpus(mask))
                    ? Optional.empty()
                    : Optional.of(file + " (reads back " + back + ", not " + mask + ")");
        } catch (IOException e) {
            return Optional.of(file + " (" + Errno.describe(e) + ")");
        }
    }

    private String readText(Path file) {
        try {
            return kernel.files().read(file).strip();
        } catch (IOException e) {
            throw NumaspreadException.badInput(
                    "cannot read " + file + ": " + Errno.describe(e) + "; nothing was changed");
        }
    }

    /** The receive queues the kernel lists for the NIC, in order. */
    private List<Integer> receiveQueues() {
        Path queues = kernel.paths().netDevice(iface).resolve("queues");
        List<Integer> found = new ArrayList<>();
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(queues, "rx-*")) {
            for (Path entry : entries) {
                Matcher name = RX_QUEUE.matcher(entry.getFileName().toString());
                if (name.matches()) {
                    found.add(Integer.parseInt(name.group(1)));
                }
            }
        } catch (IOException e) {
            throw NumaspreadException.badInput(
                    "cannot list " + queues + ": " + Errno.describe(e) + "; nothing was changed");
        }
        found.sort(null);
        return found;
    }

    private Path file(int queue) {
        return file(kernel, iface, queue);
    }

    private static Path file(ChangeContext kernel, InterfaceName iface, int queue) {
        return kernel.paths()
                .netDevice(iface)
                .resolve("queues")
                .resolve("rx-" + queue)
                .resolve("rps_cpus");
    }
}
