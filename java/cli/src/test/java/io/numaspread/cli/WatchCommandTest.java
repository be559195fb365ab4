// SPDX-License-Identifier: Apache-2.0
package io.numaspread.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.numaspread.testing.NicFixture;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code watch} in a JVM of its own on fake kernel trees (the four-queue i40e NIC on the mana machine): what no
 * real kernel does on demand (another writer that keeps at it, a CPU list changing under a copied tree) and what
 * must hold whatever the kernel (one line per event, the metrics, SIGTERM and kill -9). A copied /sys has no
 * kernel to send events, so watch polls; the guests (scripts/vm-checks-watch) test the events.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class WatchCommandTest extends StandInCliTest {
    private static final Duration WAIT = Duration.ofSeconds(30);

    private Process watch;
    private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
    private final List<String> seen = new ArrayList<>();
    private final StringBuffer stderr = new StringBuffer();

    @AfterEach
    void stop() throws InterruptedException {
        if (watch != null && watch.isAlive()) {
            watch.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
    }

    private void start(String... more) throws IOException {
        startWith(Main.class, List.of(), "0.2", more);
    }

    /** watch with a drift check every {@code interval} seconds. */
    private void startEvery(String interval, String... more) throws IOException {
        startWith(Main.class, List.of(), interval, more);
    }

    /** watch run by {@code main}, whose own arguments ({@code before}) come first, checking every {@code interval} s. */
    private void startWith(Class<?> main, List<String> before, String interval, String... more) throws IOException {
        List<String> args = new ArrayList<>(before);
        args.addAll(List.of(args(
                "watch",
                "--nic",
                "eth0",
                "--siblings",
                "--state-dir",
                state.getParent().toString(),
                "--interval",
                interval)));
        args.addAll(List.of(more));
        watch = ForkedCli.start(
                main, List.of(), List.of(), ForkedCli.classPath(), Map.of(), args.toArray(String[]::new));
        watch.getOutputStream().close();
        Thread reader = new Thread(() -> {
            try (BufferedReader out =
                    new BufferedReader(new InputStreamReader(watch.getInputStream(), StandardCharsets.UTF_8))) {
                out.lines().forEach(lines::add);
            } catch (IOException | UncheckedIOException e) {
                // A watch killed by the test closes its output under the reader.
                lines.add("(stdout closed: " + e + ")");
            }
        });
        reader.setDaemon(true);
        reader.start();
        Thread errors = new Thread(() -> {
            try {
                stderr.append(new String(watch.getErrorStream().readAllBytes(), StandardCharsets.UTF_8));
            } catch (IOException e) {
                stderr.append("(stderr closed: ").append(e).append(')');
            }
        });
        errors.setDaemon(true);
        errors.start();
    }

    /** The next line that starts with {@code prefix}, skipping others (kept in {@link #seen}). */
    private String awaitLine(String prefix) throws InterruptedException {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (System.nanoTime() < deadline) {
            String line = lines.poll(100, TimeUnit.MILLISECONDS);
            if (line != null) {
                seen.add(line);
                if (line.startsWith(prefix)) {
                    return line;
                }
            }
        }
        throw new AssertionError(
                "no line starting \"" + prefix + "\" within " + WAIT + "; saw " + seen + "; stderr: " + stderr);
    }

    /** As another writer would, atomically as the kernel's files are (a fake file written in place can be read empty). */
    private void write(int irq, String cpus) throws IOException {
        Path file = proc.resolve("irq/" + irq + "/smp_affinity_list");
        Path temporary = Files.writeString(file.resolveSibling("smp_affinity_list.new"), cpus);
        Files.move(temporary, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }

    private List<String> queueAffinities() throws IOException {
        List<String> affinities = new ArrayList<>();
        for (int irq = 50; irq <= 53; irq++) {
            affinities.add(affinity(irq));
        }
        return affinities;
    }

    @Test
    void appliesThenPutsADriftBackAndBacksOffFromAWriterThatKeepsAtIt() throws Exception {
        start("--metrics-port", "0", "--restore-on-exit");
        // 4 queue IRQs and 4 xps_cpus: watch aligns XPS by default, as apply does.
        assertEquals("applied eth0: 8 changed; state file " + state, awaitLine("applied"));
        String watching = awaitLine("watching");
        assertTrue(
                watching.startsWith("watching eth0: no events (the sysfs backend cannot open netlink sockets):"
                        + " polling only, drift check every 0.2 s, metrics on http://127.0.0.1:"),
                watching);
        assertEquals(List.of("0-1", "2-3", "0-1", "2-3"), queueAffinities());
        assertEquals(
                "0c",
                Files.readString(sys.resolve("class/net/eth0/queues/tx-1/xps_cpus"))
                        .strip());

        write(51, "4-7");
        assertEquals(
                "drift eth0: IRQ 51 (i40e-eth0-TxRx-1) was 4-7, plan 2-3 (found by the drift check); put back",
                awaitLine("drift"));
        assertEquals("2-3", affinity(51));

        // A writer that rewrites every 20 ms, as seen in /proc by its command line.
        NicFixture.process(proc, 4242, "sh", "sh", "-c", "while :; do echo 4-7 > /proc/irq/51/smp_affinity_list; done");
        Thread writer = new Thread(() -> {
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(4);
            while (System.nanoTime() < end) {
                try {
                    write(51, "4-7");
                    Thread.sleep(20);
                } catch (IOException | InterruptedException e) {
                    return;
                }
            }
        });
        long fightStart = System.nanoTime();
        writer.start();
        String fight = awaitLine("FIGHT");
        assertTrue(
                fight.startsWith("FIGHT eth0: IRQ 51 (i40e-eth0-TxRx-1) was moved back to 4-7 3 times in 1.2 s"
                        + " by pid 4242 (sh -c while :; do echo 4-7 > /proc/irq/51/smp_affinity_list; done); round 1:"
                        + " leaving it alone for 0.6 s (at most 6 s between tries); to end it, stop that writer"),
                fight);
        writer.join();
        double writerStopped = System.currentTimeMillis() / 1000.0;
        long fightMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - fightStart);
        assertEquals("2-3", awaitPlan(51, "2-3"), "put back after the writer stopped");
        long drifts =
                seen.stream().filter(l -> l.startsWith("drift eth0: IRQ 51")).count() - 1;
        long checks = fightMillis / 200;
        assertTrue(drifts * 3 <= checks, "backed off: " + drifts + " puts back in " + checks + " checks: " + seen);
        assertTrue(seen.stream().filter(l -> l.startsWith("FIGHT")).count() >= 2, "rounds: " + seen);

        Matcher port = Pattern.compile("metrics on http://127\\.0\\.0\\.1:(\\d+)/metrics")
                .matcher(watching);
        assertTrue(port.find());
        HttpResponse<String> scrape = HttpClient.newHttpClient()
                .send(
                        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port.group(1) + "/metrics"))
                                .timeout(WAIT)
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
        assertEquals(200, scrape.statusCode());
        String metrics = scrape.body();
        assertTrue(
                metrics.contains("numaspread_interrupts_total{cpu=\"1\",irq=\"50\",nic=\"eth0\",queue=\"0\","
                        + "vector=\"i40e-eth0-TxRx-0\"} 5001.0"),
                metrics);
        assertTrue(metrics.contains("numaspread_plan_cpu{cpu=\"3\",nic=\"eth0\",queue=\"1\"} 1.0"), metrics);
        assertTrue(metrics.contains("numaspread_plan_queue_cpus{cpus=\"2-3\",nic=\"eth0\",queue=\"1\"} 2.0"), metrics);
        assertTrue(metrics.contains("numaspread_reapplies_total{nic=\"eth0\",reason=\"start\"} 1.0"), metrics);
        assertTrue(metrics.contains("numaspread_fights_total{irq=\"51\",nic=\"eth0\"}"), metrics);
        // The plan is back, so the last round's back-off is over.
        assertTrue(metrics.contains("numaspread_fight_backoff_seconds{irq=\"51\",nic=\"eth0\"} 0.0\n"), metrics);
        assertTrue(
                metrics.contains("numaspread_watch_info{backend=\"sysfs\",events=\"polling\",nics=\"eth0\"} 1.0"),
                metrics);
        assertDashboardQueriesNameExportedMetrics(metrics);
        Matcher lastCheck = Pattern.compile("numaspread_last_check_timestamp_seconds\\{nic=\"eth0\"} (\\S+)")
                .matcher(metrics);
        assertTrue(lastCheck.find(), metrics);
        assertTrue(
                Double.parseDouble(lastCheck.group(1)) >= writerStopped - 1,
                "the last check (" + lastCheck.group(1)
                        + ") is the one that put the plan back after the writer stopped (" + writerStopped + ")");

        watch.toHandle().destroy(); // SIGTERM; Process.destroy() would also close the streams we read
        assertTrue(watch.waitFor(30, TimeUnit.SECONDS));
        assertEquals(143, watch.exitValue());
        assertTrue(awaitLine("restored").startsWith("restored eth0: 8 of 8 values put back from "), seen.toString());
        assertEquals("stopped", awaitLine("stopped"));
        Map<Path, String> after = NicFixture.snapshot(proc, sys);
        after.keySet().removeIf(path -> path.startsWith(proc.resolve("4242")));
        assertEquals(before, after, "every file as it was");
        assertFalse(Files.exists(state), "the state file is gone");
    }

    @Test
    void aChangeOfTheOnlineCpusPlansAgainInOneLine() throws Exception {
        start();
        awaitLine("watching");
        NicFixture.file(sys.resolve("devices/system/cpu/online"), "0-2,4-7");
        NicFixture.file(sys.resolve("devices/system/cpu/cpu3/online"), "0");
        String changed = awaitLine("changed");
        assertTrue(changed.startsWith("changed eth0: CPUs online 0-7 -> 0-2,4-7; planned again: "), changed);
        assertFalse(
                queueAffinities().stream().anyMatch(cpus -> cpus.contains("3")),
                queueAffinities().toString());
        NicFixture.file(sys.resolve("devices/system/cpu/online"), "0-7");
        NicFixture.file(sys.resolve("devices/system/cpu/cpu3/online"), "1");
        assertTrue(awaitLine("changed").startsWith("changed eth0: CPUs online 0-2,4-7 -> 0-7; planned again: "));
        awaitPlan(53, "2-3");
        assertEquals(List.of("0-1", "2-3", "0-1", "2-3"), queueAffinities());
        Thread.sleep(1000);
        lines.drainTo(seen);
        assertEquals(
                2,
                seen.stream()
                        .filter(l -> l.matches("^(changed|drift|reset|FIGHT|gone|FAILED) .*"))
                        .count(),
                "one line per change: " + seen);
    }

    @Test
    void aCpuWhoseTopologyVanishesBeforeOnlineSaysSoIsNoGoneNic() throws Exception {
        start();
        awaitLine("watching");
        // A CPU going offline: its topology/ goes first, online follows a moment later (here, much later).
        Path topology = sys.resolve("devices/system/cpu/cpu3/topology");
        Files.move(topology, topology.resolveSibling("topology.away"));
        String waiting = awaitLine("waiting");
        assertTrue(waiting.startsWith("waiting eth0: the topology could not be read ("), waiting);
        assertTrue(waiting.contains("cpu3"), waiting);
        NicFixture.file(sys.resolve("devices/system/cpu/online"), "0-2,4-7");
        NicFixture.file(sys.resolve("devices/system/cpu/cpu3/online"), "0");
        String changed = awaitLine("changed");
        assertTrue(changed.startsWith("changed eth0: CPUs online 0-7 -> 0-2,4-7; planned again: "), changed);
        lines.drainTo(seen);
        assertEquals(
                List.of(),
                seen.stream()
                        .filter(l -> l.startsWith("gone") || l.startsWith("FAILED"))
                        .toList());
        assertEquals(1, seen.stream().filter(l -> l.startsWith("waiting")).count(), "said once: " + seen);
    }

    /**
     * A running watch holds its NIC: a second watch of it, an apply and a restore, each in a process of its own,
     * are refused with exit 3 in one line naming the watch's PID, and change nothing; watch's own put-backs go on
     * meanwhile, and once it stopped an apply goes through. Before, the second watch ran and fought the first,
     * and the apply was undone at the next drift check.
     */
    @Test
    void aRunningWatchHoldsItsNicAgainstAnotherWatchApplyAndRestore() throws Exception {
        start();
        awaitLine("watching");
        Map<Path, String> applied = NicFixture.snapshot(proc, sys);
        String refusal = "numaspread: another numaspread apply, restore or watch of " + state + " is running (pid "
                + watch.pid() + " holds " + state.resolveSibling(".eth0.json.lock") + "); nothing was changed\n";
        List<String[]> others = List.of(
                args(
                        "watch",
                        "--nic",
                        "eth0",
                        "--per-cpu",
                        "--state-dir",
                        state.getParent().toString()),
                withState("apply", "--nic", "eth0", "--per-cpu"),
                withState("restore"));
        for (String[] other : others) {
            CliRun refused = runForked(other);
            assertEquals(Failures.REFUSED, refused.exitCode(), other[0] + ": " + refused.err());
            assertEquals(refusal, refused.err(), other[0]);
            assertEquals(applied, NicFixture.snapshot(proc, sys), other[0] + " changed nothing");
        }
        write(51, "4-7");
        assertTrue(awaitLine("drift").startsWith("drift eth0: IRQ 51 (i40e-eth0-TxRx-1) was 4-7, plan 2-3"));
        assertEquals("2-3", affinity(51));
        watch.toHandle().destroy();
        assertTrue(watch.waitFor(30, TimeUnit.SECONDS));
        CliRun apply = runForked(withState("apply", "--nic", "eth0", "--per-cpu"));
        assertEquals(0, apply.exitCode(), apply.err());
    }

    /** The CLI in a JVM of its own, given 30 s to end (a second watch that is not refused runs on: killed). */
    private static CliRun runForked(String... args) throws IOException, InterruptedException {
        Process process = ForkedCli.start(List.of(), ForkedCli.classPath(), Map.of(), args);
        process.getOutputStream().close();
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            throw new AssertionError(String.join(" ", args) + " ran on for 30 s: it was not refused");
        }
        return new CliRun(
                process.exitValue(),
                new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8),
                new String(process.getErrorStream().readAllBytes(), StandardCharsets.UTF_8));
    }

    /**
     * An event reader that dies (its socket fails under it) stops watch: one line naming the reader and why, the
     * restore --restore-on-exit asks for, and exit 5, which the unit restarts. Before, the reader said it stopped,
     * and watch went on without events.
     */
    @Test
    void aDeadEventReaderStopsWatchInOneLineWithExit5() throws Exception {
        startWith(FaultyWatchEvents.class, List.of("ebadf"), "0.2", "--restore-on-exit");
        awaitLine("applied");
        assertTrue(watch.waitFor(30, TimeUnit.SECONDS), "watch went on after its reader died: " + seen);
        assertEquals(WatchCommand.READER_DIED, watch.exitValue(), stderr.toString());
        assertTrue(awaitLine("restored").startsWith("restored eth0: 8 of 8 values put back from "), seen.toString());
        Thread.sleep(200); // stderr's reader
        assertEquals(
                "numaspread: watch: the rtnetlink event reader died: poll failed: Bad file descriptor (errno 9): the"
                        + " socket is gone; stopped (after --restore-on-exit) so that a restart opens new sockets\n",
                stderr.toString());
        assertEquals(before, NicFixture.snapshot(proc, sys));
    }

    /**
     * The audit's datagram (a message length near Integer.MAX_VALUE) is skipped in one line and watch goes on: it
     * killed the reader thread before, with nothing on stdout.
     */
    @Test
    void anOverflowingNetlinkLengthIsSkippedInOneLineAndWatchGoesOn() throws Exception {
        startWith(FaultyWatchEvents.class, List.of("overflow"), "0.2");
        assertEquals(
                "events: skipped a malformed rtnetlink message: rtnetlink: message at byte 16 claims 2147483639"
                        + " bytes; the datagram has 32 left",
                awaitLine("events:"));
        write(51, "4-7");
        awaitLine("drift");
        assertTrue(watch.isAlive());
        assertEquals("", stderr.toString());
    }

    @Test
    void aPodGivenCpusIsPlannedAroundAtOnceNotAtTheNextDriftCheck() throws Exception {
        Path kubelet = run.resolve("kubelet");
        Files.createDirectories(kubelet);
        Path checkpoint = kubelet.resolve("cpu_manager_state");
        writeCheckpoint(checkpoint, "");
        // The drift check comes after the test's timeout: only the checkpoint's event can make the change in time.
        startEvery("3600", "--kubelet-cpu-state", checkpoint.toString());
        assertTrue(awaitLine("watching").endsWith(", kubelet CPU state " + checkpoint + " (inotify on its directory)"));
        assertEquals(List.of("0-1", "2-3", "0-1", "2-3"), queueAffinities());
        writeCheckpoint(checkpoint, "0-1");
        String changed = awaitLine("changed");
        assertTrue(
                changed.startsWith("changed eth0: exclusive CPUs none -> 0-1 after kubelet checkpoint cpu_manager_state"
                        + " changed; planned again: "),
                changed);
        assertTrue(
                queueAffinities().stream().noneMatch(cpus -> cpus.contains("0") || cpus.contains("1")),
                queueAffinities().toString());
        writeCheckpoint(checkpoint, "");
        String free = awaitLine("changed");
        assertTrue(free.startsWith("changed eth0: exclusive CPUs 0-1 -> none after kubelet checkpoint"), free);
        assertEquals(List.of("0-1", "2-3", "0-1", "2-3"), queueAffinities());
    }

    /** The static CPU manager's checkpoint with one pod holding {@code cpus} (none when empty), renamed over the old. */
    private static void writeCheckpoint(Path file, String cpus) throws IOException {
        String entries = cpus.isEmpty() ? "{}" : "{\"6f1c2b0e-pod\": {\"app\": \"" + cpus + "\"}}";
        Path next = Files.writeString(
                file.resolveSibling(file.getFileName() + ".tmp"),
                "{\"policyName\": \"static\", \"defaultCpuSet\": \"0-7\", \"entries\": " + entries
                        + ", \"checksum\": 1}");
        Files.move(next, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }

    @Test
    void killMinusNineLeavesAStateFileThatRestoreUses() throws Exception {
        start();
        awaitLine("watching");
        watch.destroyForcibly();
        assertTrue(watch.waitFor(30, TimeUnit.SECONDS));
        assertTrue(Files.exists(state));
        CliRun restore = CliRun.of(withState("restore"));
        assertEquals(0, restore.exitCode(), restore.err());
        assertEquals(before, NicFixture.snapshot(proc, sys));
    }

    @Test
    void badInputIsOneLineAndChangesNothing() throws Exception {
        for (List<String> bad : List.of(
                List.of("--interval", "0"),
                List.of("--interval", "0.01"),
                List.of("--nic", "eth0"),
                List.of("--metrics-port", "70000"),
                List.of("--policy", "nearest"),
                List.of("--poll-sibling", "idle"),
                List.of("--poll-queues", "0"))) {
            List<String> command = new ArrayList<>(List.of(args(
                    "watch",
                    "--nic",
                    "eth0",
                    "--siblings",
                    "--state-dir",
                    state.getParent().toString())));
            command.addAll(bad);
            CliRun result = CliRun.of(command.toArray(String[]::new));
            assertEquals(Failures.BAD_INPUT, result.exitCode(), bad + ": " + result.err());
            assertEquals(1, result.err().lines().count(), result.err());
        }
        CliRun missing = CliRun.of(
                args("watch", "--nic", "eth9", "--state-dir", state.getParent().toString()));
        assertEquals("numaspread: no such interface eth9 (" + sys.resolve("class/net") + " has eth0)\n", missing.err());
        Path kubelet = run.resolve("cpu_manager_state");
        Files.writeString(kubelet, "{\"entries\":");
        CliRun badKubelet = CliRun.of(args(
                "watch",
                "--nic",
                "eth0",
                "--state-dir",
                state.getParent().toString(),
                "--kubelet-cpu-state",
                kubelet.toString()));
        assertEquals(Failures.BAD_INPUT, badKubelet.exitCode());
        assertTrue(
                badKubelet.err().startsWith("numaspread: " + kubelet + " is not the kubelet's CPU state (JSON): "),
                badKubelet.err());
        assertEquals(before, NicFixture.snapshot(proc, sys));

        // The stand-in tree's PIDs are no threads of this machine: busy polling is refused before the first apply.
        NicFixture.file(sys.resolve("class/net/eth0/threaded"), "0");
        Map<Path, String> withThreaded = NicFixture.snapshot(proc, sys);
        CliRun poll = CliRun.of(
                args("watch", "--nic", "eth0", "--state-dir", state.getParent().toString(), "--poll-queues", "1"));
        assertEquals(Failures.BAD_INPUT, poll.exitCode(), poll.err());
        assertTrue(poll.err().contains("--poll-queues work on the live kernel's NAPI threads"), poll.err());
        assertEquals(withThreaded, NicFixture.snapshot(proc, sys));
        assertFalse(Files.exists(state));
    }

    /**
     * deploy/grafana/numaspread-watch.json parses, has its panels, and every metric its queries name is in this
     * scrape of a running watch; the Netty steering metrics are checked against their exporter in the netty
     * module's ConnectionSteeringTest.
     */
    private static void assertDashboardQueriesNameExportedMetrics(String metrics) throws IOException {
        JsonNode dashboard = new ObjectMapper()
                .readTree(
                        Repository.path("deploy/grafana/numaspread-watch.json").toFile());
        List<String> types = new ArrayList<>();
        List<String> queries = new ArrayList<>();
        for (JsonNode panel : dashboard.path("panels")) {
            types.add(panel.path("type").asText());
            panel.path("targets")
                    .forEach(target -> queries.add(target.path("expr").asText()));
        }
        dashboard
                .at("/templating/list")
                .forEach(variable -> queries.add(variable.path("definition").asText()));
        assertTrue(types.contains("heatmap"), types.toString());
        Set<String> exported = new TreeSet<>();
        metrics.lines().filter(line -> !line.startsWith("#")).forEach(line -> exported.add(line.split("[{ ]", 2)[0]));
        Set<String> named = new TreeSet<>();
        for (String query : queries) {
            Matcher metric = Pattern.compile("numaspread_\\w+").matcher(query);
            while (metric.find()) {
                named.add(metric.group());
            }
        }
        named.removeIf(name -> name.startsWith("numaspread_netty_"));
        assertTrue(named.size() >= 8, named.toString());
        for (String name : named) {
            assertTrue(exported.contains(name), name + " is named by the dashboard but not exported: " + exported);
        }
    }

    private String awaitPlan(int irq, String cpus) throws Exception {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (!affinity(irq).equals(cpus) && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        lines.drainTo(seen);
        return affinity(irq);
    }
}
