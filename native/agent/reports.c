/* SPDX-License-Identifier: Apache-2.0 */
/* The reports of what was pinned where, queued by the pinning threads and drained by a Java thread. */
#include <jni.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nsa.h"

#define NSA_REPORTS_CLASS "io/numaspread/agent/PinReports"
#define NSA_REPORT_CAPACITY 1024
#define NSA_NAME_LIMIT 256       /* bytes of a name kept in a report */

struct nsa_report {
    int error;
    pid_t tid;
    char *cpus;
    char *name;
};

/* The reports wait here for PinReports' thread, which parks in Java (a thread blocked in native code would
 * hold up JVM exit by 300 ms) and is woken through PinReports.wake() when the queue stops being empty. */
static jclass nsa_reports_class;
static jmethodID nsa_reports_wake;
static pthread_mutex_t nsa_report_lock = PTHREAD_MUTEX_INITIALIZER;
static struct nsa_report nsa_reports[NSA_REPORT_CAPACITY];
static size_t nsa_report_count;
static unsigned long nsa_reports_dropped;

int nsa_reports_init(JNIEnv *env) {
    jclass reports = (*env)->FindClass(env, NSA_REPORTS_CLASS);
    if (reports == NULL) {
        return -1;
    }
    nsa_reports_class = (jclass) (*env)->NewGlobalRef(env, reports);
    nsa_reports_wake = (*env)->GetStaticMethodID(env, reports, "wake", "()V");
    return nsa_reports_class == NULL || nsa_reports_wake == NULL ? -1 : 0;
}

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

void nsa_report(JNIEnv *jni, int error, pid_t tid, const char *cpus, const char *name) {
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

/*
 * NativeAgent.takeReports(): takes the pins reported so far, one string each, without waiting:
 * "errno\tstrerror\ttid\tcpulist\tname" (errno 0: pinned). A first entry "-1\t\t\t\tN" says N were dropped.
 */
jobjectArray JNICALL nsa_jni_take_reports(JNIEnv *env, jclass type) {
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
