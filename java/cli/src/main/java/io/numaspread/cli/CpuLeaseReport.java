// SPDX-License-Identifier: Apache-2.0
package io.numaspread.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.numaspread.NumaspreadException;
import io.numaspread.doctor.Finding;
import io.numaspread.lease.CpuLeases;
import io.numaspread.lease.HeldCpu;
import io.numaspread.lease.LeaseRecord;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * Who holds which CPU in the lease registry, as {@code irqs} and {@code doctor} show it: each held CPU with its
 * holder's PID, command and what it pins there. A registry that cannot be read is said so, and the command
 * goes on: it only shows.
 *
 * @param directory the registry's directory
 * @param held the CPUs held, by CPU and PID
 * @param unreadable why the registry could not be read; empty when it was
 */
record CpuLeaseReport(Path directory, List<HeldCpu> held, Optional<String> unreadable) {
    CpuLeaseReport {
        held = List.copyOf(held);
    }

    static CpuLeaseReport read(Path directory) {
        try {
            return new CpuLeaseReport(directory, CpuLeases.in(directory).held(), Optional.empty());
        } catch (NumaspreadException e) {
            return new CpuLeaseReport(directory, List.of(), Optional.of(e.getMessage()));
        }
    }

    /** {@code CPU 1  pid 4242  io.example.Server  netty:io-0, netty:io-1}, a line per holder of a CPU. */
    void print(PrintWriter out) {
        out.println("CPU leases (" + directory + "):");
        if (unreadable.isPresent()) {
            out.println("  cannot be read: " + unreadable.get());
        } else if (held.isEmpty()) {
            out.println("  no CPU is leased");
        }
        for (HeldCpu cpu : held) {
            out.println("  CPU " + cpu.cpu() + "  " + holder(cpu));
        }
    }

    /** {@code pid 4242  io.example.Server  netty:io-0}, or the PID alone while its record is not written. */
    private static String holder(HeldCpu cpu) {
        return "pid " + cpu.pid() + "  "
                + cpu.record()
                        .map(record -> record.command() + "  " + String.join(", ", record.pins()))
                        .orElse("(no record of its own: being written, or left by another process)");
    }

    /** {"directory", "held": [{"cpu", "pid", "command", "pins"}]}, command and pins null without a record. */
    ObjectNode toJson() {
        ObjectNode root = Json.object();
        root.put("directory", directory.toString());
        if (unreadable.isPresent()) {
            root.put("unreadable", unreadable.get());
            root.putNull("held");
            return root;
        }
        ArrayNode entries = root.putArray("held");
        for (HeldCpu cpu : held) {
            ObjectNode entry = entries.addObject().put("cpu", cpu.cpu()).put("pid", cpu.pid());
            if (cpu.record().isPresent()) {
                LeaseRecord record = cpu.record().get();
                entry.put("command", record.command());
                record.pins().forEach(entry.putArray("pins")::add);
            } else {
                entry.putNull("command");
                entry.putNull("pins");
            }
        }
        return root;
    }

    /** doctor's findings: one per held CPU ({@code cpu_N}), or one {@code cpu_leases} when none is. */
    List<Finding> findings() {
        if (unreadable.isPresent()) {
            return List.of(new Finding(
                    Finding.Area.LEASES,
                    "cpu_leases",
                    Finding.State.UNKNOWN,
                    unreadable.get(),
                    Optional.of("a registry this user can read (root's " + CpuLeases.DEFAULT + ": root)")));
        }
        if (held.isEmpty()) {
            return List.of(new Finding(
                    Finding.Area.LEASES,
                    "cpu_leases",
                    Finding.State.ABSENT,
                    "no CPU is leased in " + directory,
                    Optional.empty()));
        }
        return held.stream()
                .map(cpu -> new Finding(
                        Finding.Area.LEASES,
                        "cpu_" + cpu.cpu(),
                        Finding.State.PRESENT,
                        "held by " + holder(cpu).replace("  ", " "),
                        Optional.empty()))
                .toList();
    }
}
