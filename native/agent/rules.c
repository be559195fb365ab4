/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The rule sets: installed from Java and replaced as a whole. Readers take a reference to the current set under
 * a mutex held only for the pointer grab, so a swap never frees a set that a starting thread still uses.
 */
#include <jni.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "nsa.h"

static pthread_mutex_t nsa_rules_lock = PTHREAD_MUTEX_INITIALIZER;
static struct nsa_rules *nsa_current;

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

struct nsa_rules *nsa_rules_acquire(void) {
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

void nsa_rules_release(struct nsa_rules *rules) {
    if (rules != NULL && atomic_fetch_sub(&rules->refs, 1) == 1) {
        nsa_rules_free(rules);
    }
}

/* The first rule any of whose globs matches the name, or NULL. */
struct nsa_rule *nsa_rule_for(struct nsa_rules *rules, const char *name) {
    for (size_t r = 0; r < rules->rule_count; r++) {
        for (size_t g = 0; g < rules->rules[r].glob_count; g++) {
            if (nsa_glob_matches(rules->rules[r].globs[g], name)) {
                return &rules->rules[r];
            }
        }
    }
    return NULL;
}

/* NativeAgent.globProblem(String): null when the glob is well-formed, else why not. */
jstring JNICALL nsa_jni_glob_problem(JNIEnv *env, jclass type, jstring glob) {
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
void JNICALL nsa_jni_install(JNIEnv *env, jclass type, jobjectArray globs, jobjectArray masks,
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
