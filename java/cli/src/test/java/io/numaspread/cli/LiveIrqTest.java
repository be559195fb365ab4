// SPDX-License-Identifier: Apache-2.0
package io.numaspread.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.numaspread.kernel.InterfaceName;
import io.numaspread.kernel.KernelFiles;
import io.numaspread.kernel.KernelPaths;
import io.numaspread.nativeaccess.Backends;
import io.numaspread.nic.NapiDiscovery;
import io.numaspread.nic.NapiInstance;
import io.numaspread.nic.NapiMap;
import io.numaspread.nic.Nic;
import io.numaspread.nic.NicDiscovery;
import io.numaspread.nic.NicVector;
import io.numaspread.testing.NeedsLiveNic;
import io.numaspread.testing.NeedsRoot;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The real kernel: this machine's eth0 (virtio: virtioN-input.0 and virtioN-output.0). Every IRQ's
 * smp_affinity_list is saved first and written back afterwards whatever happens (after each test, and by a
 * shutdown hook should the JVM be stopped), independently of the code under test.
 */
class LiveIrqTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Path PROC_IRQ = Path.of("/proc/irq");
    private static Map<Integer, String> original;
    private static Thread safetyNet;

    @TempDir
    Path run;

    @BeforeAll
    static void saveEveryIrq() {
        original = everyAffinity();
        safetyNet = new Thread(LiveIrqTest::putBackEveryIrq, "numaspread-live-irq-safety-net");
        Runtime.getRuntime().addShutdownHook(safetyNet);
    }

    @AfterAll
    static void checkEveryIrqIsBack() {
        List<String> fixed = putBackEveryIrq();
        Runtime.getRuntime().removeShutdownHook(safetyNet);
        assertEquals(List.of(), fixed, "the safety net had to put these back, so numaspread restore did not");
        assertEquals(original, everyAffinity());
    }

    /** Writes back every IRQ that differs from what was saved; returns those it had to write. */
    private static List<String> putBackEveryIrq() {
        List<String> fixed = new ArrayList<>();
        everyAffinity().forEach((irq, now) -> {
            String was = original.get(irq);
            if (was != null && !was.equals(now)) {
                try {
                    KernelFiles.DIRECT.write(PROC_IRQ.resolve(irq + "/smp_affinity_list"), was);
                    fixed.add(irq + ": " + now + " -> " + was);
                } catch (IOException e) {
                    fixed.add(irq + ": " + now + " could not be put back to " + was + ": " + e.getMessage());
                }
            }
        });
        return fixed;
    }

    private static Map<Integer, String> everyAffinity() {
        Map<Integer, String> affinity = new TreeMap<>();
        try (Stream<Path> irqs = Files.list(PROC_IRQ)) {
            for (Path dir : irqs.filter(p -> Files.exists(p.resolve("smp_affinity_list")))
                    .toList()) {
                affinity.put(
                        Integer.parseInt(dir.getFileName().toString()),
                        Files.readString(dir.resolve("smp_affinity_list")).strip());
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return affinity;
    }

    private static List<Integer> eth0QueueIrqs() {
        Nic eth0 = NicDiscovery.discover(new InterfaceName("eth0"), KernelPaths.LIVE);
        assertEquals("virtio", eth0.grouping().scheme(), "this test is for the virtio eth0 of the project's machines");
        return eth0.queueVectors().stream().map(NicVector::irq).toList();
    }

    @Test
    @NeedsRoot
    @NeedsLiveNic
    void applyReadBackAndRestoreOnTheRealKernel() throws Exception {
        List<Integer> queueIrqs = eth0QueueIrqs();
        assertFalse(queueIrqs.isEmpty());
        int cpu = Runtime.getRuntime().availableProcessors() - 1;
        Path state = run.resolve("eth0.json");
        try {
            CliRun apply =
                    CliRun.of("apply", "--nic", "eth0", "--cpus", Integer.toString(cpu), "--state", state.toString());
            assertEquals(0, apply.exitCode(), apply.err() + apply.out());
            for (int irq : queueIrqs) {
                assertEquals(Integer.toString(cpu), everyAffinity().get(irq), "IRQ " + irq + " after apply");
            }
            JsonNode irqs = JSON.readTree(CliRun.of("irqs", "--nic", "eth0", "--cpus", Integer.toString(cpu), "--json")
                    .out());
            for (JsonNode irq : irqs.get("irqs")) {
                if (irq.get("role").asText().equals("queue")) {
                    assertEquals("matches", irq.get("state").asText(), irq.toString());
                    assertTrue(irq.get("effective_affinity_list").isArray(), "reported, not asserted");
                }
            }

            CliRun second = CliRun.of(
                    "apply",
                    "--nic",
                    "eth0",
                    "--per-cpu",
                    "--exclude",
                    Integer.toString(cpu),
                    "--state",
                    state.toString());
            assertEquals(0, second.exitCode(), second.err() + second.out());
            assertTrue(
                    Files.readString(state).contains("\"value\": \"" + original.get(queueIrqs.get(0)) + "\""),
                    "the state keeps the original value, not the intermediate one");

            CliRun restore = CliRun.of("restore", "--nic", "eth0", "--state", state.toString());
            assertEquals(0, restore.exitCode(), restore.err() + restore.out());
            assertEquals(original, everyAffinity(), "every IRQ is back");
            assertFalse(Files.exists(state));
        } finally {
            putBackEveryIrq();
        }
    }

    /**
     * On a host whose only NIC with queue IRQs is eth0, {@code apply --all} is {@code apply --nic eth0}: the same
     * dry run, word for word, and the same IRQ affinities written.
     */
    @Test
    @NeedsRoot
    @NeedsLiveNic
    void applyAllIsApplyOfTheOneNicOnThisHost() throws Exception {
        assertEquals(
                List.of(new InterfaceName("eth0")),
                NicDiscovery.withQueueIrqs(KernelPaths.LIVE).stream()
                        .map(Nic::name)
                        .toList(),
                "this test is for the project's machines, whose one NIC with queue IRQs is eth0");
        String cpu = Integer.toString(Runtime.getRuntime().availableProcessors() - 1);
        Path state = run.resolve("eth0.json");
        Map<String, Map<Integer, String>> applied = new TreeMap<>();
        try {
            List<String> dryRuns = new ArrayList<>();
            for (List<String> chosen : List.of(List.of("--all"), List.of("--nic", "eth0"))) {
                List<String> apply = new ArrayList<>(List.of("apply"));
                apply.addAll(chosen);
                apply.addAll(List.of("--cpus", cpu, "--state", state.toString()));
                CliRun dry = CliRun.of(
                        Stream.concat(apply.stream(), Stream.of("--dry-run")).toArray(String[]::new));
                assertEquals(0, dry.exitCode(), dry.err());
                dryRuns.add(dry.out());
                CliRun real = CliRun.of(apply.toArray(String[]::new));
                assertEquals(0, real.exitCode(), real.err() + real.out());
                applied.put(String.join(" ", chosen), everyAffinity());
                CliRun restore = CliRun.of("restore", "--nic", "eth0", "--state", state.toString());
                assertEquals(0, restore.exitCode(), restore.err() + restore.out());
                assertEquals(original, everyAffinity(), "every IRQ is back after " + chosen);
            }
            assertEquals(dryRuns.get(0), dryRuns.get(1));
            assertEquals(applied.get("--nic eth0"), applied.get("--all"));
            assertTrue(eth0QueueIrqs().stream()
                    .allMatch(irq -> cpu.equals(applied.get("--all").get(irq))));
        } finally {
            putBackEveryIrq();
        }
    }

    /**
     * irqs and plan show eth0's NAPI instances as discovery finds them through this JVM's backend, with the
     * source; netlink answers on Linux 6.8 and newer.
     */
    @Test
    @NeedsLiveNic
    void irqsAndPlanShowEachQueuesNapiAndTheSource() throws Exception {
        NapiMap expected = NapiDiscovery.discover(
                new InterfaceName("eth0"), KernelPaths.LIVE, Backends.live().backend());
        for (String command : List.of("irqs", "plan")) {
            CliRun json = CliRun.of(command, "--nic", "eth0", "--json");
            assertEquals(0, json.exitCode(), json.err());
            JsonNode napi = JSON.readTree(json.out()).get("napi");
            assertEquals(
                    expected.source().name().toLowerCase(java.util.Locale.ROOT),
                    napi.get("source").asText());
            assertEquals(expected.detail(), napi.get("detail").asText());
            List<String> shown = new ArrayList<>();
            napi.get("instances")
                    .forEach(instance -> shown.add(instance.get("id").asInt() + "@"
                            + instance.get("queue").asText()));
            List<String> found = expected.instances().stream()
                    .sorted(java.util.Comparator.comparingInt(
                            (NapiInstance instance) -> instance.queue().orElse(Integer.MAX_VALUE)))
                    .map(instance -> instance.id() + "@"
                            + (instance.queue().isPresent()
                                    ? Integer.toString(instance.queue().getAsInt())
                                    : "null"))
                    .toList();
            assertEquals(found, shown, command);

            CliRun text = CliRun.of(command, "--nic", "eth0");
            assertEquals(0, text.exitCode(), text.err());
            assertTrue(text.out().contains("NAPI source: " + napi.get("source").asText() + " ("), text.out());
            for (NapiInstance instance : expected.instances()) {
                assertTrue(
                        text.out()
                                .matches("(?s).*\\n\\s*"
                                        + (instance.queue().isPresent()
                                                ? instance.queue().getAsInt()
                                                : "-") + "\\s+" + instance.id() + "\\s.*"),
                        text.out());
            }
        }
    }

    @Test
    @NeedsRoot
    @NeedsLiveNic
    void anUnprivilegedUserIsRefusedBeforeAnythingChanges() throws Exception {
        eth0QueueIrqs();
        String readable = ForkedCli.classPathForEveryone(run);
        Path state = run.resolve("unprivileged.json");
        try {
            CliRun refused = ForkedCli.run(
                    List.of("runuser", "-u", "nobody", "--"),
                    readable,
                    Map.of(),
                    "apply",
                    "--nic",
                    "eth0",
                    "--cpus",
                    "0",
                    "--state",
                    state.toString());
            assertEquals(Failures.REFUSED, refused.exitCode(), refused.err() + refused.out());
            assertTrue(
                    refused.err().contains("EACCES (Permission denied)")
                            && refused.err().contains("needs root"),
                    refused.err());
            assertEquals(original, everyAffinity(), "nothing changed");
            assertFalse(Files.exists(state));
        } finally {
            putBackEveryIrq();
        }
    }

    @Test
    @NeedsLiveNic
    void withNoArgumentsItShowsTheDefaultRoutesPlanAsADryRun() {
        CliRun view = CliRun.of();
        assertEquals(0, view.exitCode(), view.err());
        assertTrue(
                view.out()
                        .contains("=== DRY RUN: the plan for eth0 (the default route's interface); nothing is changed"),
                view.out());
        assertTrue(view.out().contains("virtio") && view.out().contains("input.0"), view.out());
        assertTrue(view.out().contains("To apply it (as root): numaspread apply --nic eth0"), view.out());
        assertEquals(original, everyAffinity());
    }
}
