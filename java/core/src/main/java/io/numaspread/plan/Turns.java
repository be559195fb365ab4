// SPDX-License-Identifier: Apache-2.0
package io.numaspread.plan;

import io.numaspread.CpuSet;
import java.util.Arrays;
import java.util.List;

/**
 * The shared state of several origins' turns ({@link Planner#shared}): every CPU's queue count, each origin's pass,
 * and the CPUs where the plan's queues sit now. Each turn takes, among the origin's eligible CPUs with the fewest
 * queues, the one its policy ranks first, and among those ranked alike the one that keeps a queue where it is.
 */
final class Turns {
    /** How well a free CPU keeps a queue where it is, for {@link #take}: ranked in this order. */
    private static final int NO_SEAT = 0;

    private static final int UNCLAIMED = 1;
    private static final int OWN_SEAT = 2;

    private final Layout layout;
    final Layout.View[] views;
    private final Policy policy;
    private final int[] load;
    private final int[] pass;
    private final int[][] freeInLevel;
    private final int[] free;
    private final int[][] own;
    private final int[][] ownPass;
    /** The CPUs (dense) where a queue of the plan sits now. */
    private final boolean[] claimed;

    Turns(Layout layout, List<Integer> origins, Policy policy, boolean[] claimed) {
        this.layout = layout;
        this.policy = policy;
        this.claimed = claimed;
        int n = origins.size();
        views = new Layout.View[n];
        load = new int[layout.size];
        pass = new int[n];
        freeInLevel = new int[n][];
        free = new int[n];
        own = new int[n][layout.groups];
        ownPass = new int[n][layout.groups];
        for (int o = 0; o < n; o++) {
            views[o] = layout.view(origins.get(o));
            freeInLevel[o] = new int[views[o].levels()];
            recount(o);
        }
    }

    int pass(int o) {
        if (free[o] == 0) {
            pass[o]++;
            recount(o);
        }
        return pass[o];
    }

    private boolean eligible(int o, int g) {
        return policy != Policy.LOCAL || views[o].groupLevel()[g] == 0;
    }

    private void recount(int o) {
        Arrays.fill(freeInLevel[o], 0);
        free[o] = 0;
        for (int cpu = 0; cpu < layout.size; cpu++) {
            int g = layout.group[cpu];
            if (eligible(o, g) && load[cpu] == pass[o]) {
                freeInLevel[o][views[o].groupLevel()[g]]++;
                free[o]++;
            }
        }
    }

    /**
     * Whether a group ranks before the best so far. Both have a CPU free in this pass and, unless the policy
     * is {@link Policy#CORES}, lie in the origin's nearest level that has one. {@code filled} counts the
     * group's CPUs that already have this pass's queue (any origin's), {@code mine} this origin's queues on
     * it in this pass.
     */
    private boolean better(int filled, int level, int mine, int bestFilled, int bestLevel, int bestMine) {
        if (policy == Policy.CORES && filled != bestFilled) {
            return filled < bestFilled;
        }
        if (level != bestLevel) {
            return level < bestLevel;
        }
        if (filled != bestFilled) {
            return filled < bestFilled;
        }
        return mine < bestMine;
    }

    /**
     * Origin {@code o}'s turn: picks a CPU, counts the queue on it, and returns it. Among the CPUs its
     * priorities rank alike, one of {@code sits} (where this queue sits now) wins, then one where no queue
     * sits ({@link #claimed}), so that a queue without a seat leaves the others' seats to them.
     */
    int take(int o, CpuSet sits) {
        int p = pass(o);
        Layout.View view = views[o];
        int from = 0;
        int to = layout.groups;
        if (policy != Policy.CORES) {
            int level = 0;
            while (freeInLevel[o][level] == 0) {
                level++;
            }
            from = view.levelStart()[level];
            to = view.levelStart()[level + 1];
        }
        int best = -1;
        int bestFilled = 0;
        int bestLevel = 0;
        int bestMine = 0;
        int bestCpu = -1;
        int bestKeep = NO_SEAT;
        for (int k = from; k < to; k++) {
            int g = view.byLevel()[k];
            if (!eligible(o, g)) {
                continue;
            }
            int filled = 0;
            int cpu = -1;
            int keep = NO_SEAT;
            for (int m = layout.memberStart[g]; m < layout.memberStart[g + 1]; m++) {
                int member = layout.member[m];
                int l = load[member];
                filled += l > p ? 1 : 0;
                if (l == p) {
                    int memberKeep =
                            sits.contains(layout.cpu[member]) ? OWN_SEAT : claimed[member] ? NO_SEAT : UNCLAIMED;
                    if (cpu < 0 || memberKeep > keep) {
                        cpu = member;
                        keep = memberKeep;
                    }
                }
            }
            if (cpu < 0) {
                continue;
            }
            int level = view.groupLevel()[g];
            int mine = ownPass[o][g] == p ? own[o][g] : 0;
            // Among groups the priorities rank alike, the one with the queue's own seat, then one with a CPU
            // no queue sits on, then the earlier group: k ascends by level, then by lowest CPU.
            if (best < 0
                    || better(filled, level, mine, bestFilled, bestLevel, bestMine)
                    || keep > bestKeep && !better(bestFilled, bestLevel, bestMine, filled, level, mine)) {
                best = g;
                bestFilled = filled;
                bestLevel = level;
                bestMine = mine;
                bestCpu = cpu;
                bestKeep = keep;
            }
        }
        int cpu = bestCpu;
        own[o][best] = bestMine + 1;
        ownPass[o][best] = p;
        int before = load[cpu]++;
        for (int q = 0; q < views.length; q++) {
            if (eligible(q, best) && before == pass[q]) {
                freeInLevel[q][views[q].groupLevel()[best]]--;
                free[q]--;
            }
        }
        return cpu;
    }
}
