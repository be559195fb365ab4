// SPDX-License-Identifier: Apache-2.0
package io.numaspread.watch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.numaspread.CpuSet;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The checkpoint's directory watched through the kernel's inotify, the file written as the kubelet writes it: a
 * new file renamed over the old one.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class KubeletCpuStateEventsTest {
    /** Long enough for inotify's event to reach the JDK's poller and the reader under a loaded host. */
    private static final long WAIT_SECONDS = 20;
    /** How long a rewrite that must not be reported is given to be reported anyway. */
    private static final long QUIET_MILLIS = 1500;

    private static final KernelEvent CHANGED =
            new KernelEvent("kubelet", "checkpoint cpu_manager_state changed", Optional.empty());

    @TempDir
    Path kubelet;

    private final BlockingQueue<KernelEvent> events = new LinkedBlockingQueue<>();
    private final List<String> log = new ArrayList<>();

    @Test
    void aPodGivenCpusAndGoneAgainIsOneEventEach() throws Exception {
        Path file = kubelet.resolve("cpu_manager_state");
        checkpoint(file, "");
        KubeletCpuStateEvents watching = start(file, CpuSet.EMPTY);
        try {
            checkpoint(file, "4-5,8");
            assertEquals(CHANGED, events.poll(WAIT_SECONDS, TimeUnit.SECONDS));
            checkpoint(file, "");
            KernelEvent gone = events.poll(WAIT_SECONDS, TimeUnit.SECONDS);
            assertEquals(CHANGED, gone);
            assertTrue(gone.concerns("eth0") && gone.concerns("eth1"), "a change of CPUs concerns every NIC");
            assertNull(events.poll(QUIET_MILLIS, TimeUnit.MILLISECONDS), "one event each");
        } finally {
            watching.close();
        }
    }

    @Test
    void aRewriteWithTheSameCpusOrAnotherFileIsNoEvent() throws Exception {
        Path file = kubelet.resolve("cpu_manager_state");
        checkpoint(file, "2-3");
        KubeletCpuStateEvents watching = start(file, CpuSet.parse("2-3"));
        try {
            checkpoint(file, "2-3");
            checkpoint(kubelet.resolve("memory_manager_state"), "6");
            assertNull(events.poll(QUIET_MILLIS, TimeUnit.MILLISECONDS));
            // The reader is alive and still reads the file: the next change is heard.
            checkpoint(file, "3");
            assertEquals(CHANGED, events.poll(WAIT_SECONDS, TimeUnit.SECONDS));
        } finally {
            watching.close();
        }
    }

    @Test
    void aFileThatCannotBeParsedIsLeftToTheDriftCheck() throws Exception {
        Path file = kubelet.resolve("cpu_manager_state");
        checkpoint(file, "1");
        KubeletCpuStateEvents watching = start(file, CpuSet.parse("1"));
        try {
            Files.writeString(file, "{\"entries\": ");
            assertNull(events.poll(QUIET_MILLIS, TimeUnit.MILLISECONDS));
            checkpoint(file, "");
            assertEquals(CHANGED, events.poll(WAIT_SECONDS, TimeUnit.SECONDS));
        } finally {
            watching.close();
        }
    }

    @Test
    void aDirectoryThatIsNotThereIsSaidAndLeftToTheDriftCheck() {
        Path file = kubelet.resolve("not-yet").resolve("cpu_manager_state");
        Optional<KubeletCpuStateEvents> watching =
                KubeletCpuStateEvents.start(file, CpuSet.EMPTY, events::add, log::add);
        assertTrue(watching.isEmpty());
        assertEquals(1, log.size(), log.toString());
        assertTrue(
                log.get(0).contains(kubelet.resolve("not-yet").toString())
                        && log.get(0).endsWith("it is read at every drift check"),
                log.get(0));
    }

    private KubeletCpuStateEvents start(Path file, CpuSet known) {
        return KubeletCpuStateEvents.start(file, known, events::add, log::add)
                .orElseThrow(() -> new AssertionError("not watched: " + log));
    }

    /** Writes the static policy's checkpoint with one pod holding {@code cpus} (none when empty), as the kubelet does. */
    private static void checkpoint(Path file, String cpus) throws IOException {
        String entries = cpus.isEmpty() ? "{}" : "{\"6f1c2b0e-pod\": {\"app\": \"" + cpus + "\"}}";
        Path next = file.resolveSibling(file.getFileName() + ".tmp");
        Files.writeString(
                next,
                "{\"policyName\": \"static\", \"defaultCpuSet\": \"0-15\", \"entries\": " + entries
                        + ", \"checksum\": 1}");
        Files.move(next, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }
}
