/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The agent library's internal interfaces: what one of its files offers the others. Everything here is hidden
 * (the Makefile builds with -fvisibility=hidden and checks that JNI_OnLoad is the one exported symbol); a
 * function that only its own file uses stays static there.
 */
#ifndef NSA_H
#define NSA_H

#include <jni.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <sys/types.h>

/* ---- rule sets (rules.c) ------------------------------------------------------------------------------ */

struct nsa_rule {
    size_t glob_count;
    char **globs;              /* modified UTF-8, as JNI and JVMTI hand names out */
    size_t set_count;
    unsigned long *masks;      /* set_count masks of nsa_rules.mask_words words each */
    char **cpulists;           /* each set as CpuSet.toString() writes it, for reports */
    atomic_ulong next;         /* the rotation: the k-th match takes set k mod set_count */
};

struct nsa_rules {
    atomic_long refs;
    int report_pins;           /* queue a report for each pin that held too, not only for failures */
    size_t mask_words;
    size_t rule_count;
    struct nsa_rule *rules;
    /* While a dynamic attach pins the threads that already run, the TIDs pinned at start are kept here,
     * so that a thread started between the install and the thread dump is not pinned twice. */
    pthread_mutex_t started_lock;
    int tracking;
    pid_t *started;
    size_t started_count;
    size_t started_capacity;
};

/* The current rule set with a reference taken, or NULL when there is none; give it back with nsa_rules_release. */
struct nsa_rules *nsa_rules_acquire(void);
void nsa_rules_release(struct nsa_rules *rules);
struct nsa_rule *nsa_rule_for(struct nsa_rules *rules, const char *name);

/* ---- glob matching (glob.c) --------------------------------------------------------------------------- */

/* NULL when the glob is well-formed, else why not. */
const char *nsa_glob_problem(const char *glob);
/* Whether a well-formed glob matches the whole name. */
int nsa_glob_matches(const char *glob, const char *name);

/* ---- pinning (pin.c) ---------------------------------------------------------------------------------- */

pid_t nsa_gettid(void);
void nsa_pin_started(JNIEnv *jni, struct nsa_rules *rules, const char *name);

/* ---- reports (reports.c) ------------------------------------------------------------------------------ */

/* Resolves PinReports.wake(); 0, or -1 with JNI_OnLoad to fail. */
int nsa_reports_init(JNIEnv *env);
/* Queues a report of one pin (error 0: it held) and wakes PinReports' thread when the queue was empty. */
void nsa_report(JNIEnv *jni, int error, pid_t tid, const char *cpus, const char *name);

/* ---- the JVMTI side (hook.c) -------------------------------------------------------------------------- */

/* Takes a JVMTI environment and enables the ThreadStart hook; 0, or -1 (an exception may be pending). */
int nsa_hook_enable(JavaVM *vm, JNIEnv *env);

/* ---- JNI helpers (agent.c) ---------------------------------------------------------------------------- */

void nsa_throw(JNIEnv *env, const char *class_name, const char *message);
char *nsa_utf(JNIEnv *env, jstring text);

/* ---- the kernel's files (files.c) --------------------------------------------------------------------- */

/* KernelText.MAX_ATTRIBUTE_BYTES: sysfs prints at most a page, the longest procfs cpulist is under 40 KiB. */
#define NSA_MAX_FILE_BYTES (1L << 20)

/* open(2) of a kernel file: flags plus O_NOFOLLOW and O_CLOEXEC, a regular file only; the fd, or -1 with errno. */
int nsa_open_kernel_file(const char *path, int flags);
/* A kernel file's length bytes (bytes holds one more) as KernelText.meaning reads them, NUL-terminated in place;
 * NULL when a NUL is left inside. */
char *nsa_kernel_text(char *bytes, size_t length);

/* ---- cpulists and CPU masks (cpulist.c) --------------------------------------------------------------- */

#define NSA_NODE_BITS 65536  /* CpuSet.MAX_CPUS, which also bounds node ids in Java */

static inline int nsa_bit(const unsigned long *set, size_t cpu) {
    return (int) ((set[cpu / (8 * sizeof(unsigned long))] >> (cpu % (8 * sizeof(unsigned long)))) & 1UL);
}

static inline void nsa_set_bit(unsigned long *set, size_t cpu) {
    set[cpu / (8 * sizeof(unsigned long))] |= 1UL << (cpu % (8 * sizeof(unsigned long)));
}

const char *nsa_skip_blanks(const char *p);
/* A decimal number below limit; returns the text after it, or NULL when there is none. */
const char *nsa_number(const char *p, long limit, long *value);
/* A cpulist as CpuSet.parse reads it into set, every CPU below bits; 0, or -1 when it is malformed or too big. */
int nsa_parse_cpulist(const char *text, unsigned long *set, size_t bits);

/* ---- the sysfs topology (topology.c) ------------------------------------------------------------------ */

struct nsa_topology {
    size_t bits;              /* cpu/possible's last CPU + 1: the mask size */
    size_t words;
    unsigned long *online;
    size_t node_count;
    int *node_ids;            /* ascending */
    unsigned long *node_cpus; /* node_count sets of words words, each ∩ online */
    int *distances;           /* node_count x node_count, row = from */
    int *cpu_node;            /* by CPU id: its node (the first that lists it), -1 when none does */
    unsigned long *siblings;  /* by CPU id (online only): thread_siblings_list ∩ online ∪ itself */
};

/* What TopologyDiscovery reads for a thread plan, from the tree under root; 0, or -1 (nothing to free). */
int nsa_topology_read(const char *root, struct nsa_topology *t);
void nsa_topology_free(struct nsa_topology *t);

/* ---- the thread plan (plan.c) ------------------------------------------------------------------------- */

/*
 * PlanRequest.MAX_QUEUES, which AgentOptions enforces on count= before the library is asked: the most
 * assignments a plan may hold, so that a typo in a count fails at once instead of exhausting memory.
 * PlanDifferentialTest checks that the library plans exactly up to PlanRequest.MAX_QUEUES.
 */
#define NSA_MAX_QUEUES (1L << 20)

/*
 * premain's plan for node=origin,count=count from the tree under root, allowed a cpulist or NULL (see
 * NativeAgent.planThreads): *masks, count masks of *words words, to free; 0, or -1 when Java must plan instead
 * (count outside 1..NSA_MAX_QUEUES, refused before any allocation, or anything unusual in the tree).
 */
int nsa_plan_threads(const char *root, const char *allowed_list, int origin, long count, int one_cpu,
        unsigned long **masks, size_t *words);

/* ---- the natives of io.numaspread.agent.NativeAgent, registered by JNI_OnLoad (agent.c) ------------------- */

jstring JNICALL nsa_jni_glob_problem(JNIEnv *env, jclass type, jstring glob);                     /* rules.c */
void JNICALL nsa_jni_install(JNIEnv *env, jclass type, jobjectArray globs, jobjectArray masks,    /* rules.c */
        jobjectArray cpulists, jint mask_words, jboolean report_pins, jboolean track_starts);
jint JNICALL nsa_jni_pin_running(JNIEnv *env, jclass type, jintArray tids, jobjectArray names);    /* pin.c */
jobjectArray JNICALL nsa_jni_all_threads(JNIEnv *env, jclass type);                               /* hook.c */
jobjectArray JNICALL nsa_jni_take_reports(JNIEnv *env, jclass type);                              /* reports.c */
jint JNICALL nsa_jni_open(JNIEnv *env, jclass type, jbyteArray path, jboolean for_writing,         /* files.c */
        jboolean truncate);
jlong JNICALL nsa_jni_read(JNIEnv *env, jclass type, jint fd, jbyteArray buffer, jint length);    /* files.c */
jlong JNICALL nsa_jni_write(JNIEnv *env, jclass type, jint fd, jbyteArray buffer, jint length);   /* files.c */
jint JNICALL nsa_jni_close(JNIEnv *env, jclass type, jint fd);                                     /* files.c */
jlongArray JNICALL nsa_jni_plan_threads(JNIEnv *env, jclass type, jstring sysfs_root,             /* plan.c */
        jstring allowed_text, jint origin, jint count, jboolean one_cpu);

#endif
