// SPDX-License-Identifier: Apache-2.0
package io.numaspread.lease;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.numaspread.CpuSet;
import io.numaspread.NumaspreadException;
import io.numaspread.kernel.LockHolder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The registry with real locks: this JVM's, and those of JVMs started for the test, one of them killed. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class CpuLeasesTest {
    private static final long SELF = ProcessHandle.current().pid();

    @TempDir
    Path tmp;

    private Path dir() {
        return tmp.resolve("cpus");
    }

    private static CpuLeases.Lease take(CpuLeases leases, CpuSet cpus, String pin) {
        try (CpuLeases.Session session = leases.session()) {
            return session.take(cpus, pin);
        }
    }

    @Test
    void aLeaseNamesThisProcessUntilItIsClosed() throws Exception {
        CpuLeases leases = CpuLeases.in(dir());
        assertEquals(List.of(), leases.held(), "a registry not yet created holds nothing");
        CpuLeases.Lease lease = take(leases, CpuSet.of(0, 1), "test:io-0");
        List<HeldCpu> held = leases.held();
        assertEquals(List.of(0, 1), held.stream().map(HeldCpu::cpu).toList());
        for (HeldCpu cpu : held) {
            assertEquals(SELF, cpu.pid());
            LeaseRecord record = cpu.record().orElseThrow();
            assertEquals(List.of("test:io-0"), record.pins());
            assertTrue(record.alive(Path.of("/proc")), record.toString());
        }
        assertEquals(OptionalLong.of(SELF), LockHolder.pid(dir().resolve("cpu-0.lock")), "the kernel's view");
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(dir())));
        assertEquals(
                "rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(dir().resolve("cpu-0.lock"))));
        lease.close();
        assertEquals(List.of(), leases.held());
        assertEquals(OptionalLong.empty(), LockHolder.pid(dir().resolve("cpu-0.lock")));
    }

    /** POSIX locks are the process's: two leases of one JVM on one CPU share its lock, which the last one ends. */
    @Test
    void twoLeasesOfOneJvmShareTheCpusLock() {
        CpuLeases leases = CpuLeases.in(dir());
        CpuLeases.Lease first = take(leases, CpuSet.of(0), "test:a");
        CpuLeases.Lease second = take(CpuLeases.in(dir()), CpuSet.of(0), "test:b");
        List<HeldCpu> held = leases.held();
        assertEquals(1, held.size(), held.toString());
        assertEquals(
                List.of("test:a", "test:b"), held.get(0).record().orElseThrow().pins());
        first.close();
        assertEquals(OptionalLong.of(SELF), LockHolder.pid(dir().resolve("cpu-0.lock")), "closing one kept it");
        assertEquals(
                List.of("test:b"), leases.held().get(0).record().orElseThrow().pins());
        second.close();
        assertEquals(OptionalLong.empty(), LockHolder.pid(dir().resolve("cpu-0.lock")));
        try (CpuLeases.Session session = leases.session()) {
            assertEquals(Map.of(), session.heldByOthers());
        }
    }

    @Test
    void anotherProcessesLeaseIsSeenSharedAndGoneWhenItIsKilled() throws Exception {
        CpuLeases leases = CpuLeases.in(dir());
        Process other = LeaseHoldingProcess.start(dir(), "0", "test:other");
        try {
            List<HeldCpu> held = leases.held();
            assertEquals(1, held.size(), held.toString());
            assertEquals(other.pid(), held.get(0).pid());
            LeaseRecord record = held.get(0).record().orElseThrow();
            assertEquals(LeaseHoldingProcess.class.getName(), record.command());
            assertEquals(List.of("test:other"), record.pins());
            try (CpuLeases.Session session = leases.session()) {
                assertEquals(Map.of(0, 1), session.heldByOthers());
                // A plan that must share CPU 0 takes its second slot, so that the registry counts both.
                session.take(CpuSet.of(0), "test:mine").close();
            }
            LeaseHoldingProcess.kill(other);
            assertEquals(List.of(), leases.held(), "a killed holder's lock is gone with it");
            String stale = Files.readString(dir().resolve("cpu-0.lock"));
            assertTrue(stale.contains("pid=" + other.pid()), "its record stays behind: " + stale);
            try (CpuLeases.Lease mine = take(leases, CpuSet.of(0), "test:after")) {
                String now = Files.readString(dir().resolve("cpu-0.lock"), StandardCharsets.UTF_8);
                assertTrue(now.startsWith("pid=" + SELF + "\n"), "the next taker overwrites it: " + now);
                assertEquals(
                        List.of(SELF), leases.held().stream().map(HeldCpu::pid).toList(), mine.toString());
            }
        } finally {
            other.destroyForcibly();
        }
    }

    @Test
    void aSecondSlotCountsASecondHolder() throws Exception {
        Process first = LeaseHoldingProcess.start(dir(), "1", "test:first");
        Process second = LeaseHoldingProcess.start(dir(), "1", "test:second");
        try (CpuLeases.Session session = CpuLeases.in(dir()).session()) {
            assertEquals(Map.of(1, 2), session.heldByOthers());
            assertTrue(Files.exists(dir().resolve("cpu-1.2.lock")));
        } finally {
            LeaseHoldingProcess.kill(first);
            LeaseHoldingProcess.kill(second);
        }
    }

    /** A record without its lock (left by a crash) is stale, not held, whatever it says. */
    @Test
    void aRecordNobodyLocksIsNotHeld() throws Exception {
        Files.createDirectory(
                dir(), PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        LeaseRecord record = new LeaseRecord(
                SELF, LeaseRecord.startTime(Path.of("/proc"), SELF).orElseThrow(), "x", List.of("y"));
        Files.write(dir().resolve("cpu-3.lock"), record.encode());
        assertEquals(List.of(), CpuLeases.in(dir()).held());
    }

    @Test
    void aDirectoryOthersCanWriteIsRefused() throws Exception {
        Files.createDirectory(dir());
        Files.setPosixFilePermissions(dir(), PosixFilePermissions.fromString("rwxrwxrwx"));
        CpuLeases leases = CpuLeases.in(dir());
        NumaspreadException refused = assertThrows(NumaspreadException.class, leases::session);
        assertEquals(NumaspreadException.Kind.REFUSED, refused.kind());
        assertTrue(refused.getMessage().contains(dir() + " can be written by others"), refused.getMessage());
        assertThrows(NumaspreadException.class, leases::held);
        assertEquals(List.of(), Files.list(dir()).toList(), "nothing was created in it");
    }

    /** A process stuck in its session (planning) is waited for 10 s, then named, not waited for forever. */
    @Test
    void aSessionStuckInAnotherProcessIsNamedAfterTheWait() throws Exception {
        Process stuck = LeaseHoldingProcess.start(dir(), "0", "test:stuck", "stuck-in-session");
        try {
            long start = System.nanoTime();
            NumaspreadException refused = assertThrows(NumaspreadException.class, CpuLeases.in(dir())::session);
            long waited = (System.nanoTime() - start) / 1_000_000;
            assertTrue(waited >= CpuLeases.SESSION_WAIT_MILLIS, waited + " ms");
            assertEquals(NumaspreadException.Kind.REFUSED, refused.kind());
            assertTrue(
                    refused.getMessage()
                            .contains("another process (pid " + stuck.pid() + ") has held "
                                    + dir().resolve("registry.lock")),
                    refused.getMessage());
        } finally {
            LeaseHoldingProcess.kill(stuck);
        }
        try (CpuLeases.Session session = CpuLeases.in(dir()).session()) {
            assertEquals(Map.of(), session.heldByOthers(), "the killed process's session and lease are gone");
        }
    }

    @Test
    void oneThreadHoldsOneSessionAtATime() {
        CpuLeases leases = CpuLeases.in(dir());
        try (CpuLeases.Session session = leases.session()) {
            assertThrows(IllegalStateException.class, leases::session);
            assertEquals(Map.of(), session.heldByOthers());
        }
    }

    @Test
    void recordsReadBackAndOnlyWhole() {
        LeaseRecord record = new LeaseRecord(42, 7, "com.example.Main", List.of("netty:io-0", "a\nb"));
        LeaseRecord read = LeaseRecord.decode(record.encode()).orElseThrow();
        assertEquals(new LeaseRecord(42, 7, "com.example.Main", List.of("netty:io-0", "a b")), read);
        byte[] whole = record.encode();
        byte[] cut = java.util.Arrays.copyOf(whole, whole.length - 3);
        assertEquals(Optional.empty(), LeaseRecord.decode(cut), "a record being written");
        assertEquals(Optional.empty(), LeaseRecord.decode(new byte[0]));
        assertEquals(
                Optional.empty(), LeaseRecord.decode("pid=x\nstart=1\ncommand=c\n".getBytes(StandardCharsets.UTF_8)));
    }

    /** The start time is field 22, counted after the command, which may hold spaces and parentheses. */
    @Test
    void startTimeIsCountedAfterTheCommand() throws Exception {
        Path proc = tmp.resolve("proc");
        Files.createDirectories(proc.resolve("77"));
        Files.writeString(
                proc.resolve("77/stat"),
                "77 (a) b (c) S 1 77 77 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 987654 1000 10 0\n");
        assertEquals(OptionalLong.of(987654), LeaseRecord.startTime(proc, 77));
        assertEquals(OptionalLong.empty(), LeaseRecord.startTime(proc, 78));
        LeaseRecord reused = new LeaseRecord(77, 111, "c", List.of());
        assertTrue(!reused.alive(proc), "a reused PID is not the holder");
    }
}
