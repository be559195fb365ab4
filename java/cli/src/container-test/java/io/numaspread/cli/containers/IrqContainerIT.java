// SPDX-License-Identifier: Apache-2.0
package io.numaspread.cli.containers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.github.dockerjava.api.model.HostConfig;
import io.numaspread.CpuSet;
import io.numaspread.testing.NeedsContainerEngine;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code numaspread apply} in containers on the host's network, against the host's eth0 (a virtio NIC). This JVM
 * reads the host's /proc/irq itself, and puts the host's original affinities back after every test, pass or
 * fail.
 */
@NeedsContainerEngine
class IrqContainerIT {
    private static final String NIC = "eth0";

    private final HostIrqs irqs = new HostIrqs(NIC);
    private Map<Integer, CpuSet> original;

    /** The host directory that the containers mount as /run/numaspread, where apply keeps its state file. */
    @TempDir
    Path stateDirectory;

    @BeforeEach
    void rememberTheHostsAffinities() {
        original = irqs.affinities();
    }

    @AfterEach
    void putTheHostsAffinitiesBack() {
        HostIrqs.set(original);
    }

    @Test
    void privilegedApplyChangesTheHostsQueueIrqsAsPlannedAndRestorePutsThemBack() throws Exception {
        applyThenRestoreInAnotherContainer(host -> host.withPrivileged(true));
    }

    /** What docs/deploy.md promises besides --privileged: root in the host's user namespace, /proc/irq unmasked. */
    @Test
    void anUnmaskedProcIrqIsEnoughWithoutPrivileged() throws Exception {
        applyThenRestoreInAnotherContainer(host -> host.withSecurityOpts(List.of("unmask=/proc/irq")));
    }

    /**
     * In a PID namespace of its own the host's irqbalance is out of sight, and apply says so; with --pid=host, as
     * the command in docs/deploy.md has it, it looks and says nothing.
     */
    @Test
    void applyNotesWhenItCannotSeeTheHostsProcesses() throws Exception {
        String note = "note: this process is not in the host's PID namespace";
        try (NumaspreadContainer container = startOnTheHostsNetwork(host -> host.withPrivileged(true))) {
            NumaspreadContainer.Run run = container.numaspread("apply", "--nic", NIC, "--dry-run");
            assertEquals(0, run.exitCode(), run::toString);
            assertTrue(run.out().contains(note) && run.out().contains("--pid=host"), run::toString);
        }
        try (NumaspreadContainer container =
                startOnTheHostsNetwork(host -> host.withPrivileged(true).withPidMode("host"))) {
            NumaspreadContainer.Run run = container.numaspread("apply", "--nic", NIC, "--dry-run");
            assertEquals(0, run.exitCode(), run::toString);
            assertFalse(run.out().contains(note), run::toString);
        }
    }

    @Test
    void unprivilegedApplyIsRefusedWithExitCode3AndChangesNothing() throws Exception {
        Map<Integer, CpuSet> before = irqs.startAwayFromThePlan(irqs.plannedQueueAffinities());
        NumaspreadContainer.Run run;
        try (NumaspreadContainer container = startOnTheHostsNetwork(host -> {})) {
            run = container.numaspread("apply", "--nic", NIC);
        }
        assertEquals(3, run.exitCode(), run::toString);
        List<String> errorLines = run.err()
                .strip()
                .lines()
                .filter(line -> !line.startsWith("WARNING:"))
                .toList();
        assertEquals(1, errorLines.size(), run::toString);
        assertTrue(errorLines.get(0).contains("--privileged"), "says which privilege is needed: " + run);
        assertEquals(before, irqs.affinities());
    }

    private void applyThenRestoreInAnotherContainer(Consumer<HostConfig> privilege) throws Exception {
        Map<Integer, CpuSet> planned = irqs.plannedQueueAffinities();
        Map<Integer, CpuSet> before = irqs.startAwayFromThePlan(planned);
        Path stateFile = stateDirectory.resolve(NIC + ".json");

        try (NumaspreadContainer container = startOnTheHostsNetwork(privilege)) {
            container.numaspread("apply", "--nic", NIC).expectSuccess();
        }
        Map<Integer, CpuSet> expected = new TreeMap<>(before);
        expected.putAll(planned);
        assertEquals(expected, irqs.affinities(), "queue vectors as planned, the others untouched");
        assertTrue(Files.isRegularFile(stateFile), "the state file outlives the container");

        // Another container, as after a pod restart: the state file on the host is all that restore needs.
        try (NumaspreadContainer container = startOnTheHostsNetwork(privilege)) {
            container.numaspread("restore", "--nic", NIC).expectSuccess();
        }
        assertEquals(before, irqs.affinities());
        assertFalse(Files.exists(stateFile), "restore removes the state file");
    }

    private NumaspreadContainer startOnTheHostsNetwork(Consumer<HostConfig> privilege) {
        return NumaspreadContainer.start(
                host -> privilege.accept(host.withNetworkMode("host")),
                List.of(new NumaspreadContainer.Mount(stateDirectory, "/run/numaspread")));
    }
}
