/* SPDX-License-Identifier: Apache-2.0 */
/* The sysfs files that io.numaspread.topology.TopologyDiscovery reads for a thread plan, read the same way. */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nsa.h"

/*
 * A whole kernel file from under root as KernelText.read reads it (nsa_kernel_text), opened as every kernel file
 * is (nsa_open_kernel_file); malloc'd. NULL when it cannot be read, holds more than NSA_MAX_FILE_BYTES (Java
 * refuses it too) or has a NUL inside.
 */
static char *nsa_read_text(const char *root, const char *relative) {
    char path[4096];
    int length = snprintf(path, sizeof path, "%s/%s", root, relative);
    if (length < 0 || (size_t) length >= sizeof path) {
        return NULL;
    }
    int fd = nsa_open_kernel_file(path, O_RDONLY);
    if (fd < 0) {
        return NULL;
    }
    size_t capacity = 4096, used = 0;
    char *text = malloc(capacity);
    while (text != NULL) {
        if (used + 1 == capacity) {
            char *bigger = capacity > NSA_MAX_FILE_BYTES ? NULL : realloc(text, capacity * 2);
            if (bigger == NULL) {
                free(text);
                text = NULL;
                break;
            }
            text = bigger;
            capacity *= 2;
        }
        ssize_t got = read(fd, text + used, capacity - 1 - used);
        if (got < 0) {
            free(text);
            text = NULL;
        } else if (got == 0) {
            break;
        } else {
            used += (size_t) got;
        }
    }
    if ((close(fd) != 0 || used > NSA_MAX_FILE_BYTES) && text != NULL) {
        free(text);
        return NULL;
    }
    char *meaning = text == NULL ? NULL : nsa_kernel_text(text, used);
    if (meaning == NULL) {
        free(text);
        return NULL;
    }
    memmove(text, meaning, strlen(meaning) + 1);
    return text;
}

static int nsa_exists(const char *root, const char *relative) {
    char path[4096];
    int length = snprintf(path, sizeof path, "%s/%s", root, relative);
    return length >= 0 && (size_t) length < sizeof path && access(path, F_OK) == 0;
}

/* A required cpulist file; 0, or -1 when it is missing or malformed. */
static int nsa_read_cpulist(const char *root, const char *relative, unsigned long *set, size_t bits) {
    char *text = nsa_read_text(root, relative);
    if (text == NULL) {
        return -1;
    }
    int result = nsa_parse_cpulist(text, set, bits);
    free(text);
    return result;
}

void nsa_topology_free(struct nsa_topology *t) {
    free(t->online);
    free(t->node_ids);
    free(t->node_cpus);
    free(t->distances);
    free(t->cpu_node);
    free(t->siblings);
}

/* One node's distance row, as many numbers as nodes; 0, or -1 when it is missing or malformed. */
static int nsa_read_distances(const char *root, int node, size_t node_count, int *row) {
    char relative[64];
    if (snprintf(relative, sizeof relative, "devices/system/node/node%d/distance", node) >= (int) sizeof relative) {
        return -1;
    }
    char *text = nsa_read_text(root, relative);
    if (text == NULL) {
        return -1;
    }
    const char *p = nsa_skip_blanks(text);
    size_t count = 0;
    int result = 0;
    while (*p != '\0' && result == 0) {
        long value;
        const char *end = nsa_number(p, INT32_MAX, &value);
        if (end == NULL || (*end != '\0' && *end != ' ' && *end != '\t' && *end != '\n') || count == node_count) {
            result = -1;
        } else {
            row[count++] = (int) value;
            p = nsa_skip_blanks(end);
        }
    }
    free(text);
    return result == 0 && count == node_count ? 0 : -1;
}

/* What TopologyDiscovery reads for a thread plan; 0, or -1 when anything is missing or malformed. */
int nsa_topology_read(const char *root, struct nsa_topology *t) {
    memset(t, 0, sizeof *t);
    unsigned long *nodes = calloc(NSA_NODE_BITS / (8 * sizeof(unsigned long)), sizeof(unsigned long));
    unsigned long *possible = calloc(NSA_NODE_BITS / (8 * sizeof(unsigned long)), sizeof(unsigned long));
    int ok = nodes != NULL && possible != NULL
            && nsa_read_cpulist(root, "devices/system/cpu/possible", possible, NSA_NODE_BITS) == 0;
    if (ok) {
        t->bits = 0;
        for (size_t cpu = 0; cpu < NSA_NODE_BITS; cpu++) {
            t->bits = nsa_bit(possible, cpu) ? cpu + 1 : t->bits;
        }
        ok = t->bits > 0;
    }
    if (ok) {
        t->words = (t->bits + 63) / 64;
        t->online = calloc(t->words, sizeof(unsigned long));
        ok = t->online != NULL && nsa_read_cpulist(root, "devices/system/cpu/online", t->online, t->bits) == 0;
    }
    /* Read for their checks alone, as discovery reads them (a thread plan does not use them). */
    unsigned long *scratch = ok ? calloc(t->words, sizeof(unsigned long)) : NULL;
    ok = ok && scratch != NULL;
    if (ok && nsa_exists(root, "devices/system/cpu/isolated")) {
        ok = nsa_read_cpulist(root, "devices/system/cpu/isolated", scratch, t->bits) == 0;
    }
    if (ok && nsa_exists(root, "devices/system/cpu/nohz_full")) {
        char *text = nsa_read_text(root, "devices/system/cpu/nohz_full");
        ok = text != NULL && (strcmp(text, "(null)") == 0 || nsa_parse_cpulist(text, scratch, t->bits) == 0);
        free(text);
    }
    int numa = ok && nsa_exists(root, "devices/system/node");
    if (ok && numa) {
        ok = nsa_read_cpulist(root, "devices/system/node/online", nodes, NSA_NODE_BITS) == 0;
    } else if (ok) {
        nsa_set_bit(nodes, 0);
    }
    for (size_t id = 0; ok && id < NSA_NODE_BITS; id++) {
        t->node_count += (size_t) nsa_bit(nodes, id);
    }
    ok = ok && t->node_count > 0;
    if (ok) {
        t->node_ids = calloc(t->node_count, sizeof(int));
        t->node_cpus = calloc(t->node_count * t->words, sizeof(unsigned long));
        t->distances = calloc(t->node_count * t->node_count, sizeof(int));
        t->cpu_node = calloc(t->bits, sizeof(int));
        t->siblings = calloc(t->bits * t->words, sizeof(unsigned long));
        ok = t->node_ids != NULL && t->node_cpus != NULL && t->distances != NULL && t->cpu_node != NULL
                && t->siblings != NULL;
    }
    for (size_t id = 0, n = 0; ok && id < NSA_NODE_BITS; id++) {
        if (nsa_bit(nodes, id)) {
            t->node_ids[n++] = (int) id;
        }
    }
    for (size_t n = 0; ok && n < t->node_count; n++) {
        unsigned long *cpus = t->node_cpus + n * t->words;
        char relative[64];
        if (numa) {
            ok = snprintf(relative, sizeof relative, "devices/system/node/node%d/cpulist", t->node_ids[n])
                            < (int) sizeof relative
                    && nsa_read_cpulist(root, relative, cpus, t->bits) == 0
                    && nsa_read_distances(root, t->node_ids[n], t->node_count, t->distances + n * t->node_count) == 0;
        } else {
            memcpy(cpus, t->online, t->words * sizeof(unsigned long));
            t->distances[0] = 10;
        }
        for (size_t w = 0; ok && w < t->words; w++) {
            cpus[w] &= t->online[w];
        }
    }
    for (size_t cpu = 0; ok && cpu < t->bits; cpu++) {
        t->cpu_node[cpu] = -1;
        for (size_t n = 0; n < t->node_count && t->cpu_node[cpu] < 0; n++) {
            if (nsa_bit(t->node_cpus + n * t->words, cpu)) {
                t->cpu_node[cpu] = t->node_ids[n];
            }
        }
        if (!nsa_bit(t->online, cpu)) {
            continue;
        }
        char relative[96];
        unsigned long *siblings = t->siblings + cpu * t->words;
        ok = snprintf(relative, sizeof relative, "devices/system/cpu/cpu%zu/topology/thread_siblings_list", cpu)
                        < (int) sizeof relative
                && nsa_read_cpulist(root, relative, siblings, t->bits) == 0;
        for (size_t w = 0; ok && w < t->words; w++) {
            siblings[w] &= t->online[w];
        }
        if (ok) {
            nsa_set_bit(siblings, cpu);
            ok = snprintf(relative, sizeof relative, "devices/system/cpu/cpu%zu/topology/physical_package_id", cpu)
                    < (int) sizeof relative;
        }
        if (ok && nsa_exists(root, relative)) {
            char *text = nsa_read_text(root, relative);
            long value;
            const char *p = text == NULL ? NULL : text[0] == '-' ? nsa_number(text + 1, INT32_MAX, &value)
                    : nsa_number(text, INT32_MAX, &value);
            ok = p != NULL && *p == '\0';
            free(text);
        }
    }
    free(scratch);
    free(nodes);
    free(possible);
    if (!ok) {
        nsa_topology_free(t);
    }
    return ok ? 0 : -1;
}
