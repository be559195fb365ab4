/* SPDX-License-Identifier: Apache-2.0 */
/*
 * numaspread's agent library: a JVMTI agent and a JNI library at once.
 *
 * The Java agent loads it with System.load; JNI_OnLoad takes a JVMTI environment from the JavaVM and enables
 * ThreadStart. The event is posted on the new thread before its run(), so a thread whose name matches a rule
 * pins itself with sched_setaffinity(0, ...) before it runs a line of its own code.
 *
 * Rules are installed from Java and replaced as a whole: readers take a reference to the current rule set
 * under a mutex held only for the pointer grab, so a swap never frees a set that a starting thread still uses.
 * Each rule rotates through its CPU sets with an atomic counter: its k-th match gets set k mod n.
 *
 * Masks are sized from cpu/possible, never from cpu_set_t's fixed 1024 bits, and each CPU set comes with its
 * cpulist text as CpuSet.toString() writes it: Java owns that format, the reports only repeat it. For
 * node=N,count=K the library also reads the topology and makes the plan (nsa_plan), so that premain loads no
 * topology or planner class; core's Java Planner stays the reference it is tested against.
 *
 * A thread that matches no rule costs the hook one JNI field read and the glob match, on a stack buffer: no
 * JVMTI call (GetThreadInfo allocates the name and two local references, and on JDK 21 and later also blocks
 * virtual-thread transitions while it reads), no malloc.
 */
#include <errno.h>
#include <fcntl.h>
#include <jni.h>
#include <jvmti.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define NSA_CLASS "io/numaspread/agent/NativeAgent"
#define NSA_REPORTS_CLASS "io/numaspread/agent/PinReports"
#define NSA_REPORT_CAPACITY 1024
#define NSA_NAME_LIMIT 256       /* bytes of a name kept in a report */
#define NSA_NAME_BUFFER 512      /* bytes of a name the hook reads onto its stack; longer names are malloc'd */

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

struct nsa_report {
    int error;
    pid_t tid;
    char *cpus;
    char *name;
};

static jvmtiEnv *nsa_jvmti;
static jfieldID nsa_thread_name;  /* java.lang.Thread.name; NULL on a JVM without it, then GetThreadInfo */
static pthread_mutex_t nsa_rules_lock = PTHREAD_MUTEX_INITIALIZER;
static struct nsa_rules *nsa_current;

/* The reports wait here for PinReports' thread, which parks in Java (a thread blocked in native code would
 * hold up JVM exit by 300 ms) and is woken through PinReports.wake() when the queue stops being empty. */
static jclass nsa_reports_class;
static jmethodID nsa_reports_wake;
static pthread_mutex_t nsa_report_lock = PTHREAD_MUTEX_INITIALIZER;
static struct nsa_report nsa_reports[NSA_REPORT_CAPACITY];
static size_t nsa_report_count;
static unsigned long nsa_reports_dropped;

/* ---- glob matching ------------------------------------------------------------------------------------ */

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
static const char *nsa_glob_problem(const char *glob) {
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
static int nsa_glob_matches(const char *glob, const char *name) {
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

/* ---- rule sets ---------------------------------------------------------------------------------------- */

static void nsa_rules_free(struct nsa_rules *rules) {
    if (rules == NULL) {
        return;
    }
    for (size_t r = 0; r < rules->rule_count; r++) {
        struct nsa_rule *rule = &rules->rules[r];
        for (size_t g = 0; g < rule->glob_count; g++) {
            free(rule->globs[g]);
        }
        for (size_t s = 0; s < rule->set_count && rule->cpulists != NULL; s++) {
            free(rule->cpulists[s]);
        }
        free(rule->globs);
        free(rule->masks);
        free(rule->cpulists);
    }
    free(rules->rules);
    free(rules->started);
    if (pthread_mutex_destroy(&rules->started_lock) != 0) {
        abort();
    }
    free(rules);
}

static struct nsa_rules *nsa_rules_acquire(void) {
    if (pthread_mutex_lock(&nsa_rules_lock) != 0) {
        return NULL;
    }
    struct nsa_rules *rules = nsa_current;
    if (rules != NULL) {
        atomic_fetch_add(&rules->refs, 1);
    }
    if (pthread_mutex_unlock(&nsa_rules_lock) != 0) {
        abort();
    }
    return rules;
}

static void nsa_rules_release(struct nsa_rules *rules) {
    if (rules != NULL && atomic_fetch_sub(&rules->refs, 1) == 1) {
        nsa_rules_free(rules);
    }
}

/* The first rule any of whose globs matches the name, or NULL. */
static struct nsa_rule *nsa_rule_for(struct nsa_rules *rules, const char *name) {
    for (size_t r = 0; r < rules->rule_count; r++) {
        for (size_t g = 0; g < rules->rules[r].glob_count; g++) {
            if (nsa_glob_matches(rules->rules[r].globs[g], name)) {
                return &rules->rules[r];
            }
        }
    }
    return NULL;
}

static pid_t nsa_gettid(void) {
    return (pid_t) syscall(SYS_gettid);
}

/* ---- reports: what was pinned where, drained by a Java thread ----------------------------------------- */

/* The length of name's first NSA_NAME_LIMIT bytes at most, never ending inside a multi-byte character. */
static size_t nsa_report_length(const char *name) {
    size_t length = strnlen(name, NSA_NAME_LIMIT + 1);
    if (length <= NSA_NAME_LIMIT) {
        return length;
    }
    length = NSA_NAME_LIMIT;
    while (length > 0 && ((unsigned char) name[length] & 0xC0) == 0x80) {
        length--;  /* name[length] continues the character that starts before it: cut before that start */
    }
    return length;
}

static void nsa_report(JNIEnv *jni, int error, pid_t tid, const char *cpus, const char *name) {
    char *cpus_copy = strdup(cpus);
    char *name_copy = strndup(name, nsa_report_length(name));
    if (pthread_mutex_lock(&nsa_report_lock) != 0) {
        free(cpus_copy);
        free(name_copy);
        return;
    }
    int was_empty = nsa_report_count == 0 && nsa_reports_dropped == 0;
    if (cpus_copy == NULL || name_copy == NULL || nsa_report_count == NSA_REPORT_CAPACITY) {
        free(cpus_copy);
        free(name_copy);
        nsa_reports_dropped++;
    } else {
        nsa_reports[nsa_report_count++] = (struct nsa_report) {error, tid, cpus_copy, name_copy};
    }
    if (pthread_mutex_unlock(&nsa_report_lock) != 0) {
        abort();
    }
    if (was_empty) {
        (*jni)->CallStaticVoidMethod(jni, nsa_reports_class, nsa_reports_wake);
        if ((*jni)->ExceptionCheck(jni)) {
            (*jni)->ExceptionClear(jni);
        }
    }
}

/* Pins thread tid (0: the caller) by its name's rule; returns 1 when pinned, 0 when no rule matched, or -errno. */
static int nsa_pin(JNIEnv *jni, struct nsa_rules *rules, pid_t tid, const char *name) {
    struct nsa_rule *rule = nsa_rule_for(rules, name);
    if (rule == NULL) {
        return 0;
    }
    size_t set = atomic_fetch_add(&rule->next, 1) % rule->set_count;
    const unsigned long *mask = rule->masks + set * rules->mask_words;
    int error = sched_setaffinity(tid, rules->mask_words * sizeof(unsigned long), (const cpu_set_t *) mask) == 0
            ? 0 : errno;
    if (error != 0 || rules->report_pins) {
        nsa_report(jni, error, tid == 0 ? nsa_gettid() : tid, rule->cpulists[set], name);
    }
    return error == 0 ? 1 : -error;
}

static void nsa_track_started(struct nsa_rules *rules, pid_t tid) {
    if (pthread_mutex_lock(&rules->started_lock) != 0) {
        return;
    }
    if (rules->tracking) {
        if (rules->started_count == rules->started_capacity) {
            size_t capacity = rules->started_capacity == 0 ? 64 : rules->started_capacity * 2;
            pid_t *grown = realloc(rules->started, capacity * sizeof(pid_t));
            if (grown != NULL) {
                rules->started = grown;
                rules->started_capacity = capacity;
            }
        }
        if (rules->started_count < rules->started_capacity) {
            rules->started[rules->started_count++] = tid;
        }
    }
    if (pthread_mutex_unlock(&rules->started_lock) != 0) {
        abort();
    }
}

/* Matches and pins the starting thread by name, and tracks it for a dynamic attach when it matched. */
static void nsa_pin_started(JNIEnv *jni, struct nsa_rules *rules, const char *name) {
    if (nsa_pin(jni, rules, 0, name) != 0) {
        nsa_track_started(rules, nsa_gettid());
    }
}

/* The name through JVMTI, for a JVM whose Thread has no "name" field. */
static void nsa_pin_started_by_thread_info(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread, struct nsa_rules *rules) {
    jvmtiThreadInfo info;
    if ((*jvmti)->GetThreadInfo(jvmti, thread, &info) != JVMTI_ERROR_NONE) {
        return;
    }
    if (info.thread_group != NULL) {
        (*jni)->DeleteLocalRef(jni, info.thread_group);
    }
    if (info.context_class_loader != NULL) {
        (*jni)->DeleteLocalRef(jni, info.context_class_loader);
    }
    if (info.name != NULL) {
        nsa_pin_started(jni, rules, info.name);
        if ((*jvmti)->Deallocate(jvmti, (unsigned char *) info.name) != JVMTI_ERROR_NONE) {
            nsa_report(jni, EFAULT, nsa_gettid(), "", "(JVMTI Deallocate failed)");
        }
    }
}

static void JNICALL nsa_on_thread_start(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread) {
    struct nsa_rules *rules = nsa_rules_acquire();
    if (rules == NULL) {
        return;
    }
    if (nsa_thread_name == NULL) {
        nsa_pin_started_by_thread_info(jvmti, jni, thread, rules);
        nsa_rules_release(rules);
        return;
    }
    jstring name = (jstring) (*jni)->GetObjectField(jni, thread, nsa_thread_name);
    if (name != NULL) {
        char buffer[NSA_NAME_BUFFER];
        jsize utf_length = (*jni)->GetStringUTFLength(jni, name);
        char *text = utf_length < 0 ? NULL
                : (size_t) utf_length < sizeof buffer ? buffer : malloc((size_t) utf_length + 1);
        if (text != NULL) {
            (*jni)->GetStringUTFRegion(jni, name, 0, (*jni)->GetStringLength(jni, name), text);
            text[utf_length] = '\0';
            if (!(*jni)->ExceptionCheck(jni)) {
                nsa_pin_started(jni, rules, text);
            }
            if (text != buffer) {
                free(text);
            }
        }
        (*jni)->ExceptionClear(jni);
        (*jni)->DeleteLocalRef(jni, name);
    }
    nsa_rules_release(rules);
}

/* ---- JNI ---------------------------------------------------------------------------------------------- */

static void nsa_throw(JNIEnv *env, const char *class_name, const char *message) {
    jclass type = (*env)->FindClass(env, class_name);
    if (type != NULL && (*env)->ThrowNew(env, type, message) != 0) {
        (*env)->FatalError(env, "numaspread agent: cannot throw");
    }
}

/* Copies a Java string to a malloc'd modified-UTF-8 C string; NULL with an exception pending on failure. */
static char *nsa_utf(JNIEnv *env, jstring text) {
    if (text == NULL) {
        nsa_throw(env, "java/lang/NullPointerException", "null string");
        return NULL;
    }
    const char *chars = (*env)->GetStringUTFChars(env, text, NULL);
    if (chars == NULL) {
        return NULL;
    }
    char *copy = strdup(chars);
    (*env)->ReleaseStringUTFChars(env, text, chars);
    if (copy == NULL) {
        nsa_throw(env, "java/lang/OutOfMemoryError", "numaspread agent: copying a string");
    }
    return copy;
}

/* NativeAgent.globProblem(String): null when the glob is well-formed, else why not. */
static jstring JNICALL nsa_jni_glob_problem(JNIEnv *env, jclass type, jstring glob) {
    (void) type;
    char *text = nsa_utf(env, glob);
    if (text == NULL) {
        return NULL;
    }
    const char *problem = nsa_glob_problem(text);
    free(text);
    return problem == NULL ? NULL : (*env)->NewStringUTF(env, problem);
}

static int nsa_fill_rule(JNIEnv *env, struct nsa_rule *rule, jobjectArray globs, jlongArray masks,
        jobjectArray cpulists, size_t words) {
    jsize glob_count = (*env)->GetArrayLength(env, globs);
    jsize mask_length = (*env)->GetArrayLength(env, masks);
    if (glob_count < 1 || mask_length < 1 || (size_t) mask_length % words != 0
            || (size_t) (*env)->GetArrayLength(env, cpulists) != (size_t) mask_length / words) {
        nsa_throw(env, "java/lang/IllegalArgumentException", "a rule needs globs, whole masks and their cpulists");
        return 0;
    }
    rule->set_count = (size_t) mask_length / words;
    rule->globs = calloc((size_t) glob_count, sizeof(char *));
    rule->masks = calloc((size_t) mask_length, sizeof(unsigned long));
    rule->cpulists = calloc(rule->set_count, sizeof(char *));
    if (rule->globs == NULL || rule->masks == NULL || rule->cpulists == NULL) {
        nsa_throw(env, "java/lang/OutOfMemoryError", "numaspread agent: rules");
        return 0;
    }
    for (jsize g = 0; g < glob_count; g++) {
        jstring glob = (jstring) (*env)->GetObjectArrayElement(env, globs, g);
        if ((*env)->ExceptionCheck(env)) {
            return 0;
        }
        rule->globs[g] = nsa_utf(env, glob);
        (*env)->DeleteLocalRef(env, glob);
        if (rule->globs[g] == NULL) {
            return 0;
        }
        rule->glob_count++;
        const char *problem = nsa_glob_problem(rule->globs[g]);
        if (problem != NULL) {
            nsa_throw(env, "java/lang/IllegalArgumentException", problem);
            return 0;
        }
    }
    jlong *elements = (*env)->GetLongArrayElements(env, masks, NULL);
    if (elements == NULL) {
        return 0;
    }
    for (jsize i = 0; i < mask_length; i++) {
        rule->masks[i] = (unsigned long) elements[i];
    }
    (*env)->ReleaseLongArrayElements(env, masks, elements, JNI_ABORT);
    for (size_t s = 0; s < rule->set_count; s++) {
        jstring cpulist = (jstring) (*env)->GetObjectArrayElement(env, cpulists, (jsize) s);
        if ((*env)->ExceptionCheck(env)) {
            return 0;
        }
        rule->cpulists[s] = nsa_utf(env, cpulist);
        (*env)->DeleteLocalRef(env, cpulist);
        if (rule->cpulists[s] == NULL) {
            return 0;
        }
    }
    atomic_init(&rule->next, 0);
    return 1;
}

/*
 * NativeAgent.install(String[][] globs, long[][] masks, String[][] cpulists, int maskWords, boolean reportPins,
 * boolean trackStarts): replaces the rules. Rule r matches any of globs[r] and rotates over masks[r], maskWords
 * words per CPU set, which cpulists[r] names. Without reportPins only failed pins are reported, so a pin that
 * holds costs its thread no allocation and wakes no other thread.
 */
static void JNICALL nsa_jni_install(JNIEnv *env, jclass type, jobjectArray globs, jobjectArray masks,
        jobjectArray cpulists, jint mask_words, jboolean report_pins, jboolean track_starts) {
    (void) type;
    jsize rule_count = (*env)->GetArrayLength(env, globs);
    if (mask_words < 1 || rule_count != (*env)->GetArrayLength(env, masks)
            || rule_count != (*env)->GetArrayLength(env, cpulists)) {
        nsa_throw(env, "java/lang/IllegalArgumentException", "globs, masks and cpulists differ in length");
        return;
    }
    struct nsa_rules *rules = calloc(1, sizeof *rules);
    if (rules == NULL) {
        nsa_throw(env, "java/lang/OutOfMemoryError", "numaspread agent: rules");
        return;
    }
    if (pthread_mutex_init(&rules->started_lock, NULL) != 0) {
        free(rules);
        nsa_throw(env, "java/lang/IllegalStateException", "numaspread agent: pthread_mutex_init failed");
        return;
    }
    atomic_init(&rules->refs, 1);
    rules->mask_words = (size_t) mask_words;
    rules->tracking = track_starts == JNI_TRUE;
    rules->report_pins = report_pins == JNI_TRUE;
    rules->rules = calloc(rule_count > 0 ? (size_t) rule_count : 1, sizeof(struct nsa_rule));
    if (rules->rules == NULL) {
        nsa_rules_free(rules);
        nsa_throw(env, "java/lang/OutOfMemoryError", "numaspread agent: rules");
        return;
    }
    for (jsize r = 0; r < rule_count; r++) {
        jobjectArray rule_globs = (jobjectArray) (*env)->GetObjectArrayElement(env, globs, r);
        jlongArray rule_masks = rule_globs == NULL ? NULL : (jlongArray) (*env)->GetObjectArrayElement(env, masks, r);
        jobjectArray rule_cpulists = rule_masks == NULL ? NULL
                : (jobjectArray) (*env)->GetObjectArrayElement(env, cpulists, r);
        int filled = rule_cpulists != NULL
                && nsa_fill_rule(env, &rules->rules[r], rule_globs, rule_masks, rule_cpulists, rules->mask_words);
        rules->rule_count++;
        (*env)->DeleteLocalRef(env, rule_globs);
        (*env)->DeleteLocalRef(env, rule_masks);
        (*env)->DeleteLocalRef(env, rule_cpulists);
        if (!filled) {
            if (!(*env)->ExceptionCheck(env)) {
                nsa_throw(env, "java/lang/NullPointerException", "null rule");
            }
            nsa_rules_free(rules);
            return;
        }
    }
    if (pthread_mutex_lock(&nsa_rules_lock) != 0) {
        nsa_rules_free(rules);
        nsa_throw(env, "java/lang/IllegalStateException", "numaspread agent: pthread_mutex_lock failed");
        return;
    }
    struct nsa_rules *old = nsa_current;
    nsa_current = rule_count > 0 ? rules : NULL;
    if (pthread_mutex_unlock(&nsa_rules_lock) != 0) {
        abort();
    }
    if (rule_count == 0) {
        nsa_rules_release(rules);
    }
    nsa_rules_release(old);
}

static int nsa_contains(const pid_t *tids, size_t count, pid_t tid) {
    for (size_t i = 0; i < count; i++) {
        if (tids[i] == tid) {
            return 1;
        }
    }
    return 0;
}

/*
 * Whether tid is a thread of this process. The TIDs of running threads come from the JVM's thread dump, read
 * from Java: whatever went wrong there, this library never calls sched_setaffinity on another process.
 */
static int nsa_own_thread(pid_t tid) {
    char path[64];
    int length = snprintf(path, sizeof path, "/proc/self/task/%d", (int) tid);
    /* access, not stat: glibc 2.33 made stat a symbol of its own, and the library needs glibc 2.14 at most. */
    return tid > 0 && length > 0 && (size_t) length < sizeof path && access(path, F_OK) == 0;
}

/*
 * NativeAgent.pinRunning(int[] tids, String[] names): pins threads that were running before the rules were
 * installed, skipping those pinned at their start and any TID that is no thread of this process, and ends the
 * tracking of starts. Returns how many matched, or -1 when a TID was refused.
 */
static jint JNICALL nsa_jni_pin_running(JNIEnv *env, jclass type, jintArray tids, jobjectArray names) {
    (void) type;
    jsize count = (*env)->GetArrayLength(env, tids);
    if (count != (*env)->GetArrayLength(env, names)) {
        nsa_throw(env, "java/lang/IllegalArgumentException", "tids and names differ in length");
        return 0;
    }
    struct nsa_rules *rules = nsa_rules_acquire();
    if (rules == NULL) {
        return 0;
    }
    jint matched = 0;
    int refused = 0;
    jint *tid_values = (*env)->GetIntArrayElements(env, tids, NULL);
    if (tid_values != NULL && pthread_mutex_lock(&rules->started_lock) == 0) {
        rules->tracking = 0;
        if (pthread_mutex_unlock(&rules->started_lock) != 0) {
            abort();
        }
        for (jsize i = 0; i < count && !(*env)->ExceptionCheck(env); i++) {
            if (nsa_contains(rules->started, rules->started_count, (pid_t) tid_values[i])) {
                continue;
            }
            if (!nsa_own_thread((pid_t) tid_values[i])) {
                refused = 1;
                continue;
            }
            jstring name = (jstring) (*env)->GetObjectArrayElement(env, names, i);
            char *text = name == NULL ? NULL : nsa_utf(env, name);
            (*env)->DeleteLocalRef(env, name);
            if (text != NULL) {
                matched += nsa_pin(env, rules, (pid_t) tid_values[i], text) != 0;
                free(text);
            }
        }
    }
    if (tid_values != NULL) {
        (*env)->ReleaseIntArrayElements(env, tids, tid_values, JNI_ABORT);
    }
    nsa_rules_release(rules);
    return refused ? -1 : matched;
}

/* NativeAgent.allThreads(): the live platform threads, from JVMTI GetAllThreads. */
static jobjectArray JNICALL nsa_jni_all_threads(JNIEnv *env, jclass type) {
    (void) type;
    jint count = 0;
    jthread *threads = NULL;
    if ((*nsa_jvmti)->GetAllThreads(nsa_jvmti, &count, &threads) != JVMTI_ERROR_NONE) {
        nsa_throw(env, "java/lang/IllegalStateException", "numaspread agent: JVMTI GetAllThreads failed");
        return NULL;
    }
    jclass thread_class = (*env)->FindClass(env, "java/lang/Thread");
    jobjectArray result = thread_class == NULL ? NULL : (*env)->NewObjectArray(env, count, thread_class, NULL);
    for (jint i = 0; i < count; i++) {
        if (result != NULL && !(*env)->ExceptionCheck(env)) {
            (*env)->SetObjectArrayElement(env, result, i, threads[i]);
        }
        (*env)->DeleteLocalRef(env, threads[i]);
    }
    if ((*nsa_jvmti)->Deallocate(nsa_jvmti, (unsigned char *) threads) != JVMTI_ERROR_NONE
            && !(*env)->ExceptionCheck(env)) {
        nsa_throw(env, "java/lang/IllegalStateException", "numaspread agent: JVMTI Deallocate failed");
    }
    return (*env)->ExceptionCheck(env) ? NULL : result;
}

/*
 * NativeAgent.takeReports(): takes the pins reported so far, one string each, without waiting:
 * "errno\tstrerror\ttid\tcpulist\tname" (errno 0: pinned). A first entry "-1\t\t\t\tN" says N were dropped.
 */
static jobjectArray JNICALL nsa_jni_take_reports(JNIEnv *env, jclass type) {
    (void) type;
    struct nsa_report taken[NSA_REPORT_CAPACITY];
    if (pthread_mutex_lock(&nsa_report_lock) != 0) {
        nsa_throw(env, "java/lang/IllegalStateException", "numaspread agent: pthread_mutex_lock failed");
        return NULL;
    }
    size_t count = nsa_report_count;
    unsigned long dropped = nsa_reports_dropped;
    memcpy(taken, nsa_reports, count * sizeof(struct nsa_report));
    nsa_report_count = 0;
    nsa_reports_dropped = 0;
    if (pthread_mutex_unlock(&nsa_report_lock) != 0) {
        abort();
    }
    size_t first = dropped > 0 ? 1 : 0;
    jclass string_class = (*env)->FindClass(env, "java/lang/String");
    jobjectArray result = string_class == NULL ? NULL
            : (*env)->NewObjectArray(env, (jsize) (count + first), string_class, NULL);
    for (size_t i = 0; i < count + first && result != NULL && !(*env)->ExceptionCheck(env); i++) {
        char error_buffer[128];
        const char *error_text = "";
        char *line;
        int length;
        if (first && i == 0) {
            length = asprintf(&line, "-1\t\t\t\t%lu", dropped);
        } else {
            struct nsa_report *report = &taken[i - first];
            if (report->error != 0) {
                error_text = strerror_r(report->error, error_buffer, sizeof error_buffer);
            }
            length = asprintf(&line, "%d\t%s\t%d\t%s\t%s", report->error, error_text, (int) report->tid,
                    report->cpus, report->name);
        }
        if (length < 0) {
            nsa_throw(env, "java/lang/OutOfMemoryError", "numaspread agent: report");
            break;
        }
        jstring text = (*env)->NewStringUTF(env, line);
        free(line);
        if (text == NULL) {
            break;
        }
        (*env)->SetObjectArrayElement(env, result, (jsize) i, text);
        (*env)->DeleteLocalRef(env, text);
    }
    for (size_t i = 0; i < count; i++) {
        free(taken[i].cpus);
        free(taken[i].name);
    }
    return (*env)->ExceptionCheck(env) ? NULL : result;
}

/*
 * NativeAgent.open/read/write/close: libc's calls on the kernel's control files for irqs=apply, each returning
 * what the C call returns, or minus the errno that the call itself left (LibcKernelFiles.Calls). The agent
 * jar carries neither JNA nor the FFM overlay, and Java's file API words a failure only in the user's language:
 * a kernel-managed IRQ's EIO must be told by its number.
 */
static jint JNICALL nsa_jni_open(JNIEnv *env, jclass type, jbyteArray path, jboolean for_writing,
        jboolean truncate) {
    (void) type;
    jsize length = (*env)->GetArrayLength(env, path);
    jbyte *bytes = (*env)->GetByteArrayElements(env, path, NULL);
    if (bytes == NULL) {
        return -ENOMEM;
    }
    int flags = O_CLOEXEC | O_NOCTTY | (for_writing ? O_WRONLY | (truncate ? O_TRUNC : 0) : O_RDONLY);
    int fd = length > 0 && bytes[length - 1] == 0 ? open((const char *) bytes, flags) : (errno = EINVAL, -1);
    int error = errno;
    (*env)->ReleaseByteArrayElements(env, path, bytes, JNI_ABORT);
    return fd < 0 ? -error : fd;
}

static jlong JNICALL nsa_jni_read(JNIEnv *env, jclass type, jint fd, jbyteArray buffer, jint length) {
    (void) type;
    if (length < 0 || length > (*env)->GetArrayLength(env, buffer)) {
        return -EINVAL;
    }
    char chunk[4096];
    ssize_t got = read(fd, chunk, (size_t) length < sizeof chunk ? (size_t) length : sizeof chunk);
    if (got < 0) {
        return -errno;
    }
    (*env)->SetByteArrayRegion(env, buffer, 0, (jsize) got, (const jbyte *) chunk);
    return (*env)->ExceptionCheck(env) ? -EFAULT : (jlong) got;
}

static jlong JNICALL nsa_jni_write(JNIEnv *env, jclass type, jint fd, jbyteArray buffer, jint length) {
    (void) type;
    if (length < 0 || length > (*env)->GetArrayLength(env, buffer)) {
        return -EINVAL;
    }
    jbyte *bytes = (*env)->GetByteArrayElements(env, buffer, NULL);
    if (bytes == NULL) {
        return -ENOMEM;
    }
    /* One write(2): the kernel parses each write of a control file on its own. */
    ssize_t written = write(fd, bytes, (size_t) length);
    int error = errno;
    (*env)->ReleaseByteArrayElements(env, buffer, bytes, JNI_ABORT);
    return written < 0 ? -error : (jlong) written;
}

static jint JNICALL nsa_jni_close(JNIEnv *env, jclass type, jint fd) {
    (void) env;
    (void) type;
    return close(fd) < 0 ? -errno : 0;
}

/* ---- Planning the agent's threads (node=N,count=K) ------------------------------------------------------ */
/*
 * premain's plan for node=N,count=K, made here so that the JVM loads no topology or planner class before main.
 * It reads the same sysfs files as io.numaspread.topology.TopologyDiscovery and lays out the same order as
 * io.numaspread.plan.Planner (one origin, the kernel policy, purpose threads), which stays the reference:
 * PlanDifferentialTest requires identical assignments over every fixture topology. Anything unusual (a file
 * missing or malformed, no candidate CPU, an unknown node) makes it plan nothing, and Java plans instead and
 * names the culprit as it always did.
 */

#define NSA_NODE_BITS 65536  /* CpuSet.MAX_CPUS, which also bounds node ids in Java */

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

static int nsa_bit(const unsigned long *set, size_t cpu) {
    return (int) ((set[cpu / (8 * sizeof(unsigned long))] >> (cpu % (8 * sizeof(unsigned long)))) & 1UL);
}

static void nsa_set_bit(unsigned long *set, size_t cpu) {
    set[cpu / (8 * sizeof(unsigned long))] |= 1UL << (cpu % (8 * sizeof(unsigned long)));
}

/* A whole small file from under root, its trailing whitespace stripped; NULL when it cannot be read. */
static char *nsa_read_text(const char *root, const char *relative) {
    char path[4096];
    int length = snprintf(path, sizeof path, "%s/%s", root, relative);
    if (length < 0 || (size_t) length >= sizeof path) {
        return NULL;
    }
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        return NULL;
    }
    size_t capacity = 4096, used = 0;
    char *text = malloc(capacity);
    while (text != NULL) {
        if (used + 1 == capacity) {
            char *bigger = realloc(text, capacity * 2);
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
    if (close(fd) != 0 && text != NULL) {
        free(text);
        return NULL;
    }
    if (text != NULL) {
        while (used > 0 && (text[used - 1] == '\n' || text[used - 1] == ' ' || text[used - 1] == '\t')) {
            used--;
        }
        text[used] = '\0';
    }
    return text;
}

static int nsa_exists(const char *root, const char *relative) {
    char path[4096];
    int length = snprintf(path, sizeof path, "%s/%s", root, relative);
    return length >= 0 && (size_t) length < sizeof path && access(path, F_OK) == 0;
}

static const char *nsa_skip_blanks(const char *p) {
    while (*p == ' ' || *p == '\t' || *p == '\n') {
        p++;
    }
    return p;
}

/* A decimal number below limit; NULL when there is none. */
static const char *nsa_number(const char *p, long limit, long *value) {
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

/* A cpulist as CpuSet.parse reads it (ranges, strides, blanks around elements) into set, every CPU below bits;
 * 0, or -1 when it is malformed or names a CPU at or beyond bits. */
static int nsa_parse_cpulist(const char *text, unsigned long *set, size_t bits) {
    const char *p = nsa_skip_blanks(text);
    if (*p == '\0') {
        return 0;
    }
    for (;;) {
        long from, to, used = 1, group = 1;
        p = nsa_number(nsa_skip_blanks(p), (long) bits, &from);
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
        p = nsa_skip_blanks(p);
        if (*p == '\0') {
            return 0;
        }
        if (*p != ',') {
            return -1;
        }
        p++;
    }
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

static void nsa_topology_free(struct nsa_topology *t) {
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
static int nsa_topology_read(const char *root, struct nsa_topology *t) {
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

/*
 * NativeAgent.planThreads(String sysfsRoot, String allowed, int node, int count, boolean oneCpu): the masks of
 * the plan (count masks of (cpu/possible's last CPU + 64) / 64 words), or null when Java must plan instead.
 * allowed is a cpulist, or null for this process's affinity on the live tree and every online CPU elsewhere.
 */
static jlongArray JNICALL nsa_jni_plan_threads(JNIEnv *env, jclass type, jstring sysfs_root, jstring allowed_text,
        jint origin, jint count, jboolean one_cpu) {
    (void) type;
    if (count < 1) {
        return NULL;
    }
    char *root = nsa_utf(env, sysfs_root);
    if (root == NULL) {
        return NULL;
    }
    char *allowed_list = allowed_text == NULL ? NULL : nsa_utf(env, allowed_text);
    struct nsa_topology t;
    if ((allowed_text != NULL && allowed_list == NULL) || nsa_topology_read(root, &t) != 0) {
        free(root);
        free(allowed_list);
        return NULL;
    }
    jlongArray result = NULL;
    unsigned long *allowed = calloc(t.words, sizeof(unsigned long));
    /* More words than a Java array holds: Java's plan then fails as it always did. */
    unsigned long *masks = (size_t) count * t.words <= INT32_MAX
            ? calloc((size_t) count * t.words, sizeof(unsigned long)) : NULL;
    int ok = allowed != NULL && masks != NULL;
    if (ok && allowed_list != NULL) {
        ok = nsa_parse_cpulist(allowed_list, allowed, t.bits) == 0;
    } else if (ok && strcmp(root, "/sys") == 0) {
        /* The process's first thread, as TopologyDiscovery.processAllowed reads it. */
        ok = sched_getaffinity(getpid(), t.words * sizeof(unsigned long), (cpu_set_t *) allowed) == 0;
    } else if (ok) {
        memcpy(allowed, t.online, t.words * sizeof(unsigned long));
    }
    if (ok && nsa_plan(&t, allowed, origin, (size_t) count, one_cpu, masks) == 0) {
        jsize length = (jsize) ((size_t) count * t.words);
        result = (*env)->NewLongArray(env, length);
        if (result != NULL) {
            (*env)->SetLongArrayRegion(env, result, 0, length, (const jlong *) masks);
        }
    }
    free(allowed);
    free(masks);
    nsa_topology_free(&t);
    free(root);
    free(allowed_list);
    return result;
}

static const JNINativeMethod nsa_methods[] = {
    {"globProblem", "(Ljava/lang/String;)Ljava/lang/String;", (void *) nsa_jni_glob_problem},
    {"install", "([[Ljava/lang/String;[[J[[Ljava/lang/String;IZZ)V", (void *) nsa_jni_install},
    {"pinRunning", "([I[Ljava/lang/String;)I", (void *) nsa_jni_pin_running},
    {"allThreads", "()[Ljava/lang/Thread;", (void *) nsa_jni_all_threads},
    {"takeReports", "()[Ljava/lang/String;", (void *) nsa_jni_take_reports},
    {"open", "([BZZ)I", (void *) nsa_jni_open},
    {"read", "(I[BI)J", (void *) nsa_jni_read},
    {"write", "(I[BI)J", (void *) nsa_jni_write},
    {"close", "(I)I", (void *) nsa_jni_close},
    {"planThreads", "(Ljava/lang/String;Ljava/lang/String;IIZ)[J", (void *) nsa_jni_plan_threads},
};

JNIEXPORT jint JNICALL JNI_OnLoad(JavaVM *vm, void *reserved) {
    (void) reserved;
    JNIEnv *env;
    if ((*vm)->GetEnv(vm, (void **) &env, JNI_VERSION_1_8) != JNI_OK) {
        return JNI_ERR;
    }
    jclass type = (*env)->FindClass(env, NSA_CLASS);
    if (type == NULL) {
        return JNI_ERR;
    }
    if ((*env)->RegisterNatives(env, type, nsa_methods, (jint) (sizeof nsa_methods / sizeof nsa_methods[0])) != 0) {
        return JNI_ERR;
    }
    jclass reports = (*env)->FindClass(env, NSA_REPORTS_CLASS);
    if (reports == NULL) {
        return JNI_ERR;
    }
    nsa_reports_class = (jclass) (*env)->NewGlobalRef(env, reports);
    nsa_reports_wake = (*env)->GetStaticMethodID(env, reports, "wake", "()V");
    if (nsa_reports_class == NULL || nsa_reports_wake == NULL) {
        return JNI_ERR;
    }
    jclass thread_class = (*env)->FindClass(env, "java/lang/Thread");
    if (thread_class == NULL) {
        return JNI_ERR;
    }
    nsa_thread_name = (*env)->GetFieldID(env, thread_class, "name", "Ljava/lang/String;");
    if (nsa_thread_name == NULL) {
        (*env)->ExceptionClear(env);  /* NoSuchFieldError: this JVM's Thread differs; GetThreadInfo will do */
    }
    if ((*vm)->GetEnv(vm, (void **) &nsa_jvmti, JVMTI_VERSION_1_2) != JNI_OK) {
        nsa_throw(env, "java/lang/UnsatisfiedLinkError", "numaspread agent: the JVM offers no JVMTI environment");
        return JNI_ERR;
    }
    jvmtiEventCallbacks callbacks;
    memset(&callbacks, 0, sizeof callbacks);
    callbacks.ThreadStart = nsa_on_thread_start;
    if ((*nsa_jvmti)->SetEventCallbacks(nsa_jvmti, &callbacks, (jint) sizeof callbacks) != JVMTI_ERROR_NONE
            || (*nsa_jvmti)->SetEventNotificationMode(nsa_jvmti, JVMTI_ENABLE, JVMTI_EVENT_THREAD_START, NULL)
                    != JVMTI_ERROR_NONE) {
        nsa_throw(env, "java/lang/UnsatisfiedLinkError", "numaspread agent: cannot enable JVMTI ThreadStart");
        return JNI_ERR;
    }
    return JNI_VERSION_1_8;
}
