// SPDX-License-Identifier: Apache-2.0
package io.numaspread.plan;

import io.numaspread.CpuSet;
import io.numaspread.topology.CpuInfo;
import io.numaspread.topology.NumaNode;
import io.numaspread.topology.Topology;
import java.util.Arrays;
import java.util.List;
import java.util.OptionalInt;

/**
 * The candidate CPUs of one plan as flat arrays, built in one pass over the topology's CPUs: each CPU's node
 * and sibling group, and each group's members. CPUs are named by their dense index (their rank among the
 * candidates). A sibling group is the CPU's {@code thread_siblings_list} ∩ the candidates ∩ its node, and
 * groups are numbered by their lowest CPU. Cost: O(candidates) when siblings are whole; a sibling that is no
 * candidate costs a walk over its set.
 */
final class Layout {
    final Topology topology;
    final CpuSet candidates;
    final int size;
    final int[] cpu;
    final int[] node;
    final int[] group;
    final int groups;
    final int[] memberStart;
    final int[] member;
    private final CpuSet[] wholeGroup;
    private final CpuSet[] groupCpus;
    /** Each CPU id's dense index, -1 for a CPU that is no candidate (up to the highest candidate). */
    private final int[] denseOf;

    Layout(Topology topology, CpuSet candidates) {
        this.topology = topology;
        this.candidates = candidates;
        List<CpuInfo> infos = topology.cpus();
        int capacity = candidates.size();
        int top = candidates.last();
        int[] dense = new int[top + 1];
        Arrays.fill(dense, -1);
        denseOf = dense;
        // Every CPU is visited in ascending id order, so a group's lowest CPU is seen first.
        cpu = new int[capacity];
        node = new int[capacity];
        CpuSet[] siblings = new CpuSet[capacity];
        int count = 0;
        for (CpuInfo info : infos) {
            if (candidates.contains(info.id())) {
                cpu[count] = info.id();
                node[count] = info.node();
                siblings[count] = info.siblings();
                dense[info.id()] = count++;
            }
        }
        size = count;
        // The topology's own sibling set can stand for a group only if no sibling was left out of it.
        boolean everyOnlineCpuIsCandidate = size == infos.size();
        group = new int[size];
        int[] groupSize = new int[size];
        wholeGroup = new CpuSet[size];
        int made = 0;
        for (int i = 0; i < size; i++) {
            int leader = leader(i, siblings[i], dense, top);
            if (leader == i) {
                int g = made++;
                group[i] = g;
                groupSize[g] = 1;
                wholeGroup[g] = everyOnlineCpuIsCandidate && siblings[i].first() == cpu[i] ? siblings[i] : null;
            } else {
                int g = group[leader];
                group[i] = g;
                groupSize[g]++;
            }
            int first = siblings[i].first();
            if (first != cpu[leader]) {
                // A sibling outside this group: neither group is the whole sibling set.
                wholeGroup[group[i]] = null;
                int other = first <= top ? dense[first] : -1;
                if (other >= 0) {
                    wholeGroup[group[other]] = null;
                }
            }
        }
        groups = made;
        memberStart = new int[groups + 1];
        for (int g = 0; g < groups; g++) {
            memberStart[g + 1] = memberStart[g] + groupSize[g];
        }
        member = new int[size];
        int[] filled = new int[groups];
        for (int i = 0; i < size; i++) {
            int g = group[i];
            member[memberStart[g] + filled[g]++] = i;
        }
        groupCpus = new CpuSet[groups];
    }

    /**
     * The dense index of the lowest candidate sibling of CPU {@code i} in its node (which may be {@code i}).
     * Usually the sibling set's first CPU, found in O(1); only when that one is no candidate or in another
     * node does this walk the set.
     */
    private int leader(int i, CpuSet set, int[] dense, int top) {
        for (int s = set.first(); s >= 0 && s < cpu[i]; s = set.next(s + 1)) {
            int j = s <= top ? dense[s] : -1;
            if (j >= 0 && node[j] == node[i]) {
                return j;
            }
        }
        return i;
    }

    /** CPU {@code id}'s dense index; -1 when it is no candidate. */
    int dense(int id) {
        return id >= 0 && id < denseOf.length ? denseOf[id] : -1;
    }

    int groupSize(int g) {
        return memberStart[g + 1] - memberStart[g];
    }

    /** Group {@code g}'s CPUs as a set, shared with the topology where the group is a whole sibling set. */
    CpuSet groupCpus(int g) {
        CpuSet cpus = groupCpus[g];
        if (cpus == null) {
            cpus = wholeGroup[g];
            if (cpus == null) {
                CpuSet.Builder builder = CpuSet.builder();
                for (int m = memberStart[g]; m < memberStart[g + 1]; m++) {
                    builder.add(cpu[member[m]]);
                }
                cpus = builder.build();
            }
            groupCpus[g] = cpus;
        }
        return cpus;
    }

    /** The node of a CPU, -1 if none claims it. */
    int nodeOf(int denseCpu) {
        return node[denseCpu];
    }

    /**
     * The candidates as seen from one origin: every group's hop level, nearest first. Nodes at an equal
     * distance share a level, as {@code for_each_numa_hop_mask()} yields them; nodes at an unknown distance
     * and CPUs in no node come last. With no origin, everything is level 0.
     */
    View view(int origin) {
        List<NumaNode> nodes = topology.nodes();
        int maxNodeId = -1;
        for (NumaNode n : nodes) {
            maxNodeId = Math.max(maxNodeId, n.id());
        }
        // Index 0 stands for "no node"; node id k is at k + 1.
        int[] distanceBySlot = new int[maxNodeId + 2];
        Arrays.fill(distanceBySlot, Integer.MAX_VALUE);
        OptionalInt[] reported = new OptionalInt[maxNodeId + 2];
        Arrays.fill(reported, OptionalInt.empty());
        if (origin >= 0) {
            for (NumaNode n : nodes) {
                OptionalInt distance = topology.distance(origin, n.id());
                reported[n.id() + 1] = distance;
                distanceBySlot[n.id() + 1] = distance.orElse(Integer.MAX_VALUE);
            }
        }
        boolean[] present = new boolean[maxNodeId + 2];
        for (int g = 0; g < groups; g++) {
            present[node[member[memberStart[g]]] + 1] = true;
        }
        int[] distinct = new int[maxNodeId + 2];
        int levels = 0;
        for (int slot = 0; slot < present.length; slot++) {
            if (present[slot]) {
                distinct[levels++] = origin >= 0 ? distanceBySlot[slot] : 0;
            }
        }
        Arrays.sort(distinct, 0, levels);
        int unique = 0;
        for (int k = 0; k < levels; k++) {
            if (unique == 0 || distinct[unique - 1] != distinct[k]) {
                distinct[unique++] = distinct[k];
            }
        }
        int[] levelBySlot = new int[maxNodeId + 2];
        for (int slot = 0; slot < present.length; slot++) {
            int distance = origin >= 0 ? distanceBySlot[slot] : 0;
            levelBySlot[slot] = present[slot] ? Arrays.binarySearch(distinct, 0, unique, distance) : -1;
        }
        int[] groupLevel = new int[groups];
        int[] levelStart = new int[unique + 1];
        for (int g = 0; g < groups; g++) {
            groupLevel[g] = levelBySlot[node[member[memberStart[g]]] + 1];
            levelStart[groupLevel[g] + 1]++;
        }
        for (int l = 0; l < unique; l++) {
            levelStart[l + 1] += levelStart[l];
        }
        int[] byLevel = new int[groups];
        int[] next = Arrays.copyOf(levelStart, unique);
        for (int g = 0; g < groups; g++) {
            byLevel[next[groupLevel[g]]++] = g;
        }
        return new View(
                origin,
                origin >= 0 ? OptionalInt.of(origin) : OptionalInt.empty(),
                unique,
                groupLevel,
                levelStart,
                byLevel,
                reported);
    }

    /**
     * One origin's view.
     *
     * @param byLevel the groups ordered by level, then by lowest CPU; level l is
     *     {@code byLevel[levelStart[l] .. levelStart[l + 1])}
     */
    record View(
            int origin,
            OptionalInt originNode,
            int levels,
            int[] groupLevel,
            int[] levelStart,
            int[] byLevel,
            OptionalInt[] distanceBySlot) {
        OptionalInt distanceTo(int nodeId) {
            return distanceBySlot[nodeId + 1];
        }
    }
}
