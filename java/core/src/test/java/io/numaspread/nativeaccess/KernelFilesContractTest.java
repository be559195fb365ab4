// SPDX-License-Identifier: Apache-2.0
package io.numaspread.nativeaccess;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.numaspread.kernel.Errno;
import io.numaspread.kernel.ErrnoException;
import io.numaspread.kernel.KernelFiles;
import io.numaspread.kernel.KernelText;
import io.numaspread.kernel.SysfsTree;
import java.io.IOException;
import java.io.RandomAccessFile;
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

    /**
     * A tree another user prepared could put a link where a control file is: root's write must not go through it
     * ({@code O_NOFOLLOW}, ELOOP), nor its read, and the error names the path. Links on the way, as the kernel's
     * {@code /sys/class/net/eth0} is one, are followed.
     */
    @ParameterizedTest
    @EnumSource(BackendKind.class)
    void aLinkAtTheControlFileIsNeitherWrittenNorReadThrough(BackendKind kind) throws Exception {
        Optional<KernelFiles> loaded = files(kind);
        if (loaded.isEmpty()) {
            return;
        }
        KernelFiles files = loaded.get();
        Path victim = Files.writeString(dir.resolve("roots-own"), "0-7\n");
        Path link = Files.createSymbolicLink(
                Files.createDirectories(dir.resolve("irq/50")).resolve("smp_affinity_list"), victim);
        IOException write = assertThrows(IOException.class, () -> files.write(link, "3"));
        assertTrue(write.getMessage().contains(link.toString()), write.getMessage());
        assertThrows(IOException.class, () -> files.probeWritable(link));
        assertThrows(IOException.class, () -> files.read(link));
        if (kind != BackendKind.SYSFS) {
            assertEquals(Errno.ELOOP.number(), ((ErrnoException) write).number());
        }
        assertEquals("0-7\n", Files.readString(victim));

        Path real = Files.createDirectories(dir.resolve("devices/51"));
        Files.writeString(real.resolve("smp_affinity_list"), "0-7\n");
        Path onTheWay = Files.createSymbolicLink(dir.resolve("irq/51"), real).resolve("smp_affinity_list");
        files.write(onTheWay, "3");
        assertEquals("3", files.read(onTheWay));
    }

    /** A FIFO planted at a control file blocks neither the open nor the read: a write fails, a read ends. */
    @ParameterizedTest
    @EnumSource(BackendKind.class)
    @Timeout(value = 20, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD) // a hung open
    void aFifoBlocksNeitherAReadNorAWrite(BackendKind kind) throws Exception {
        Optional<KernelFiles> loaded = files(kind);
        if (loaded.isEmpty()) {
            return;
        }
        KernelFiles files = loaded.get();
        Path fifo = dir.resolve("smp_affinity_list");
        assertEquals(0, new ProcessBuilder("mkfifo", fifo.toString()).start().waitFor());
        IOException write = assertThrows(IOException.class, () -> files.write(fifo, "3"));
        if (kind == BackendKind.SYSFS) {
            assertTrue(write.getMessage().contains(fifo + " is not a regular file"), write.getMessage());
            assertThrows(IOException.class, () -> files.read(fifo));
        } else {
            assertEquals(Errno.ENXIO.number(), ((ErrnoException) write).number(), "no reader: O_NONBLOCK's ENXIO");
            assertEquals("", files.read(fifo), "no writer: the end at once");
        }
    }

    /** A planted huge file ends in one line at the limit, not in an OutOfMemoryError. */
    @ParameterizedTest
    @EnumSource(BackendKind.class)
    void readsStopAtTheSizeLimit(BackendKind kind) throws Exception {
        Optional<KernelFiles> loaded = files(kind);
        if (loaded.isEmpty()) {
            return;
        }
        Path huge = dir.resolve("smp_affinity_list");
        try (RandomAccessFile sparse = new RandomAccessFile(huge.toFile(), "rw")) {
            sparse.setLength(8L << 20);
        }
        IOException e = assertThrows(IOException.class, () -> loaded.get().read(huge));
        assertEquals(
                "larger than " + KernelText.MAX_ATTRIBUTE_BYTES + " bytes, more than any such file holds",
                e.getMessage());
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
