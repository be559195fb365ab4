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
 * Masks are sized by the Java side from cpu/possible, never from cpu_set_t's fixed 1024 bits, and each CPU set
 * comes with its cpulist text as CpuSet.toString() writes it: Java owns that format, the reports only repeat it.
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
