/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The agent library's readers, parsers and planner under ASan and UBSan: scripts/native-fuzz builds this with
 * the library's sources (make fuzz) and runs it. Every check prints "pass: NAME" or "FAIL: NAME: why"; a fault
 * ends the process in the sanitizer's report, which the script counts as a failure.
 *
 *   nsa-fuzz corpus FILE            the cpulist corpus (java/core/src/test/resources/io/numaspread/), which
 *                                   CpuListCorpusTest holds Java's reader to: the C reader must agree on each line
 *   nsa-fuzz checks DIR             fixed cases: count= at and beyond NSA_MAX_QUEUES, 3 MiB lines and files, a
 *                                   600-star glob against a 200,000-character name, symlinks, FIFOs and
 *                                   directories planted in a sysfs tree
 *   nsa-fuzz random SEED SECONDS DIR  random and mutated cpulists and globs and generated sysfs trees, each read
 *                                   and planned, for SECONDS in all; the same SEED replays the same inputs
 *
 * DIR is a scratch directory for the trees, emptied as it goes.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../nsa.h"

#define NSA_FUZZ_WORD_BITS (8 * sizeof(unsigned long))
#define NSA_FUZZ_MAX_WORDS (NSA_NODE_BITS / NSA_FUZZ_WORD_BITS)

static int nsa_fuzz_failures;
static uint64_t nsa_fuzz_state;

static void nsa_fuzz_result(const char *name, const char *why) {
    if (why == NULL) {
        printf("pass: %s\n", name);
    } else {
        printf("FAIL: %s: %s\n", name, why);
        nsa_fuzz_failures++;
    }
}

/* splitmix64: small, and the same sequence for the same seed everywhere. */
static uint64_t nsa_fuzz_next(void) {
    uint64_t z = (nsa_fuzz_state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static size_t nsa_fuzz_below(size_t bound) {
    return (size_t) (nsa_fuzz_next() % bound);
}

static double nsa_fuzz_seconds(void) {
    struct timespec now;
    if (clock_gettime(CLOCK_MONOTONIC, &now) != 0) {
        perror("clock_gettime");
        exit(2);
    }
    return (double) now.tv_sec + (double) now.tv_nsec / 1e9;
}

static void *nsa_fuzz_alloc(size_t size) {
    void *p = calloc(1, size);
    if (p == NULL) {
        fprintf(stderr, "nsa-fuzz: out of memory\n");
        exit(2);
    }
    return p;
}

/* ---- cpulists --------------------------------------------------------------------------------------------- */

/* The set as CpuSet.toString writes it, "empty" for none. */
static void nsa_fuzz_format(const unsigned long *set, size_t bits, char *out, size_t size) {
    size_t used = 0;
    out[0] = '\0';
    for (size_t cpu = 0; cpu < bits; cpu++) {
        if (!nsa_bit(set, cpu)) {
            continue;
        }
        size_t end = cpu;
        while (end + 1 < bits && nsa_bit(set, end + 1)) {
            end++;
        }
        int n = end > cpu ? snprintf(out + used, size - used, "%s%zu-%zu", used > 0 ? "," : "", cpu, end)
                          : snprintf(out + used, size - used, "%s%zu", used > 0 ? "," : "", cpu);
        if (n < 0 || (size_t) n >= size - used) {
            fprintf(stderr, "nsa-fuzz: a formatted set is too long\n");
            exit(2);
        }
        used += (size_t) n;
        cpu = end;
    }
    if (used == 0) {
        snprintf(out, size, "empty");
    }
}

/* What a kernel file holding bytes means, as the library reads it: the set formatted, "empty" or "refused". */
static void nsa_fuzz_read_cpulist(const char *bytes, size_t length, size_t bits, unsigned long *set, char *out,
        size_t size) {
    char *copy = nsa_fuzz_alloc(length + 1);
    memcpy(copy, bytes, length);
    memset(set, 0, NSA_FUZZ_MAX_WORDS * sizeof(unsigned long));
    const char *text = nsa_kernel_text(copy, length);
    if (text == NULL || nsa_parse_cpulist(text, set, bits) != 0) {
        snprintf(out, size, "refused");
    } else {
        nsa_fuzz_format(set, bits, out, size);
    }
    free(copy);
}

/* The corpus's "INPUT" at the start of line, unescaped into bytes; the text after it, or NULL when malformed. */
static const char *nsa_fuzz_unquote(const char *line, char *bytes, size_t *length) {
    if (line[0] != '"') {
        return NULL;
    }
    size_t n = 0;
    for (const char *p = line + 1; *p != '\0'; p++) {
        if (*p == '"') {
            *length = n;
            return p + 1;
        }
        if (*p != '\\') {
            bytes[n++] = *p;
            continue;
        }
        p++;
        switch (*p) {
        case '0': bytes[n++] = '\0'; break;
        case 't': bytes[n++] = '\t'; break;
        case 'n': bytes[n++] = '\n'; break;
        case 'r': bytes[n++] = '\r'; break;
        case 'v': bytes[n++] = '\v'; break;
        case 'f': bytes[n++] = '\f'; break;
        case '\\': case '"': bytes[n++] = *p; break;
        case 'x': {
            char hex[3] = {p[1], p[1] == '\0' ? '\0' : p[2], '\0'};
            char *end;
            long value = strtol(hex, &end, 16);
            if (end != hex + 2) {
                return NULL;
            }
            bytes[n++] = (char) value;
            p += 2;
            break;
        }
        default:
            return NULL;
        }
    }
    return NULL;
}

static void nsa_fuzz_corpus(const char *file) {
    FILE *in = fopen(file, "r");
    if (in == NULL) {
        perror(file);
        exit(2);
    }
    char line[512];
    char name[64];
    char input[512];
    char why[4400];
    char actual[4096];
    unsigned long *set = nsa_fuzz_alloc(NSA_FUZZ_MAX_WORDS * sizeof(unsigned long));
    int cases = 0;
    for (int number = 1; fgets(line, sizeof line, in) != NULL; number++) {
        if (line[0] == '#' || line[strspn(line, " \t\n")] == '\0') {
            continue;
        }
        snprintf(name, sizeof name, "cpulist corpus line %d", number);
        size_t length;
        const char *rest = nsa_fuzz_unquote(line, input, &length);
        char expected[256];
        if (rest == NULL || sscanf(rest, "%255s", expected) != 1) {
            nsa_fuzz_result(name, "malformed corpus line");
            continue;
        }
        nsa_fuzz_read_cpulist(input, length, NSA_NODE_BITS, set, actual, sizeof actual);
        snprintf(why, sizeof why, "%s expected, %s read", expected, actual);
        nsa_fuzz_result(name, strcmp(expected, actual) == 0 ? NULL : why);
        cases++;
    }
    if (ferror(in) || fclose(in) != 0) {
        perror(file);
        exit(2);
    }
    free(set);
    nsa_fuzz_result("cpulist corpus has cases", cases > 50 ? NULL : "fewer than 50");
}

static const char *const nsa_fuzz_cpulist_pieces[] = {
    "0", "1", "3", "63", "64", "127", "4095", "65535", "65536", "2147483646", "2147483647", "2147483648",
    "4294967296", "99999999999999999999", "-", ",", ":", "/", " ", "\n", "\t", "\r", "\x1c", "\0", "+", "x",
    "ff", "00000000", "\xd9\xa1", "\xff", "(null)",
};

/* A random or mutated cpulist of at most size - 1 bytes; its length. */
static size_t nsa_fuzz_cpulist(char *out, size_t size) {
    size_t n = 0;
    size_t count = sizeof nsa_fuzz_cpulist_pieces / sizeof nsa_fuzz_cpulist_pieces[0];
    for (size_t pieces = nsa_fuzz_below(10); pieces > 0; pieces--) {
        const char *piece = nsa_fuzz_cpulist_pieces[nsa_fuzz_below(count)];
        size_t length = piece[0] == '\0' ? 1 : strlen(piece);
        if (n + length < size) {
            memcpy(out + n, piece, length);
            n += length;
        }
    }
    for (size_t edits = nsa_fuzz_below(3); edits > 0 && n > 0; edits--) {
        out[nsa_fuzz_below(n)] = (char) nsa_fuzz_below(256);
    }
    return n;
}

/* Random cpulists: each is refused, or parses into CPUs below the limit that print and parse back to themselves. */
static long nsa_fuzz_cpulists(double until) {
    static const size_t limits[] = {1, 2, 64, 65, 4096, NSA_NODE_BITS};
    unsigned long *set = nsa_fuzz_alloc(NSA_FUZZ_MAX_WORDS * sizeof(unsigned long));
    unsigned long *again = nsa_fuzz_alloc(NSA_FUZZ_MAX_WORDS * sizeof(unsigned long));
    char *text = nsa_fuzz_alloc(1 << 20);
    long inputs = 0;
    char input[256];
    while (nsa_fuzz_seconds() < until) {
        for (int batch = 0; batch < 1000; batch++, inputs++) {
            size_t length = nsa_fuzz_cpulist(input, sizeof input);
            size_t bits = limits[nsa_fuzz_below(sizeof limits / sizeof limits[0])];
            nsa_fuzz_read_cpulist(input, length, bits, set, text, 1 << 20);
            if (strcmp(text, "refused") == 0 || strcmp(text, "empty") == 0) {
                continue;
            }
            nsa_fuzz_read_cpulist(text, strlen(text), bits, again, text, 1 << 20);
            if (memcmp(set, again, NSA_FUZZ_MAX_WORDS * sizeof(unsigned long)) != 0) {
                nsa_fuzz_result("random cpulists print and parse back", text);
                return -1;
            }
        }
    }
    free(set);
    free(again);
    free(text);
    return inputs;
}

/* ---- globs ------------------------------------------------------------------------------------------------ */

static const char *const nsa_fuzz_glob_pieces[] = {
    "*", "?", "[", "]", "!", "^", "-", "\\", "a", "z", "io-", "0", "9", "\xc3\xa9", "\xe2\x82\xac",
    "\xed\xa0\x80", "\xc0\x80", "\xff", "\xc3", "\xe2\x82", "[a-z]", "[!0-9]", "[]]", "[z-a]",
};

static size_t nsa_fuzz_glob_text(char *out, size_t size) {
    size_t n = 0;
    size_t count = sizeof nsa_fuzz_glob_pieces / sizeof nsa_fuzz_glob_pieces[0];
    for (size_t pieces = nsa_fuzz_below(12); pieces > 0; pieces--) {
        const char *piece = nsa_fuzz_glob_pieces[nsa_fuzz_below(count)];
        size_t length = strlen(piece);
        if (n + length < size) {
            memcpy(out + n, piece, length);
            n += length;
        }
    }
    out[n] = '\0';
    return n;
}

/* Random globs and names: a well-formed glob matches or not without a fault; "*" and a name's own escaped
 * characters match it. */
static long nsa_fuzz_globs(double until) {
    long inputs = 0;
    char glob[256];
    char name[256];
    char escaped[512];
    while (nsa_fuzz_seconds() < until) {
        for (int batch = 0; batch < 1000; batch++, inputs++) {
            nsa_fuzz_glob_text(glob, sizeof glob);
            size_t length = nsa_fuzz_glob_text(name, sizeof name);
            if (nsa_glob_problem(glob) == NULL) {
                (void) nsa_glob_matches(glob, name);
            }
            /* An ASCII name with every character escaped is a glob that matches it (escaping a UTF-8 name byte by
             * byte would cut its sequences). */
            size_t e = 0;
            int ascii = 1;
            for (size_t i = 0; i < length; i++) {
                escaped[e++] = '\\';
                escaped[e++] = name[i];
                ascii = ascii && (unsigned char) name[i] < 0x80;
            }
            escaped[e] = '\0';
            if (!nsa_glob_matches("*", name) || (ascii && length > 0 && (nsa_glob_problem(escaped) != NULL
                    || !nsa_glob_matches(escaped, name)))) {
                nsa_fuzz_result("random globs match their own names", name);
                return -1;
            }
        }
    }
    return inputs;
}

/* ---- sysfs trees ------------------------------------------------------------------------------------------ */

static int nsa_fuzz_remove_entry(const char *path, const struct stat *status, int type, struct FTW *walk) {
    (void) status;
    (void) type;
    (void) walk;
    if (remove(path) != 0) {
        perror(path);
        exit(2);
    }
    return 0;
}

static void nsa_fuzz_remove_tree(const char *root) {
    if (access(root, F_OK) == 0 && nftw(root, nsa_fuzz_remove_entry, 16, FTW_DEPTH | FTW_PHYS) != 0) {
        perror(root);
        exit(2);
    }
}

static void nsa_fuzz_mkdirs(char *path) {
    for (char *slash = strchr(path + 1, '/'); slash != NULL; slash = strchr(slash + 1, '/')) {
        *slash = '\0';
        if (mkdir(path, 0700) != 0 && errno != EEXIST) {
            perror(path);
            exit(2);
        }
        *slash = '/';
    }
}

/* Writes root/relative with exactly these bytes, its directories first. */
static void nsa_fuzz_write(const char *root, const char *relative, const char *bytes, size_t length) {
    char path[4096];
    if (snprintf(path, sizeof path, "%s/%s", root, relative) >= (int) sizeof path) {
        fprintf(stderr, "nsa-fuzz: path too long\n");
        exit(2);
    }
    nsa_fuzz_mkdirs(path);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0 || write(fd, bytes, length) != (ssize_t) length || close(fd) != 0) {
        perror(path);
        exit(2);
    }
}

static void nsa_fuzz_write_text(const char *root, const char *relative, const char *text) {
    nsa_fuzz_write(root, relative, text, strlen(text));
}

/* Replaces root/relative by a symbolic link to a valid copy, a FIFO or a directory. */
static void nsa_fuzz_plant(const char *root, const char *relative, int kind) {
    char path[4096];
    char copy[4200];
    if (snprintf(path, sizeof path, "%s/%s", root, relative) >= (int) sizeof path
            || snprintf(copy, sizeof copy, "%s.real", path) >= (int) sizeof copy) {
        fprintf(stderr, "nsa-fuzz: path too long\n");
        exit(2);
    }
    nsa_fuzz_mkdirs(path);
    if ((access(path, F_OK) == 0 && rename(path, copy) != 0)
            || (kind == 0 && symlink(copy, path) != 0)
            || (kind == 1 && mkfifo(path, 0600) != 0)
            || (kind == 2 && mkdir(path, 0700) != 0)) {
        perror(path);
        exit(2);
    }
}

struct nsa_fuzz_shape {
    size_t cpus;           /* possible 0..cpus-1 */
    size_t nodes;
    size_t threads;        /* per core */
    unsigned long online[NSA_FUZZ_MAX_WORDS];
};

/* The files TopologyDiscovery reads, for a random machine: some CPUs offline, cores of 1 to 4 threads, nodes of
 * consecutive cores, random distances (zero and asymmetric ones too). */
static void nsa_fuzz_write_shape(const char *root, struct nsa_fuzz_shape *shape) {
    char relative[128];
    char text[65536];
    shape->cpus = 1 + nsa_fuzz_below(nsa_fuzz_below(50) == 0 ? 1024 : 64);
    shape->nodes = 1 + nsa_fuzz_below(shape->cpus < 6 ? shape->cpus : 6);
    shape->threads = 1 + nsa_fuzz_below(4);
    memset(shape->online, 0, sizeof shape->online);
    for (size_t cpu = 0; cpu < shape->cpus; cpu++) {
        if (cpu == 0 || nsa_fuzz_below(8) != 0) {
            nsa_set_bit(shape->online, cpu);
        }
    }
    snprintf(text, sizeof text, "0-%zu\n", shape->cpus - 1);
    nsa_fuzz_write_text(root, "devices/system/cpu/possible", text);
    nsa_fuzz_format(shape->online, shape->cpus, text, sizeof text);
    nsa_fuzz_write_text(root, "devices/system/cpu/online", text);
    if (nsa_fuzz_below(2) == 0) {
        nsa_fuzz_write_text(root, "devices/system/cpu/isolated", nsa_fuzz_below(2) == 0 ? "\n" : "0\n");
    }
    if (nsa_fuzz_below(2) == 0) {
        /* Debian's 6.1 without nohz_full=, and RHEL 7's 3.10 */
        int null_text = nsa_fuzz_below(2) == 0;
        nsa_fuzz_write(root, "devices/system/cpu/nohz_full", null_text ? "(null)\n" : "\0\n", null_text ? 7 : 2);
    }
    snprintf(text, sizeof text, shape->nodes == 1 ? "0\n" : "0-%zu\n", shape->nodes - 1);
    nsa_fuzz_write_text(root, "devices/system/node/online", text);
    size_t per_node = (shape->cpus + shape->nodes - 1) / shape->nodes;
    for (size_t node = 0; node < shape->nodes; node++) {
        size_t from = node * per_node;
        size_t to = from + per_node > shape->cpus ? shape->cpus : from + per_node;
        snprintf(relative, sizeof relative, "devices/system/node/node%zu/cpulist", node);
        if (from >= to) {
            nsa_fuzz_write_text(root, relative, "\n");
        } else {
            snprintf(text, sizeof text, to - from == 1 ? "%zu\n" : "%zu-%zu\n", from, to - 1);
            nsa_fuzz_write_text(root, relative, text);
        }
        size_t used = 0;
        for (size_t other = 0; other < shape->nodes; other++) {
            size_t distance = other == node ? 10 : nsa_fuzz_below(10) == 0 ? 0 : 11 + nsa_fuzz_below(30);
            used += (size_t) snprintf(text + used, sizeof text - used, "%s%zu", other == 0 ? "" : " ", distance);
        }
        snprintf(text + used, sizeof text - used, "\n");
        snprintf(relative, sizeof relative, "devices/system/node/node%zu/distance", node);
        nsa_fuzz_write_text(root, relative, text);
    }
    for (size_t cpu = 0; cpu < shape->cpus; cpu++) {
        size_t core = cpu / shape->threads * shape->threads;
        size_t last = core + shape->threads - 1 < shape->cpus ? core + shape->threads - 1 : shape->cpus - 1;
        snprintf(text, sizeof text, last > core ? "%zu-%zu\n" : "%zu\n", core, last);
        snprintf(relative, sizeof relative, "devices/system/cpu/cpu%zu/topology/thread_siblings_list", cpu);
        nsa_fuzz_write_text(root, relative, text);
        snprintf(text, sizeof text, "%zu\n", cpu / per_node);
        snprintf(relative, sizeof relative, "devices/system/cpu/cpu%zu/topology/physical_package_id", cpu);
        nsa_fuzz_write_text(root, relative, text);
    }
}

static const char *const nsa_fuzz_tree_files[] = {
    "devices/system/cpu/possible", "devices/system/cpu/online", "devices/system/cpu/isolated",
    "devices/system/cpu/nohz_full", "devices/system/node/online", "devices/system/node/node0/cpulist",
    "devices/system/node/node0/distance", "devices/system/node/node1/distance",
    "devices/system/cpu/cpu0/topology/thread_siblings_list", "devices/system/cpu/cpu1/topology/thread_siblings_list",
    "devices/system/cpu/cpu0/topology/physical_package_id",
};

/* Spoils one of the files: a random or mutated value, NUL padding, a NUL inside, CRLF, or a symlink, FIFO or
 * directory in its place. */
static void nsa_fuzz_spoil(const char *root) {
    const char *relative = nsa_fuzz_tree_files[nsa_fuzz_below(sizeof nsa_fuzz_tree_files
            / sizeof nsa_fuzz_tree_files[0])];
    char text[256];
    size_t length;
    switch (nsa_fuzz_below(6)) {
    case 0:
        length = nsa_fuzz_cpulist(text, sizeof text);
        nsa_fuzz_write(root, relative, text, length);
        break;
    case 1:
        nsa_fuzz_write(root, relative, "0\n\0", 3);
        break;
    case 2:
        nsa_fuzz_write(root, relative, "0\0junk", 6);
        break;
    case 3:
        nsa_fuzz_write_text(root, relative, "0\r\n");
        break;
    default:
        nsa_fuzz_plant(root, relative, (int) nsa_fuzz_below(3));
    }
}

static const char *nsa_fuzz_check_plan(const struct nsa_fuzz_shape *shape, const unsigned long *allowed,
        const unsigned long *masks, size_t words, long count, int one_cpu) {
    for (long index = 0; index < count; index++) {
        const unsigned long *mask = masks + (size_t) index * words;
        size_t bits = 0;
        for (size_t w = 0; w < words; w++) {
            if ((mask[w] & ~(shape->online[w] & allowed[w])) != 0) {
                return "a mask holds a CPU that is offline or not allowed";
            }
            bits += (size_t) __builtin_popcountl(mask[w]);
        }
        if (bits == 0 || (one_cpu && bits != 1) || bits > shape->threads) {
            return "a mask is empty, or larger than its mode allows";
        }
    }
    return NULL;
}

/* Generated trees, some of them spoiled: each is read, or refused, without a fault, and each plan of one that
 * was read puts every assignment on CPUs that are online and allowed. */
static long nsa_fuzz_trees(const char *dir, double until) {
    char root[4096];
    char allowed_text[65536];
    struct nsa_fuzz_shape shape;
    unsigned long allowed[NSA_FUZZ_MAX_WORDS];
    long trees = 0;
    snprintf(root, sizeof root, "%s/tree", dir);
    for (; nsa_fuzz_seconds() < until; trees++) {
        nsa_fuzz_remove_tree(root);
        nsa_fuzz_write_shape(root, &shape);
        int spoiled = nsa_fuzz_below(3) == 0;
        if (spoiled) {
            nsa_fuzz_spoil(root);
        }
        struct nsa_topology t;
        if (nsa_topology_read(root, &t) != 0) {
            if (!spoiled) {
                nsa_fuzz_result("generated trees are read", root);
                return -1;
            }
            continue;
        }
        nsa_topology_free(&t);
        memset(allowed, 0, sizeof allowed);
        for (size_t cpu = 0; cpu < shape.cpus; cpu++) {
            if (nsa_fuzz_below(3) != 0) {
                nsa_set_bit(allowed, cpu);
            }
        }
        nsa_fuzz_format(allowed, shape.cpus, allowed_text, sizeof allowed_text);
        int restricted = nsa_fuzz_below(2) == 0 && strcmp(allowed_text, "empty") != 0;
        if (!restricted) {
            memset(allowed, 0xff, sizeof allowed);
        }
        /* Three plans (each reads the tree again): a node or one past the last, a count below, at or past the
         * CPUs, either mode. */
        for (int plan = 0; plan < 3; plan++) {
            long counts[] = {1, 2, 3, (long) shape.cpus + 1, 1 + (long) nsa_fuzz_below(2000)};
            long count = counts[nsa_fuzz_below(sizeof counts / sizeof counts[0])];
            int origin = (int) nsa_fuzz_below(shape.nodes + 1);
            int one_cpu = (int) nsa_fuzz_below(2);
            unsigned long *masks;
            size_t words;
            if (nsa_plan_threads(root, restricted ? allowed_text : NULL, origin, count, one_cpu, &masks, &words)
                    != 0) {
                continue;
            }
            /* A spoiled tree that still reads is another machine than the shape: only no fault counts. */
            const char *why = spoiled ? NULL : nsa_fuzz_check_plan(&shape, allowed, masks, words, count, one_cpu);
            free(masks);
            if (why != NULL) {
                nsa_fuzz_result("plans of generated trees", why);
                return -1;
            }
        }
    }
    nsa_fuzz_remove_tree(root);
    return trees;
}

/* ---- fixed checks ----------------------------------------------------------------------------------------- */

/* count at NSA_MAX_QUEUES is planned; beyond it (and below 1) it is refused before anything is allocated, which
 * scripts/native-fuzz's ASAN_OPTIONS make a hard fault for any allocation over 1 GiB. */
static void nsa_fuzz_count_bound(const char *dir) {
    char root[4096];
    snprintf(root, sizeof root, "%s/bound", dir);
    nsa_fuzz_remove_tree(root);
    nsa_fuzz_write_text(root, "devices/system/cpu/possible", "0-1\n");
    nsa_fuzz_write_text(root, "devices/system/cpu/online", "0-1\n");
    nsa_fuzz_write_text(root, "devices/system/cpu/cpu0/topology/thread_siblings_list", "0\n");
    nsa_fuzz_write_text(root, "devices/system/cpu/cpu1/topology/thread_siblings_list", "1\n");
    unsigned long *masks = NULL;
    size_t words;
    int planned = nsa_plan_threads(root, NULL, 0, NSA_MAX_QUEUES, 1, &masks, &words) == 0;
    nsa_fuzz_result("count at NSA_MAX_QUEUES is planned",
            planned && words == 1 && masks[0] == 1 && masks[NSA_MAX_QUEUES - 1] == 2 ? NULL : "not planned");
    free(masks);
    static const long refused[] = {NSA_MAX_QUEUES + 1, 4194304, INT32_MAX, 0, -1, INT32_MIN};
    char name[96];
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        snprintf(name, sizeof name, "count %ld is refused", refused[i]);
        nsa_fuzz_result(name, nsa_plan_threads(root, NULL, 0, refused[i], 1, &masks, &words) != 0 ? NULL : "planned");
    }
    nsa_fuzz_remove_tree(root);
}

static void nsa_fuzz_huge_inputs(const char *dir) {
    size_t size = 3 << 20;
    char *line = nsa_fuzz_alloc(size + 1);
    unsigned long *set = nsa_fuzz_alloc(NSA_FUZZ_MAX_WORDS * sizeof(unsigned long));
    char out[64];
    memset(line, '9', size);
    nsa_fuzz_read_cpulist(line, size, NSA_NODE_BITS, set, out, sizeof out);
    nsa_fuzz_result("a 3 MiB number is refused", strcmp(out, "refused") == 0 ? NULL : out);
    for (size_t i = 0; i + 1 < size; i += 2) {
        line[i] = '7';
        line[i + 1] = ',';
    }
    line[size - 1] = '\n';
    nsa_fuzz_read_cpulist(line, size, NSA_NODE_BITS, set, out, sizeof out);
    nsa_fuzz_result("a 3 MiB list of one CPU is read", strcmp(out, "7") == 0 ? NULL : out);
    /* The same line as a file: beyond NSA_MAX_FILE_BYTES, so the tree is refused, as Java refuses it. */
    char root[4096];
    snprintf(root, sizeof root, "%s/huge", dir);
    nsa_fuzz_remove_tree(root);
    struct nsa_fuzz_shape shape;
    nsa_fuzz_write_shape(root, &shape);
    struct nsa_topology t;
    int read = nsa_topology_read(root, &t) == 0;
    nsa_fuzz_result("a generated tree is read", read ? NULL : "refused");
    if (read) {
        nsa_topology_free(&t);
    }
    nsa_fuzz_write(root, "devices/system/cpu/online", line, size);
    read = nsa_topology_read(root, &t) == 0;
    nsa_fuzz_result("a 3 MiB cpu/online is refused", read ? "read" : NULL);
    if (read) {
        nsa_topology_free(&t);
    }
    nsa_fuzz_remove_tree(root);
    free(set);
    free(line);

    size_t length = 200000;
    char *glob = nsa_fuzz_alloc(1200 + 2);
    char *name = nsa_fuzz_alloc(length + 1);
    for (size_t i = 0; i < 600; i++) {
        glob[2 * i] = '*';
        glob[2 * i + 1] = 'a';
    }
    glob[1200] = 'b';
    memset(name, 'a', length);
    double start = nsa_fuzz_seconds();
    int matched = nsa_glob_problem(glob) == NULL && nsa_glob_matches(glob, name);
    double elapsed = nsa_fuzz_seconds() - start;
    printf("# a 600-star glob against a 200,000-character name took %.0f ms\n", elapsed * 1000);
    nsa_fuzz_result("a 600-star glob against a 200,000-character name ends within 5 s",
            !matched && elapsed < 5 ? NULL : "matched, or too slow");
    free(glob);
    free(name);
}

/* A tree another user prepared: a symlink, FIFO or directory where a kernel file should be is refused, at once
 * (a FIFO's open does not wait for a writer). */
static void nsa_fuzz_planted(const char *dir) {
    static const char *const kinds[] = {"a symlink", "a FIFO", "a directory"};
    char root[4096];
    char name[160];
    struct nsa_fuzz_shape shape;
    struct nsa_topology t;
    snprintf(root, sizeof root, "%s/planted", dir);
    for (int kind = 0; kind < 3; kind++) {
        for (int file = 0; file < 2; file++) {
            const char *relative = file == 0 ? "devices/system/cpu/online"
                                             : "devices/system/cpu/cpu0/topology/thread_siblings_list";
            nsa_fuzz_remove_tree(root);
            nsa_fuzz_write_shape(root, &shape);
            nsa_fuzz_plant(root, relative, kind);
            snprintf(name, sizeof name, "%s as %s is refused", kinds[kind], relative);
            int read = nsa_topology_read(root, &t) == 0;
            nsa_fuzz_result(name, read ? "read" : NULL);
            if (read) {
                nsa_topology_free(&t);
            }
        }
    }
    nsa_fuzz_remove_tree(root);
    nsa_fuzz_write_text(root, "file", "0\n");
    char path[4200];
    snprintf(path, sizeof path, "%s/link", root);
    char target[4200];
    snprintf(target, sizeof target, "%s/file", root);
    if (symlink(target, path) != 0) {
        perror(path);
        exit(2);
    }
    int fd = nsa_open_kernel_file(path, O_WRONLY | O_TRUNC);
    nsa_fuzz_result("a write through a symlink is refused with ELOOP", fd < 0 && errno == ELOOP ? NULL : "opened");
    struct stat status;
    nsa_fuzz_result("the symlink's target is left whole",
            stat(target, &status) == 0 && status.st_size == 2 ? NULL : "truncated");
    snprintf(path, sizeof path, "%s/fifo", root);
    if (mkfifo(path, 0600) != 0) {
        perror(path);
        exit(2);
    }
    fd = nsa_open_kernel_file(path, O_RDONLY);
    nsa_fuzz_result("a FIFO is refused for reading", fd < 0 && errno == EINVAL ? NULL : "opened");
    fd = nsa_open_kernel_file(path, O_WRONLY);
    nsa_fuzz_result("a FIFO is refused for writing", fd < 0 && errno == ENXIO ? NULL : "opened");
    fd = nsa_open_kernel_file(target, O_RDONLY);
    nsa_fuzz_result("a regular file opens blocking",
            fd >= 0 && (fcntl(fd, F_GETFL) & O_NONBLOCK) == 0 && close(fd) == 0 ? NULL : "not so");
    nsa_fuzz_remove_tree(root);
}

int main(int argc, char **argv) {
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc == 3 && strcmp(argv[1], "corpus") == 0) {
        nsa_fuzz_corpus(argv[2]);
    } else if (argc == 3 && strcmp(argv[1], "checks") == 0) {
        nsa_fuzz_count_bound(argv[2]);
        nsa_fuzz_huge_inputs(argv[2]);
        nsa_fuzz_planted(argv[2]);
    } else if (argc == 5 && strcmp(argv[1], "random") == 0) {
        char *end;
        nsa_fuzz_state = strtoull(argv[2], &end, 0);
        double seconds = strtod(argv[3], NULL);
        if (*end != '\0' || seconds <= 0) {
            fprintf(stderr, "nsa-fuzz: random SEED SECONDS DIR\n");
            return 2;
        }
        double start = nsa_fuzz_seconds();
        long cpulists = nsa_fuzz_cpulists(start + seconds * 0.3);
        long globs = cpulists < 0 ? -1 : nsa_fuzz_globs(start + seconds * 0.5);
        long trees = globs < 0 ? -1 : nsa_fuzz_trees(argv[4], start + seconds);
        if (trees >= 0) {
            char name[160];
            snprintf(name, sizeof name, "seed %s: %ld cpulists, %ld globs and names, %ld sysfs trees", argv[2],
                    cpulists, globs, trees);
            nsa_fuzz_result(name, NULL);
        }
    } else {
        fprintf(stderr, "usage: nsa-fuzz corpus FILE | checks DIR | random SEED SECONDS DIR\n");
        return 2;
    }
    return nsa_fuzz_failures == 0 ? 0 : 1;
}
