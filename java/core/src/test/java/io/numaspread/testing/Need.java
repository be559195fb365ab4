// SPDX-License-Identifier: Apache-2.0
package io.numaspread.testing;

import io.numaspread.CpuSet;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * What a test needs from the machine beyond a JDK, named by the {@code @Needs...} annotations and their JUnit
 * tags. {@link MachineRequirements} skips a test whose needs this machine lacks, unless every test must run.
 */
public enum Need {
    ROOT("root"),
    LIVE_NIC("the live NIC eth0 (a device, with its IRQs in /proc/interrupts)"),
    SECOND_CPU("CPU 1 in this process's allowed CPUs"),
    CONTAINER_ENGINE("a container engine (podman or docker on PATH)");

    private final String description;

    Need(String description) {
        this.description = description;
    }

    public String description() {
        return description;
    }

    /** Whether this machine, and this process, have it now. */
    public boolean presentHere() {
        return switch (this) {
            case ROOT ->
                statusField("Uid:")
                        .map(uids -> uids.split("\\s+")[1])
                        .filter("0"::equals)
                        .isPresent();
            case LIVE_NIC -> Files.exists(Path.of("/sys/class/net/eth0/device"));
            case SECOND_CPU ->
                statusField("Cpus_allowed_list:")
                        .map(CpuSet::parse)
                        .filter(cpus -> cpus.contains(1))
                        .isPresent();
            case CONTAINER_ENGINE -> onPath("podman") || onPath("docker");
        };
    }

    private static Optional<String> statusField(String name) {
        try (Stream<String> lines = Files.lines(Path.of("/proc/self/status"))) {
            return lines.filter(line -> line.startsWith(name))
                    .map(line -> line.substring(name.length()).strip())
                    .findFirst();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static boolean onPath(String command) {
        String path = System.getenv("PATH");
        return path != null && Stream.of(path.split(":")).anyMatch(dir -> Files.isExecutable(Path.of(dir, command)));
    }
}
