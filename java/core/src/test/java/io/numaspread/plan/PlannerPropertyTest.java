// SPDX-License-Identifier: Apache-2.0
package io.numaspread.plan;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.numaspread.CpuSet;
import io.numaspread.plan.PriorityCheck.Status;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The consequences of the planner's semantics, over the generated corpus. */
class PlannerPropertyTest {
    private static final List<Corpus> CORPUS = Corpus.generate();

    @Test
    void theCorpusCoversEveryFamily() {
        for (String family : Corpus.families()) {
            assertTrue(CORPUS.stream().filter(c -> c.family().equals(family)).count() >= 40, family);
        }
    }

    @Test
    void everyPlanIsAPrefixOfTheNextLargerOne() {
        for (Corpus c : CORPUS) {
            for (Policy policy : Policy.values()) {
                for (boolean skipFirst : new boolean[] {false, true}) {
                    for (Mode mode : Mode.values()) {
                        PlanRequest request = c.request(1)
                                .withPolicy(policy)
                                .withSkipFirst(skipFirst)
                                .withMode(mode);
                        int most = 2 * c.candidates().size() + 1;
                        List<Assignment> longest = Planner.plan(c.topology(), request.withCount(most))
                                .assignments();
                        for (int k = 1; k < most; k++) {
                            assertEquals(
                                    longest.subList(0, k),
                                    Planner.plan(c.topology(), request.withCount(k))
                                            .assignments(),
                                    c + " " + policy + " " + mode + " skipFirst=" + skipFirst + " k=" + k);
                        }
                    }
                }
            }
        }
    }

    @Test
    void uniformSmtMachinesGetExactlyWhatTheKernelsIrqSetupGives() {
        int compared = 0;
        for (Corpus c : CORPUS) {
            if (!c.uniformSmt()) {
                continue;
            }
            int n = c.candidates().size();
            List<CpuSet> kernel = KernelPlacements.irqSetupMerged(c.topology(), c.candidates(), c.origin(), n);
            assertEquals(kernel, cpus(Planner.plan(c.topology(), c.request(n))), c.name());
            compared++;
        }
        assertTrue(compared > 50);
    }

    @Test
    void whereTheKernelDoublesUpOnAOneCpuGroupOursDoesNot() {
        int kernelDoubled = 0;
        for (Corpus c : CORPUS) {
            int n = c.candidates().size();
            List<CpuSet> kernel = KernelPlacements.irqSetupMerged(c.topology(), c.candidates(), c.origin(), n);
            if (doublesUpOnOneCpu(kernel)) {
                kernelDoubled++;
                assertFalse(doublesUpOnOneCpu(cpus(Planner.plan(c.topology(), c.request(n)))), c.name());
            }
        }
        assertTrue(kernelDoubled > 10, "the corpus has one-CPU groups that the kernel doubles up on");
    }

    private static boolean doublesUpOnOneCpu(List<CpuSet> irqs) {
        return irqs.stream().filter(set -> set.size() == 1).distinct().count()
                < irqs.stream().filter(set -> set.size() == 1).count();
    }

    @Test
    void oursBreaksNoPriorityAtAnyPrefixOrPass() {
        for (Corpus c : CORPUS) {
            for (Mode mode : Mode.values()) {
                for (int k = 1; k <= 3 * c.candidates().size(); k++) {
                    SpreadPlan plan = Planner.plan(c.topology(), c.request(k).withMode(mode));
                    for (PriorityCheck check : Priorities.check(c.topology(), plan)) {
                        assertFalse(check.broken(), c + " " + mode + " k=" + k + ": " + check);
                    }
                }
            }
        }
    }

    @Test
    void coresPolicyWaivesOnlyLocalityAndKeepsCoresApart() {
        for (Corpus c : CORPUS) {
            int n = c.candidates().size();
            int cores = (int) Planner.plan(c.topology(), c.request(n)).assignments().stream()
                    .map(Assignment::cpus)
                    .distinct()
                    .count();
            for (int k = 1; k <= n; k++) {
                SpreadPlan plan = Planner.plan(c.topology(), c.request(k).withPolicy(Policy.CORES));
                List<PriorityCheck> checks = Priorities.check(c.topology(), plan);
                assertEquals(Status.HELD, checks.get(0).status(), c + " k=" + k);
                assertTrue(checks.get(1).status() != Status.BROKEN, c + " k=" + k);
                if (k <= cores) {
                    assertEquals(
                            k,
                            plan.assignments().stream()
                                    .map(Assignment::cpus)
                                    .distinct()
                                    .count(),
                            c + " k=" + k + ": one queue per core while cores are free");
                }
            }
        }
    }

    @Test
    void localPolicyStaysOnTheNearestLevel() {
        for (Corpus c : CORPUS) {
            SpreadPlan plan = Planner.plan(
                    c.topology(), c.request(2 * c.candidates().size()).withPolicy(Policy.LOCAL));
            assertTrue(plan.assignments().stream().allMatch(a -> a.level() == 0), c.name());
            for (PriorityCheck check : Priorities.check(c.topology(), plan)) {
                assertFalse(check.broken(), c + ": " + check);
            }
        }
    }

    @Test
    void theSharedPathGivesOneOriginTheSameOrderAsTheFastPath() {
        for (Corpus c : CORPUS) {
            for (Policy policy : Policy.values()) {
                for (boolean skipFirst : new boolean[] {false, true}) {
                    PlanRequest request = c.request(2 * c.candidates().size() + 1)
                            .withPolicy(policy)
                            .withSkipFirst(skipFirst);
                    Layout layout = new Layout(c.topology(), c.candidates());
                    assertArrayEquals(
                            Planner.plan(c.topology(), request).assignments().toArray(),
                            Planner.shared(layout, request, request.origins(), new int[] {request.count()}, List.of())[
                                    0],
                            c + " " + policy + " skipFirst=" + skipFirst);
                }
            }
        }
    }

    @Test
    void severalOriginsShareTheCpusAndKeepTheirPriorities() {
        for (Corpus c : CORPUS) {
            if (c.origin() < 0 || c.topology().nodes().size() < 2) {
                continue;
            }
            int other =
                    c.topology().nodes().get(c.topology().nodes().size() - 1).id();
            for (List<Integer> origins : List.of(List.of(c.origin(), other), List.of(c.origin(), c.origin()))) {
                int n = c.candidates().size();
                for (int count = 1; count <= n; count++) {
                    SpreadPlan plan =
                            Planner.plan(c.topology(), c.request(count).withOrigins(origins));
                    assertEquals(2 * count, plan.size());
                    List<Integer> slots =
                            plan.assignments().stream().map(Assignment::cpu).toList();
                    if (2 * count <= n) {
                        assertEquals(
                                slots.size(),
                                slots.stream().distinct().count(),
                                c + " " + origins + " count=" + count + ": two queues share a CPU " + slots);
                    }
                    for (PriorityCheck check : Priorities.check(c.topology(), plan)) {
                        assertFalse(check.broken(), c + " " + origins + " count=" + count + ": " + check);
                        if (2 * count <= n && check.priority() != PriorityCheck.Priority.SIBLING_DISLOCALITY) {
                            assertEquals(Status.HELD, check.status(), c + " " + origins + " count=" + count);
                        }
                    }
                }
            }
        }
    }

    static List<CpuSet> cpus(SpreadPlan plan) {
        List<CpuSet> cpus = new ArrayList<>();
        plan.assignments().forEach(a -> cpus.add(a.cpus()));
        return cpus;
    }
}
