// SPDX-License-Identifier: Apache-2.0
package io.numaspread.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.numaspread.kernel.InterfaceName;
import io.numaspread.kernel.SysfsTree;
import io.numaspread.nativeaccess.SysfsBackend;
import io.numaspread.watch.WatchEvent;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code watch --metrics-file} writes as root, after every check, into node-exporter's textfile directory, which
 * numaspread does not own: as the state file, it is replaced through a temporary file created new, and no link
 * planted at the file or at a temporary name is ever followed.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class WatchMetricsFileTest extends StandInCliTest {
    private static final InterfaceName ETH0 = new InterfaceName("eth0");

    @TempDir
    Path textfiles;

    @TempDir
    Path elsewhere;

    private final List<String> lines = new ArrayList<>();

    private Path victim() throws IOException {
        Path victim = elsewhere.resolve("shadow");
        Files.writeString(victim, "root:secret\n");
        return victim;
    }

    /** The metrics after one check that found eth0 gone, which writes the textfile. */
    private void writeOnce(Path file) {
        writeOnce(file, ETH0);
    }

    /** The metrics of a watch of {@code nic} after one check that found it gone. */
    private void writeOnce(Path file, InterfaceName nic) {
        WatchMetrics metrics = new WatchMetrics(
                List.of(nic),
                lines::add,
                paths,
                Optional.of(file),
                "sysfs",
                "polling",
                new SysfsBackend(SysfsTree.at(sys), proc),
                Clock.systemUTC());
        metrics.heard(new WatchEvent.Gone(nic, Instant.now(), true, "no such interface", List.of()));
    }

    /**
     * Two instances of the unit, one per NIC, each with its own file in one textfile directory: node-exporter
     * refuses a series that two files both hold (same name, same labels), so no series may be in both. Before the
     * nics label, numaspread_watch_info and numaspread_kernel_events_total were.
     */
    @Test
    void twoInstancesFilesInOneDirectoryShareNoSeries() throws IOException {
        Path eth0 = textfiles.resolve("numaspread-eth0.prom");
        Path eth1 = textfiles.resolve("numaspread-eth1.prom");
        writeOnce(eth0, ETH0);
        writeOnce(eth1, new InterfaceName("eth1"));
        Set<String> shared = new TreeSet<>(series(eth0));
        shared.retainAll(series(eth1));
        assertEquals(Set.of(), shared);
        assertTrue(series(eth1).contains("numaspread_watch_info{backend=\"sysfs\",events=\"polling\",nics=\"eth1\"}"));
    }

    /** A textfile's series: each sample line without its value. */
    private static Set<String> series(Path file) throws IOException {
        Set<String> series = new TreeSet<>();
        for (String line : Files.readAllLines(file)) {
            if (!line.isEmpty() && !line.startsWith("#")) {
                series.add(line.substring(0, line.lastIndexOf(' ')));
            }
        }
        return series;
    }

    private List<String> names() throws IOException {
        try (Stream<Path> files = Files.list(textfiles)) {
            return files.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    @Test
    void aLinkPlantedAsTheMetricsFileIsNeitherFollowedNorReplaced() throws IOException {
        Path victim = victim();
        Path file = textfiles.resolve("numaspread.prom");
        Files.createSymbolicLink(file, victim);
        writeOnce(file);
        assertEquals(
                List.of("metrics: cannot write " + file + ": " + file + " is a symbolic link (never followed: it"
                        + " could point root's writes anywhere)"),
                lines);
        assertEquals("root:secret\n", Files.readString(victim));
        assertTrue(Files.isSymbolicLink(file), "the link is left for its owner to see");
        assertEquals(List.of("numaspread.prom"), names(), "no temporary file was left");
    }

    @Test
    void aLinkAtTheOldFixedTemporaryNameIsNeverOpened() throws IOException {
        Path victim = victim();
        Files.createSymbolicLink(textfiles.resolve("numaspread.prom.tmp"), victim);
        Path file = textfiles.resolve("numaspread.prom");
        writeOnce(file);
        assertEquals(List.of(), lines);
        assertEquals("root:secret\n", Files.readString(victim));
        assertTrue(Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS));
        assertTrue(Files.readString(file).contains("numaspread_nic_present{nic=\"eth0\"} 0.0"), Files.readString(file));
        assertEquals(
                List.of("numaspread.prom", "numaspread.prom.tmp"),
                names(),
                "the random temporary name was renamed away");
    }
}
