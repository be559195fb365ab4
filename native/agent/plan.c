/* SPDX-License-Identifier: Apache-2.0 */
/*
 * premain's plan for node=N,count=K, made here so that the JVM loads no topology or planner class before main.
 * It reads the same sysfs files as io.numaspread.topology.TopologyDiscovery and lays out the same order as
 * io.numaspread.plan.Planner (one origin, the kernel policy, purpose threads), which stays the reference:
 * PlanDifferentialTest requires identical assignments over every fixture topology. Anything unusual (a file
 * missing or malformed, no candidate CPU, an unknown node) makes it plan nothing, and Java plans instead and
 * names the culprit as it always did.
 */
#include <jni.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nsa.h"

static int nsa_compare_ints(const void *a, const void *b) {
    int x = *(const int *) a, y = *(const int *) b;
    return x < y ? -1 : x > y;
}

/*
 * Planner.plan for one origin node, the kernel policy, purpose threads, over the candidates online ∩ allowed:
 * fills count masks of t->words words (out, zeroed) as Planner's assignments 0..count-1 would be, in sibling
 * mode (the CPU's group) or one_cpu mode. Returns 0, or -1 when Planner would refuse (no candidate, unknown
 * node) or memory ran out.
 */
static int nsa_plan(const struct nsa_topology *t, const unsigned long *allowed, int origin, size_t count,
        int one_cpu, unsigned long *out) {
    size_t origin_index = t->node_count;
    for (size_t n = 0; n < t->node_count; n++) {
        origin_index = t->node_ids[n] == origin ? n : origin_index;
    }
    if (origin_index == t->node_count) {
        return -1;
    }
    size_t size = 0;
    int max_node = -1;
    for (size_t n = 0; n < t->node_count; n++) {
        max_node = t->node_ids[n] > max_node ? t->node_ids[n] : max_node;
    }
    size_t slots = (size_t) max_node + 2;  /* slot 0 is "no node", node k is slot k + 1 */
    int *cpu = malloc(t->bits * sizeof(int));
    int *dense = malloc(t->bits * sizeof(int));
    int *group = malloc(t->bits * sizeof(int));
    int *group_size = calloc(t->bits, sizeof(int));
    int *member_start = calloc(t->bits + 1, sizeof(int));
    int *member = malloc(t->bits * sizeof(int));
    int *filled = calloc(t->bits, sizeof(int));
    int *slot_distance = malloc(slots * sizeof(int));
    int *present = calloc(slots, sizeof(int));
    int *distinct = malloc(slots * sizeof(int));
    int *slot_level = malloc(slots * sizeof(int));
    int *group_level = malloc(t->bits * sizeof(int));
    int *level_start = calloc(slots + 1, sizeof(int));
    int *by_level = malloc(t->bits * sizeof(int));
    int *next = malloc((slots + 1) * sizeof(int));
    int *active = malloc(t->bits * sizeof(int));
    int *order = malloc(t->bits * sizeof(int));
    int result = -1;
    if (cpu == NULL || dense == NULL || group == NULL || group_size == NULL || member_start == NULL || member == NULL
            || filled == NULL || slot_distance == NULL || present == NULL || distinct == NULL || slot_level == NULL
            || group_level == NULL || level_start == NULL || by_level == NULL || next == NULL || active == NULL
            || order == NULL) {
        goto done;
    }
    /* Layout: the candidates in ascending order, each sibling group led by its lowest candidate in its node. */
    for (size_t c = 0; c < t->bits; c++) {
        dense[c] = -1;
        if (nsa_bit(t->online, c) && nsa_bit(allowed, c)) {
            cpu[size] = (int) c;
            dense[c] = (int) size++;
        }
    }
    if (size == 0) {
        goto done;
    }
    int groups = 0;
    for (size_t i = 0; i < size; i++) {
        const unsigned long *siblings = t->siblings + (size_t) cpu[i] * t->words;
        int leader = (int) i;
        for (int s = 0; s < cpu[i] && leader == (int) i; s++) {
            if (nsa_bit(siblings, (size_t) s) && dense[s] >= 0 && t->cpu_node[s] == t->cpu_node[cpu[i]]) {
                leader = dense[s];
            }
        }
        group[i] = leader == (int) i ? groups++ : group[leader];
        group_size[group[i]]++;
    }
    for (int g = 0; g < groups; g++) {
        member_start[g + 1] = member_start[g] + group_size[g];
    }
    for (size_t i = 0; i < size; i++) {
        member[member_start[group[i]] + filled[group[i]]++] = (int) i;
    }
    /* The origin's view: nodes grouped into levels by distance, nearest first; unknown distances last. */
    for (size_t s = 0; s < slots; s++) {
        slot_distance[s] = INT32_MAX;
    }
    for (size_t n = 0; n < t->node_count; n++) {
        int distance = t->distances[origin_index * t->node_count + n];
        slot_distance[t->node_ids[n] + 1] = distance == 0 ? INT32_MAX : distance;
    }
    for (int g = 0; g < groups; g++) {
        present[t->cpu_node[cpu[member[member_start[g]]]] + 1] = 1;
    }
    int levels = 0;
    for (size_t s = 0; s < slots; s++) {
        if (present[s]) {
            distinct[levels++] = slot_distance[s];
        }
    }
    qsort(distinct, (size_t) levels, sizeof(int), nsa_compare_ints);
    int unique = 0;
    for (int k = 0; k < levels; k++) {
        if (unique == 0 || distinct[unique - 1] != distinct[k]) {
            distinct[unique++] = distinct[k];
        }
    }
    for (size_t s = 0; s < slots; s++) {
        slot_level[s] = -1;
        for (int l = 0; present[s] && l < unique; l++) {
            slot_level[s] = distinct[l] == slot_distance[s] ? l : slot_level[s];
        }
    }
    for (int g = 0; g < groups; g++) {
        group_level[g] = slot_level[t->cpu_node[cpu[member[member_start[g]]]] + 1];
        level_start[group_level[g] + 1]++;
    }
    for (int l = 0; l < unique; l++) {
        level_start[l + 1] += level_start[l];
    }
    memcpy(next, level_start, (size_t) unique * sizeof(int));
    for (int g = 0; g < groups; g++) {
        by_level[next[group_level[g]]++] = g;
    }
    /* One pass: level by level; in round r every group with more than r CPUs takes its r-th. */
    size_t out_count = 0;
    for (int l = 0; l < unique; l++) {
        int active_count = level_start[l + 1] - level_start[l];
        memcpy(active, by_level + level_start[l], (size_t) active_count * sizeof(int));
        for (int round = 0; active_count > 0; round++) {
            int kept = 0;
            for (int k = 0; k < active_count; k++) {
                int g = active[k];
                order[out_count++] = member[member_start[g] + round];
                if (group_size[g] > round + 1) {
                    active[kept++] = g;
                }
            }
            active_count = kept;
        }
    }
    for (size_t index = 0; index < count; index++) {
        int chosen = order[index % out_count];
        unsigned long *mask = out + index * t->words;
        if (one_cpu) {
            nsa_set_bit(mask, (size_t) cpu[chosen]);
        } else {
            int g = group[chosen];
            for (int m = member_start[g]; m < member_start[g + 1]; m++) {
                nsa_set_bit(mask, (size_t) cpu[member[m]]);
            }
        }
    }
    result = 0;
done:
    free(cpu);
    free(dense);
    free(group);
    free(group_size);
    free(member_start);
    free(member);
    free(filled);
    free(slot_distance);
    free(present);
    free(distinct);
    free(slot_level);
    free(group_level);
    free(level_start);
    free(by_level);
    free(next);
    free(active);
    free(order);
    return result;
}

int nsa_plan_threads(const char *root, const char *allowed_list, int origin, long count, int one_cpu,
        unsigned long **masks, size_t *words) {
    if (count < 1 || count > NSA_MAX_QUEUES) {
        return -1;
    }
    struct nsa_topology t;
    if (nsa_topology_read(root, &t) != 0) {
        return -1;
    }
    unsigned long *allowed = calloc(t.words, sizeof(unsigned long));
    /* More words than a Java array holds: Java's plan then fails as it always did. */
    unsigned long *out = (size_t) count * t.words <= INT32_MAX
            ? calloc((size_t) count * t.words, sizeof(unsigned long)) : NULL;
    int ok = allowed != NULL && out != NULL;
    if (ok && allowed_list != NULL) {
        ok = nsa_parse_cpulist(allowed_list, allowed, t.bits) == 0;
    } else if (ok && strcmp(root, "/sys") == 0) {
        /* The process's first thread, as TopologyDiscovery.processAllowed reads it. */
        ok = sched_getaffinity(getpid(), t.words * sizeof(unsigned long), (cpu_set_t *) allowed) == 0;
    } else if (ok) {
        memcpy(allowed, t.online, t.words * sizeof(unsigned long));
    }
    ok = ok && nsa_plan(&t, allowed, origin, (size_t) count, one_cpu, out) == 0;
    free(allowed);
    *words = t.words;
    nsa_topology_free(&t);
    if (!ok) {
        free(out);
        return -1;
    }
    *masks = out;
    return 0;
}

/*
 * NativeAgent.planThreads(String sysfsRoot, String allowed, int node, int count, boolean oneCpu): the masks of
 * the plan (count masks of (cpu/possible's last CPU + 64) / 64 words), or null when Java must plan instead.
 * allowed is a cpulist, or null for this process's affinity on the live tree and every online CPU elsewhere.
 */
jlongArray JNICALL nsa_jni_plan_threads(JNIEnv *env, jclass type, jstring sysfs_root, jstring allowed_text,
        jint origin, jint count, jboolean one_cpu) {
    (void) type;
    if (count < 1 || count > NSA_MAX_QUEUES) {
        return NULL;
    }
    char *root = nsa_utf(env, sysfs_root);
    if (root == NULL) {
        return NULL;
    }
    char *allowed_list = allowed_text == NULL ? NULL : nsa_utf(env, allowed_text);
    unsigned long *masks;
    size_t words;
    jlongArray result = NULL;
    if ((allowed_text == NULL || allowed_list != NULL)
            && nsa_plan_threads(root, allowed_list, origin, count, one_cpu, &masks, &words) == 0) {
        jsize length = (jsize) ((size_t) count * words);
        result = (*env)->NewLongArray(env, length);
        if (result != NULL) {
            (*env)->SetLongArrayRegion(env, result, 0, length, (const jlong *) masks);
        }
        free(masks);
    }
    free(root);
    free(allowed_list);
    return result;
}
