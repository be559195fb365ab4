/* SPDX-License-Identifier: Apache-2.0 */
/* The thread-name globs: checking one (NativeAgent.globProblem) and matching a name against one. */
#include <stdint.h>
#include <stddef.h>

#include "nsa.h"

/* One character of modified UTF-8 (a UTF-16 code unit, as Java counts them): its value and length. */
static uint32_t nsa_decode(const char *text, size_t *length) {
    const unsigned char *s = (const unsigned char *) text;
    if (s[0] >= 0xE0 && (s[1] & 0xC0) == 0x80 && (s[2] & 0xC0) == 0x80) {
        *length = 3;
        return ((uint32_t) (s[0] & 0x0F) << 12) | ((uint32_t) (s[1] & 0x3F) << 6) | (s[2] & 0x3F);
    }
    if (s[0] >= 0xC0 && (s[1] & 0xC0) == 0x80) {
        *length = 2;
        return ((uint32_t) (s[0] & 0x1F) << 6) | (s[1] & 0x3F);
    }
    *length = 1;
    return s[0];
}

/*
 * Checks a glob: '*' any run, '?' one character, '[...]' a class ('!' or '^' first negates, ']' first is
 * literal, a-z ranges), '\' quotes the next character. Returns NULL, or why the glob is malformed.
 */
const char *nsa_glob_problem(const char *glob) {
    if (*glob == '\0') {
        return "is empty";
    }
    for (const char *p = glob; *p != '\0';) {
        size_t length;
        if (*p == '\\') {
            if (p[1] == '\0') {
                return "ends with a lone '\\'";
            }
            nsa_decode(p + 1, &length);
            p += 1 + length;
        } else if (*p == '[') {
            const char *q = p + 1;
            if (*q == '!' || *q == '^') {
                q++;
            }
            int first = 1;
            while (*q != '\0' && (first || *q != ']')) {
                uint32_t low = nsa_decode(q, &length);
                q += length;
                first = 0;
                if (*q == '-' && q[1] != ']' && q[1] != '\0') {
                    uint32_t high = nsa_decode(q + 1, &length);
                    if (high < low) {
                        return "has a range that ends before it starts";
                    }
                    q += 1 + length;
                }
            }
            if (*q != ']') {
                return "has a '[' without its ']'";
            }
            p = q + 1;
        } else {
            nsa_decode(p, &length);
            p += length;
        }
    }
    return NULL;
}

/* Whether character c is in the well-formed class that starts after '['; *end is set past its ']'. */
static int nsa_class_matches(const char *class, uint32_t c, const char **end) {
    const char *q = class;
    int negated = *q == '!' || *q == '^';
    int found = 0;
    int first = 1;
    size_t length;
    if (negated) {
        q++;
    }
    while (first || *q != ']') {
        uint32_t low = nsa_decode(q, &length);
        uint32_t high = low;
        q += length;
        first = 0;
        if (*q == '-' && q[1] != ']') {
            high = nsa_decode(q + 1, &length);
            q += 1 + length;
        }
        if (low <= c && c <= high) {
            found = 1;
        }
    }
    *end = q + 1;
    return found != negated;
}

/* Matches a well-formed glob against the whole name; backtracks only to the last '*', so it is linear-ish. */
int nsa_glob_matches(const char *glob, const char *name) {
    const char *p = glob;
    const char *s = name;
    const char *star_p = NULL;
    const char *star_s = NULL;
    size_t length;
    while (*s != '\0') {
        if (*p == '*') {
            star_p = ++p;
            star_s = s;
            continue;
        }
        if (*p != '\0') {
            uint32_t c = nsa_decode(s, &length);
            const char *next_p;
            int ok;
            if (*p == '?') {
                ok = 1;
                next_p = p + 1;
            } else if (*p == '[') {
                ok = nsa_class_matches(p + 1, c, &next_p);
            } else {
                size_t pattern_length;
                const char *literal = *p == '\\' ? p + 1 : p;
                ok = nsa_decode(literal, &pattern_length) == c;
                next_p = literal + pattern_length;
            }
            if (ok) {
                p = next_p;
                s += length;
                continue;
            }
        }
        if (star_p == NULL) {
            return 0;
        }
        nsa_decode(star_s, &length);
        star_s += length;
        s = star_s;
        p = star_p;
    }
    while (*p == '*') {
        p++;
    }
    return *p == '\0';
}
