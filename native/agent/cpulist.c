/* SPDX-License-Identifier: Apache-2.0 */
/* Cpulists as CpuSet.parse reads them, into masks of unsigned long words (the kernel's cpu_set_t layout). */
#include <stddef.h>

#include "nsa.h"

const char *nsa_skip_blanks(const char *p) {
    while (*p == ' ' || *p == '\t' || *p == '\n') {
        p++;
    }
    return p;
}

/* A decimal number below limit; NULL when there is none. */
const char *nsa_number(const char *p, long limit, long *value) {
    if (*p < '0' || *p > '9') {
        return NULL;
    }
    long n = 0;
    for (; *p >= '0' && *p <= '9'; p++) {
        n = n * 10 + (*p - '0');
        if (n >= limit) {
            return NULL;
        }
    }
    *value = n;
    return p;
}

/* What CpuSet.parse strips around the list and each element: String.strip's Character.isWhitespace, which over
 * the ISO-8859-1 characters that KernelText decodes a file's bytes into is exactly these. */
static const char *nsa_skip_whitespace(const char *p) {
    while ((*p >= '\t' && *p <= '\r') || (*p >= 0x1c && *p <= ' ')) {
        p++;
    }
    return p;
}

/* A cpulist as CpuSet.parse reads it (ranges, strides, whitespace around elements) into set, every CPU below
 * bits; 0, or -1 when it is malformed or names a CPU at or beyond bits. The cpulist corpus that CpuListCorpusTest
 * runs against CpuSet.parse, the agent's fuzz driver runs against this. */
int nsa_parse_cpulist(const char *text, unsigned long *set, size_t bits) {
    const char *p = nsa_skip_whitespace(text);
    if (*p == '\0') {
        return 0;
    }
    for (;;) {
        long from, to, used = 1, group = 1;
        p = nsa_number(nsa_skip_whitespace(p), (long) bits, &from);
        if (p == NULL) {
            return -1;
        }
        to = from;
        if (*p == '-' && (p = nsa_number(p + 1, (long) bits, &to)) == NULL) {
            return -1;
        }
        if (*p == ':' && ((p = nsa_number(p + 1, NSA_NODE_BITS, &used)) == NULL || *p != '/'
                || (p = nsa_number(p + 1, NSA_NODE_BITS, &group)) == NULL || used == 0 || group == 0
                || used > group)) {
            return -1;
        }
        if (to < from) {
            return -1;
        }
        for (long start = from; start <= to; start += group) {
            for (long cpu = start; cpu <= to && cpu < start + used; cpu++) {
                nsa_set_bit(set, (size_t) cpu);
            }
        }
        p = nsa_skip_whitespace(p);
        if (*p == '\0') {
            return 0;
        }
        if (*p != ',') {
            return -1;
        }
        p++;
    }
}
