// SPDX-License-Identifier: Apache-2.0
package io.numaspread.nativeaccess;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.numaspread.kernel.Errno;
import io.numaspread.kernel.ErrnoException;
import io.numaspread.kernel.KernelFiles;
import io.numaspread.kernel.SysfsTree;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The native backends' kernel files fail with the errno the real kernel gave, captured per call and per thread:
 * no text is read. Every error here is the live kernel's: {@code /proc/self/mem} at offset 0 (never mapped)
 * gives EIO on read and write, as a managed IRQ's {@code smp_affinity_list} does on write; {@code /dev/full}
 * gives ENOSPC.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class KernelFilesContractTest {
    private static final Path UNMAPPED = Path.of("/proc/self/mem");
    private static final Path FULL = Path.of("/dev/full");

    @TempDir
    Path dir;

    /**
     * The backend's files; FFM on a JDK older than 23 (the JNA suite runs this class on JDK 17) must instead be
     * unavailable, and the test ends there, having checked that.
     */
    private static Optional<KernelFiles> files(BackendKind kind) throws BackendUnavailableException {
        if (kind == BackendKind.FFM && Runtime.version().feature() < 23) {
            assertThrows(BackendUnavailableException.class, () -> Backends.select(SysfsTree.live(), Optional.of(kind)));
            return Optional.empty();
        }
        return Optional.of(
                Backends.select(SysfsTree.live(), Optional.of(kind)).backend().kernelFiles());
    }

    private static int errnoOf(Callable<?> call) {
        ErrnoException e = assertThrows(ErrnoException.class, call::call);
        return e.number();
    }

    @ParameterizedTest
    @EnumSource(
            value = BackendKind.class,
            names = {"FFM", "JNA"})
    void theKernelsErrnoIsCapturedByTheCall(BackendKind kind) throws Exception {
        Optional<KernelFiles> loaded = files(kind);
        if (loaded.isEmpty()) {
            return;
        }
        KernelFiles files = loaded.get();
        assertEquals(Errno.EIO.number(), errnoOf(() -> {
            files.write(UNMAPPED, "0-1");
            return null;
        }));
        assertEquals(Errno.EIO.number(), errnoOf(() -> files.read(UNMAPPED)));
        assertEquals(Errno.ENOSPC.number(), errnoOf(() -> {
            files.write(FULL, "0-1");
            return null;
        }));
        assertEquals(Errno.ENOENT.number(), errnoOf(() -> files.read(dir.resolve("absent"))));
        assertEquals(Errno.EISDIR.number(), errnoOf(() -> {
            files.write(dir, "0-1");
            return null;
        }));
        assertEquals(Errno.EISDIR.number(), errnoOf(() -> files.read(dir)));
    }

    @ParameterizedTest
    @EnumSource(
            value = BackendKind.class,
            names = {"FFM", "JNA"})
    void writesReplaceTheFileAndReadsTakeItsMeaning(BackendKind kind) throws Exception {
        Optional<KernelFiles> loaded = files(kind);
        if (loaded.isEmpty()) {
            return;
        }
        KernelFiles files = loaded.get();
        Path file = dir.resolve("smp_affinity_list");
        Files.writeString(file, "0-127\n");
        files.write(file, "3");
        assertEquals("3\n", Files.readString(file));
        Files.write(file, "0-7\n\0".getBytes(java.nio.charset.StandardCharsets.ISO_8859_1));
        assertEquals("0-7", files.read(file));
        Files.write(file, new byte[10_000]);
        assertEquals("", files.read(file), "a read longer than one chunk");
        files.probeWritable(file);
        assertEquals(10_000, Files.size(file), "a probe changes nothing");
    }

    /** Many threads fail at once with different errnos; each sees its own. */
    @ParameterizedTest
    @EnumSource(
            value = BackendKind.class,
            names = {"FFM", "JNA"})
    void errnoIsPerCallAndPerThread(BackendKind kind) throws Exception {
        Optional<KernelFiles> loaded = files(kind);
        if (loaded.isEmpty()) {
            return;
        }
        KernelFiles files = loaded.get();
        int threads = 4;
        int rounds = 2_000;
        CyclicBarrier start = new CyclicBarrier(threads);
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<Integer>> wrong = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                Path target = t % 2 == 0 ? UNMAPPED : FULL;
                int expected = t % 2 == 0 ? Errno.EIO.number() : Errno.ENOSPC.number();
                wrong.add(pool.submit(() -> {
                    start.await();
                    int mismatches = 0;
                    for (int r = 0; r < rounds; r++) {
                        try {
                            files.write(target, "1");
                            mismatches++;
                        } catch (ErrnoException e) {
                            mismatches += e.number() == expected ? 0 : 1;
                        }
                    }
                    return mismatches;
                }));
            }
            for (Future<Integer> mismatches : wrong) {
                assertEquals(0, mismatches.get());
            }
        } finally {
            pool.shutdownNow();
        }
    }

    /** Without a native backend Java's file API is all there is: a failure it cannot type stays unknown. */
    @ParameterizedTest
    @EnumSource(value = BackendKind.class, names = "SYSFS")
    void theSysfsBackendClassifiesByExceptionTypeOnly(BackendKind kind) throws Exception {
        KernelFiles files = files(kind).orElseThrow();
        IOException failure = assertThrows(IOException.class, () -> files.write(UNMAPPED, "0-1"));
        assertEquals(Errno.UNKNOWN, Errno.of(failure));
        assertInstanceOf(
                java.nio.file.NoSuchFileException.class,
                assertThrows(IOException.class, () -> files.read(dir.resolve("absent"))));
    }
}
