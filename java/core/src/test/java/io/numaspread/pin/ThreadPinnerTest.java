// SPDX-License-Identifier: Apache-2.0
package io.numaspread.pin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.numaspread.CpuSet;
import io.numaspread.kernel.SysfsTree;
import io.numaspread.nativeaccess.BackendKind;
import io.numaspread.nativeaccess.Backends;
import io.numaspread.nativeaccess.NativeBackend;
import io.numaspread.nativeaccess.NativeCallException;
import io.numaspread.testing.CpusetCgroup;
import io.numaspread.testing.NeedsRoot;
import io.numaspread.testing.NeedsSecondCpu;
import io.numaspread.testing.ProcStatus;
import io.numaspread.topology.TopologyDiscovery;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.stream.Stream;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Pins real threads on this machine, through each backend that can pin here, and reads the kernel's answer. */
@NeedsSecondCpu
class ThreadPinnerTest {
    private static final CpuSet FIRST = CpuSet.of(0);
    private static final CpuSet SECOND = CpuSet.of(1);

    /** JNA, and the live selection when it is another backend (FFM on JDK 23 and newer). */
    static Stream<NativeBackend> pinningBackends() throws Exception {
        NativeBackend jna =
                Backends.select(SysfsTree.live(), Optional.of(BackendKind.JNA)).backend();
        NativeBackend live = Backends.live().backend();
        return live.kind() == BackendKind.JNA ? Stream.of(jna) : Stream.of(jna, live);
    }

    private static ThreadPinner pinner(NativeBackend backend) {
        return new ThreadPinner(backend, TopologyDiscovery.processAllowed(backend));
    }

    @ParameterizedTest
    @MethodSource("pinningBackends")
    void pinsTheCurrentThreadAndTheKernelAgrees(NativeBackend backend) throws Exception {
        ThreadPinner pinner = pinner(backend);
        onFreshThread(() -> {
            for (CpuSet cpus : List.of(FIRST, SECOND, FIRST.union(SECOND))) {
                pinner.pinCurrentThread(cpus);
                assertEquals(cpus, pinner.currentAffinity());
                assertEquals(cpus, ProcStatus.cpusAllowed(pinner.currentTid()));
                assertTrue(cpus.contains(pinner.currentCpu()), "running on " + pinner.currentCpu() + ", not " + cpus);
            }
        });
    }

    @ParameterizedTest
    @MethodSource("pinningBackends")
    void pinsAnotherThreadByItsTid(NativeBackend backend) throws Exception {
        ThreadPinner pinner = pinner(backend);
        CompletableFuture<Integer> tid = new CompletableFuture<>();
        CountDownLatch release = new CountDownLatch(1);
        Thread other = new Thread(() -> {
            try {
                tid.complete(pinner.currentTid());
            } catch (Throwable t) {
                // Reported by tid.get() below, instead of leaving the test waiting for a tid.
                tid.completeExceptionally(t);
            }
            await(release);
        });
        other.start();
        try {
            pinner.pinThread(tid.get(), SECOND);
            assertEquals(SECOND, pinner.affinity(tid.get()));
            assertEquals(SECOND, ProcStatus.cpusAllowed(tid.get()));
        } finally {
            release.countDown();
            other.join();
        }
    }

    @Test
    void refusesCpusOutsideTheAllowedSetNamingThem() throws Exception {
        ThreadPinner inContainer = new ThreadPinner(Backends.live().backend(), SECOND);
        onFreshThread(() -> {
            CpuSet before = inContainer.currentAffinity();
            CpusNotAllowedException refused =
                    assertThrows(CpusNotAllowedException.class, () -> inContainer.pinCurrentThread(CpuSet.of(0, 1)));
            assertEquals(
                    "CPUs 0 are outside the CPUs this process may use (1, its cpuset or affinity);"
                            + " cannot pin to 0-1",
                    refused.getMessage());
            assertEquals(before, inContainer.currentAffinity(), "a refused pin must not reach the kernel");
            assertThrows(CpusNotAllowedException.class, () -> inContainer.pinCurrentThread(CpuSet.EMPTY));
        });
    }

    /** A process in a cpuset cgroup of CPU 0 alone, as in a container: the kernel refuses CPU 1 for it. */
    @ParameterizedTest
    @MethodSource("pinningBackends")
    @NeedsRoot
    void kernelRefusalsAreNativeCallExceptions(NativeBackend backend) throws Exception {
        ThreadPinner pinner = pinner(backend);
        try (CpusetCgroup container = CpusetCgroup.withChild(FIRST)) {
            pinner.pinThread(container.pid(), FIRST);
            NativeCallException invalid =
                    assertThrows(NativeCallException.class, () -> pinner.pinThread(container.pid(), SECOND));
            assertEquals(List.of("sched_setaffinity", 22), List.of(invalid.function(), invalid.errno()));
            assertEquals(FIRST, pinner.affinity(container.pid()));
        }
        NativeCallException noThread =
                assertThrows(NativeCallException.class, () -> pinner.pinThread(Integer.MAX_VALUE, FIRST));
        assertEquals(List.of("sched_setaffinity", 3), List.of(noThread.function(), noThread.errno()));
        assertTrue(noThread.getMessage().contains("thread " + Integer.MAX_VALUE), noThread.getMessage());
    }

    @Test
    void everyPinIsAJfrEvent(@TempDir Path dir) throws Exception {
        ThreadPinner pinner = ThreadPinner.live();
        ThreadPinner narrow = new ThreadPinner(pinner.backend(), SECOND);
        Path file = dir.resolve("pins.jfr");
        try (Recording recording = new Recording()) {
            recording.enable("io.numaspread.ThreadPin");
            recording.start();
            onFreshThread(() -> {
                pinner.pinCurrentThread(SECOND);
                assertThrows(CpusNotAllowedException.class, () -> narrow.pinCurrentThread(FIRST));
            });
            recording.stop();
            recording.dump(file);
        }
        List<RecordedEvent> events = RecordingFile.readAllEvents(file).stream()
                .filter(e -> e.getEventType().getName().equals("io.numaspread.ThreadPin"))
                .toList();
        assertEquals(2, events.size());
        RecordedEvent pinned = events.get(0);
        assertEquals(
                List.of("pin-test", "1", "pinned"),
                List.of(pinned.getString("threadName"), pinned.getString("cpus"), pinned.getString("outcome")));
        assertTrue(pinned.getInt("tid") > 0);
        RecordedEvent refused = events.get(1);
        assertEquals("0", refused.getString("cpus"));
        assertTrue(refused.getString("outcome").startsWith("CPUs 0 are outside"), refused.getString("outcome"));
    }

    /** Runs on a new thread, so that the test runner's threads keep their affinity. */
    static void onFreshThread(Runnable body) throws Exception {
        CompletableFuture<Void> done = new CompletableFuture<>();
        Thread thread = new Thread(
                () -> {
                    try {
                        body.run();
                        done.complete(null);
                    } catch (Throwable t) {
                        done.completeExceptionally(t);
                    }
                },
                "pin-test");
        thread.start();
        thread.join();
        done.get();
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
