// SPDX-License-Identifier: Apache-2.0
package io.numaspread.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.numaspread.kernel.LockHolder;
import io.numaspread.lease.LeaseHoldingProcess;
import io.numaspread.lease.LeaseRecord;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code irqs} and {@code doctor} show who holds which CPU: a lease held by a JVM of its own, beside a record
 * left by a process that is gone (not held, so not shown), on the stand-in eth0.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class CpuLeasesCliTest extends StandInCliTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    private Path leases() {
        return run.resolve("cpus");
    }

    /** A record in {@code cpu-3.lock} that no process locks: what a crashed holder leaves. */
    private void leaveStaleRecord() throws Exception {
        long self = ProcessHandle.current().pid();
        LeaseRecord stale = new LeaseRecord(
                self, LeaseRecord.startTime(Path.of("/proc"), self).orElseThrow(), "gone.Main", List.of("netty:x"));
        Files.write(leases().resolve("cpu-3.lock"), stale.encode());
    }

    @Test
    void irqsAndDoctorListTheHeldCpusOnly() throws Exception {
        Process holder = LeaseHoldingProcess.start(leases(), "1", "netty:io-0");
        try {
            leaveStaleRecord();
            String line = "  CPU 1  pid " + holder.pid() + "  " + LeaseHoldingProcess.class.getName() + "  netty:io-0";

            CliRun text = CliRun.of(args("irqs", "--nic", "eth0", "--lease-dir", leases().toString()));
            assertEquals(0, text.exitCode(), text.err());
            assertTrue(text.out().contains("\nCPU leases (" + leases() + "):\n" + line + "\n"), text.out());
            assertFalse(text.out().contains("CPU 3"), text.out());

            CliRun json = CliRun.of(args("irqs", "--nic", "eth0", "--json", "--lease-dir", leases().toString()));
            assertEquals(0, json.exitCode(), json.err());
            JsonNode held = JSON.readTree(json.out()).at("/cpu_leases/held");
            assertEquals(1, held.size(), held.toString());
            assertEquals(1, held.get(0).get("cpu").asInt());
            assertEquals(holder.pid(), held.get(0).get("pid").asLong());
            assertEquals("[\"netty:io-0\"]", held.get(0).get("pins").toString());

            CliRun doctor = CliRun.of(args("doctor", "--nic", "eth0", "--lease-dir", leases().toString()));
            assertEquals(0, doctor.exitCode(), doctor.err());
            assertTrue(
                    doctor.out()
                            .contains("\nCPU leases:\n  cpu_1                    present  held by pid " + holder.pid()
                                    + " " + LeaseHoldingProcess.class.getName() + " netty:io-0\n"),
                    doctor.out());
            assertFalse(doctor.out().contains("cpu_3"), doctor.out());
            assertEquals(
                    OptionalLong.of(holder.pid()),
                    LockHolder.pid(leases().resolve("cpu-1.lock")),
                    "reading the registry three times left its holder holding it");
        } finally {
            LeaseHoldingProcess.kill(holder);
        }
        CliRun after = CliRun.of(args("irqs", "--nic", "eth0", "--lease-dir", leases().toString()));
        assertTrue(after.out().contains("\nCPU leases (" + leases() + "):\n  no CPU is leased\n"), after.out());
    }

    @Test
    void theDefaultRegistryOfAStandInTreeIsBesideItsStateFiles() {
        CliRun text = CliRun.of(args("irqs", "--nic", "eth0"));
        assertEquals(0, text.exitCode(), text.err());
        assertTrue(
                text.out().contains("\nCPU leases (" + proc.resolve("numaspread/cpus") + "):\n  no CPU is leased\n"),
                text.out());
    }

    /** A registry others can write is not trusted, and said so; irqs still shows the rest, exit 0. */
    @Test
    void aRegistryOthersCanWriteIsNamedNotRead() throws Exception {
        Files.createDirectories(leases());
        Files.setPosixFilePermissions(leases(), PosixFilePermissions.fromString("rwxrwxrwx"));
        CliRun text = CliRun.of(args("irqs", "--nic", "eth0", "--lease-dir", leases().toString()));
        assertEquals(0, text.exitCode(), text.err());
        assertTrue(
                text.out()
                        .contains("  cannot be read: CPU leases in " + leases() + ": " + leases()
                                + " can be written by others"),
                text.out());
    }
}
