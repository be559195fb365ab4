// SPDX-License-Identifier: Apache-2.0
package io.numaspread.plan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.numaspread.CpuSet;
import io.numaspread.topology.Topology;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

/**
 * Scores the kernel's placements and ours on the corpus: for every prefix k = 1..n (n candidate CPUs), how
 * many plans break each priority. Writes the tables to target/quality.md (docs/benchmarks.md shows them).
 */
class QualityReportTest {
    interface Placement {
        List<CpuSet> place(Topology topology, CpuSet candidates, int node, int len);
    }

    @Test
    void oursBreaksNoneAndTheKernelsPlacementsDo() throws IOException {
        Map<String, Placement> placements = new LinkedHashMap<>();
        placements.put("`cpumask_local_spread()` before 2020", KernelPlacements::localSpreadBefore2020);
        placements.put("`cpumask_local_spread()` by hops (2023)", KernelPlacements::localSpreadByHops);
        placements.put("mana `irq_setup()` as posted", KernelPlacements::irqSetupPosted);
        placements.put("mana `irq_setup()` as merged", KernelPlacements::irqSetupMerged);
        placements.put("numaspread, siblings", (t, c, node, len) -> ours(t, c, node, len, Mode.SIBLINGS));
        placements.put("numaspread, `--per-cpu`", (t, c, node, len) -> ours(t, c, node, len, Mode.CPU));
        List<Corpus> corpus = Corpus.generate();
        List<String> families = Corpus.families();
        StringBuilder table = new StringBuilder("| placement | plans | 1 one per CPU | 2 NUMA locality "
                + "| 3 sibling dislocality |\n|---|---:|---:|---:|---:|\n");
        StringBuilder byFamily = new StringBuilder(
                "| placement | " + String.join(" | ", families) + " |\n|---|" + "---:|".repeat(families.size()) + "\n");
        Map<String, int[]> totals = new LinkedHashMap<>();
        for (Map.Entry<String, Placement> placement : placements.entrySet()) {
            int[] broken = new int[4];
            int[] familyBroken = new int[families.size()];
            for (Corpus c : corpus) {
                int n = c.candidates().size();
                List<CpuSet> irqs = placement.getValue().place(c.topology(), c.candidates(), c.origin(), n);
                assertEquals(n, irqs.size(), placement.getKey() + " places every IRQ on " + c);
                for (int k = 1; k <= n; k++) {
                    broken[0]++;
                    List<Priorities.Queue> queues = new ArrayList<>();
                    OptionalInt origin = c.origin() < 0 ? OptionalInt.empty() : OptionalInt.of(c.origin());
                    irqs.subList(0, k).forEach(cpus -> queues.add(new Priorities.Queue(origin, cpus)));
                    List<PriorityCheck> checks = Priorities.check(c.topology(), c.candidates(), queues, Policy.KERNEL);
                    for (int p = 0; p < 3; p++) {
                        broken[1 + p] += checks.get(p).broken() ? 1 : 0;
                    }
                    if (checks.stream().anyMatch(PriorityCheck::broken)) {
                        familyBroken[families.indexOf(c.family())]++;
                    }
                }
            }
            totals.put(placement.getKey(), broken);
            table.append("| ").append(placement.getKey());
            for (int value : broken) {
                table.append(" | ").append(value);
            }
            table.append(" |\n");
            byFamily.append("| ").append(placement.getKey());
            for (int value : familyBroken) {
                byFamily.append(" | ").append(value);
            }
            byFamily.append(" |\n");
        }
        StringBuilder cases = new StringBuilder();
        for (String family : families) {
            List<Corpus> members =
                    corpus.stream().filter(c -> c.family().equals(family)).toList();
            cases.append(cases.length() == 0 ? "" : ", ")
                    .append(family)
                    .append(": ")
                    .append(members.size())
                    .append(" cases, ")
                    .append(members.stream()
                            .mapToInt(c -> c.candidates().size())
                            .sum())
                    .append(" plans");
        }
        String report = "Corpus: " + corpus.size() + " (machine, origin) cases; " + cases + ".\n\n"
                + "Plans that break each priority:\n\n" + table + "\nPlans that break any priority, by family:\n\n"
                + byFamily;
        Path file = Path.of("target", "quality.md");
        Files.createDirectories(file.getParent());
        Files.writeString(file, report);
        System.out.println(report);

        for (String ours : List.of("numaspread, siblings", "numaspread, `--per-cpu`")) {
            int[] broken = totals.get(ours);
            assertEquals(0, broken[1] + broken[2] + broken[3], ours);
        }
        assertTrue(totals.get("`cpumask_local_spread()` before 2020")[2] > 0, "pre-2020 ignores distances");
        assertTrue(totals.get("`cpumask_local_spread()` by hops (2023)")[3] > 0, "hops ignore siblings");
        assertTrue(totals.get("mana `irq_setup()` as merged")[1] > 0, "merged irq_setup doubles up");
        assertTrue(totals.get("mana `irq_setup()` as posted")[2] > 0, "posted irq_setup overfills a hop");
    }

    private static List<CpuSet> ours(Topology topology, CpuSet candidates, int node, int len, Mode mode) {
        PlanRequest request = PlanRequest.irqs(node < 0 ? List.of() : List.of(node), len)
                .withCpus(candidates)
                .withMode(mode);
        return PlannerPropertyTest.cpus(Planner.plan(topology, request));
    }
}
