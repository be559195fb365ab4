// SPDX-License-Identifier: Apache-2.0
package io.numaspread.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.ToDoubleFunction;
import org.openjdk.jmh.results.BenchmarkResult;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.OptionsBuilder;

/**
 * Runs the benchmarks and prints the tables of docs/benchmarks.md (Markdown): {@code pin}, {@code topology},
 * {@code echo} or {@code all}. Each figure is the median over the JMH forks (or C rounds) with the min–max beside it.
 *
 * <p>usage: {@code java -cp numaspread-bench.jar io.numaspread.bench.BenchReport pin|topology|echo|all
 * [path/to/rawaffinity]}
 */
public final class BenchReport {
    private static final int C_ROUNDS = 5;
    private static final int C_ITERATIONS = 20_000;
    private static final int LOCK_WAIT_MINUTES = 30;

    private BenchReport() {}

    public static void main(String[] args) throws Exception {
        String which = args.length > 0 ? args[0] : "all";
        Path rawaffinity = Path.of(args.length > 1 ? args[1] : "java/bench/target/native/rawaffinity");
        switch (which) {
            case "pin" -> System.out.println(pinCost(rawaffinity));
            case "topology" -> System.out.println(topology());
            case "echo" -> System.out.println(echo());
            case "all" -> {
                System.out.println(pinCost(rawaffinity));
                System.out.println(topology());
                System.out.println(echo());
            }
            default -> {
                System.err.println("usage: BenchReport pin|topology|echo|all [path/to/rawaffinity]");
                System.exit(2);
            }
        }
    }

    static String pinCost(Path rawaffinity) throws Exception {
        int[] cpus = Pinners.twoCpus();
        List<double[]> floor = new ArrayList<>(rawFloor(rawaffinity, cpus));
        Collection<RunResult> results = run(PinCostBenchmark.class);
        floor.addAll(rawFloor(rawaffinity, cpus));
        Spread setFloor = Spread.of(floor.stream().mapToDouble(r -> r[0]).toArray());
        Spread getFloor = Spread.of(floor.stream().mapToDouble(r -> r[1]).toArray());

        StringBuilder table = new StringBuilder();
        table.append("| via | sched_setaffinity ns/op (moves CPU " + cpus[0] + "↔" + cpus[1] + ") | × C floor "
                + "| sched_getaffinity ns/op | × C floor |\n|---|---|---|---|---|\n");
        table.append(String.format(
                Locale.ROOT,
                "| C, raw syscall (%d rounds) | %s | 1.00 | %s | 1.00 |%n",
                floor.size(),
                setFloor,
                getFloor));
        for (String via : List.of("ffm", "jna", "openhft")) {
            Spread set = perFork(
                    results, "setAffinity", via, r -> r.getPrimaryResult().getScore());
            Spread get = perFork(
                    results, "getAffinity", via, r -> r.getPrimaryResult().getScore());
            table.append(String.format(
                    Locale.ROOT,
                    "| %s | %s | %s | %s | %s |%n",
                    label(via),
                    set,
                    set.ratioTo(setFloor),
                    get,
                    get.ratioTo(getFloor)));
        }
        return table.toString();
    }

    static String topology() throws RunnerException, InterruptedException {
        Collection<RunResult> results = run(TopologyBenchmark.class);
        Map<String, String> learns = new LinkedHashMap<>();
        String ours = "NUMA nodes, their CPUs and distances; online, allowed, isolated and nohz_full CPUs; "
                + "SMT sibling groups; packages";
        learns.put("ffm", ours + " (node CPUs and distances from libnuma)");
        learns.put("jna", ours + " (node CPUs and distances from libnuma)");
        learns.put("sysfs", ours + " (all from /sys and /proc)");
        learns.put(
                "openhft",
                "sockets, cores and threads per CPU from /proc/cpuinfo; no NUMA nodes, no "
                        + "distances, no allowed/isolated CPUs");
        StringBuilder table = new StringBuilder("| discovery | µs/op | what it learns |\n|---|---|---|\n");
        for (Map.Entry<String, String> entry : learns.entrySet()) {
            Spread time = perFork(
                    results,
                    "discover",
                    entry.getKey(),
                    r -> r.getPrimaryResult().getScore());
            String name = entry.getKey().equals("openhft")
                    ? "OpenHFT `VanillaCpuLayout.fromCpuInfo()`"
                    : "numaspread `TopologyDiscovery`, " + entry.getKey();
            table.append("| ")
                    .append(name)
                    .append(" | ")
                    .append(time)
                    .append(" | ")
                    .append(entry.getValue())
                    .append(" |\n");
        }
        return table.toString();
    }

    static String echo() throws RunnerException, InterruptedException {
        Collection<RunResult> results = run(EchoBenchmark.class);
        StringBuilder table =
                new StringBuilder("| server loops | p50 µs | p99 µs | round trips sampled |\n|---|---|---|---|\n");
        for (String loops : List.of("default", "pinned", "steered")) {
            Spread p50 = perFork(
                    results,
                    "roundTrip",
                    loops,
                    r -> r.getPrimaryResult().getStatistics().getPercentile(50));
            Spread p99 = perFork(
                    results,
                    "roundTrip",
                    loops,
                    r -> r.getPrimaryResult().getStatistics().getPercentile(99));
            long samples = forks(results, "roundTrip", loops).stream()
                    .mapToLong(r -> r.getPrimaryResult().getStatistics().getN())
                    .sum();
            table.append(String.format(Locale.ROOT, "| %s | %s | %s | %d |%n", loops, p50, p99, samples));
        }
        return table.toString();
    }

    /**
     * Runs one benchmark class. While another JMH run holds its machine-wide lock, this one waits for it
     * rather than measuring alongside it.
     */
    private static Collection<RunResult> run(Class<?> benchmark) throws RunnerException, InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(LOCK_WAIT_MINUTES);
        while (true) {
            try {
                return new Runner(new OptionsBuilder()
                                .include(benchmark.getName() + "\\.")
                                .shouldFailOnError(false)
                                .build())
                        .run();
            } catch (RunnerException e) {
                if (!String.valueOf(e.getMessage()).contains("JMH lock") || System.nanoTime() > deadline) {
                    throw e;
                }
                System.err.println("another JMH run holds the lock; waiting for it");
                TimeUnit.SECONDS.sleep(15);
            }
        }
    }

    /** One value per fork of the benchmark method run with {@code param}. */
    private static Spread perFork(
            Collection<RunResult> results, String method, String param, ToDoubleFunction<BenchmarkResult> value) {
        return Spread.of(
                forks(results, method, param).stream().mapToDouble(value).toArray());
    }

    private static List<BenchmarkResult> forks(Collection<RunResult> results, String method, String param) {
        List<BenchmarkResult> forks = new ArrayList<>();
        for (RunResult result : results) {
            if (result.getParams().getBenchmark().endsWith("." + method)
                    && result.getParams().getParamsKeys().stream()
                            .anyMatch(key -> param.equals(result.getParams().getParam(key)))) {
                forks.addAll(result.getBenchmarkResults());
            }
        }
        return forks;
    }

    /** Rounds of the C program: {setaffinity ns, getaffinity ns} each. */
    private static List<double[]> rawFloor(Path rawaffinity, int[] cpus) throws IOException, InterruptedException {
        Process process = new ProcessBuilder(
                        rawaffinity.toString(),
                        Integer.toString(cpus[0]),
                        Integer.toString(cpus[1]),
                        Integer.toString(C_ROUNDS),
                        Integer.toString(C_ITERATIONS))
                .redirectErrorStream(true)
                .start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!process.waitFor(5, TimeUnit.MINUTES) || process.exitValue() != 0) {
            throw new IOException(rawaffinity + " failed: " + output.strip());
        }
        List<double[]> rounds = new ArrayList<>();
        for (String line : output.strip().split("\n")) {
            String[] words = line.split(" ");
            rounds.add(new double[] {Double.parseDouble(words[3]), Double.parseDouble(words[5])});
        }
        return rounds;
    }

    private static String label(String via) {
        return switch (via) {
            case "ffm" -> "numaspread FFM backend";
            case "jna" -> "numaspread JNA backend";
            case "openhft" -> "OpenHFT `Affinity.setAffinity`/`getAffinity` 3.27ea1";
            default -> via;
        };
    }

    /** The median of some measurements and their range; empty when the benchmark did not run. */
    record Spread(double median, double min, double max, int count) {
        static Spread of(double[] values) {
            double[] sorted = values.clone();
            java.util.Arrays.sort(sorted);
            if (sorted.length == 0) {
                return new Spread(Double.NaN, Double.NaN, Double.NaN, 0);
            }
            int mid = sorted.length / 2;
            double median = sorted.length % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
            return new Spread(median, sorted[0], sorted[sorted.length - 1], sorted.length);
        }

        String ratioTo(Spread floor) {
            return count == 0 ? "–" : String.format(Locale.ROOT, "%.2f", median / floor.median);
        }

        @Override
        public String toString() {
            return count == 0
                    ? "did not run"
                    : String.format(Locale.ROOT, "%s (%s–%s)", number(median), number(min), number(max));
        }

        private static String number(double value) {
            return value >= 100 ? String.format(Locale.ROOT, "%.0f", value) : String.format(Locale.ROOT, "%.2f", value);
        }
    }
}
