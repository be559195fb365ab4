/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Pinning a thread by its name's rule: the starting thread from the ThreadStart hook, and for a dynamic attach
 * the threads that already ran. Each rule rotates through its CPU sets with an atomic counter: its k-th match
 * gets set k mod n.
 */
#include <errno.h>
#include <jni.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "nsa.h"

pid_t nsa_gettid(void) {
    return (pid_t) syscall(SYS_gettid);
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
void nsa_pin_started(JNIEnv *jni, struct nsa_rules *rules, const char *name) {
    if (nsa_pin(jni, rules, 0, name) != 0) {
        nsa_track_started(rules, nsa_gettid());
    }
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
jint JNICALL nsa_jni_pin_running(JNIEnv *env, jclass type, jintArray tids, jobjectArray names) {
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
