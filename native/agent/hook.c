/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The JVMTI side: the ThreadStart hook, which the JVM posts on the new thread before its run(), so that a thread
 * whose name matches a rule pins itself with sched_setaffinity(0, ...) before it runs a line of its own code;
 * and the list of live threads for a dynamic attach.
 *
 * A thread that matches no rule costs the hook one JNI field read and the glob match, on a stack buffer: no
 * JVMTI call (GetThreadInfo allocates the name and two local references, and on JDK 21 and later also blocks
 * virtual-thread transitions while it reads), no malloc.
 */
#include <errno.h>
#include <jni.h>
#include <jvmti.h>
#include <stdlib.h>
#include <string.h>

#include "nsa.h"

#define NSA_NAME_BUFFER 512      /* bytes of a name the hook reads onto its stack; longer names are malloc'd */

static jvmtiEnv *nsa_jvmti;
static jfieldID nsa_thread_name;  /* java.lang.Thread.name; NULL on a JVM without it, then GetThreadInfo */

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

/* NativeAgent.allThreads(): the live platform threads, from JVMTI GetAllThreads. */
jobjectArray JNICALL nsa_jni_all_threads(JNIEnv *env, jclass type) {
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

int nsa_hook_enable(JavaVM *vm, JNIEnv *env) {
    jclass thread_class = (*env)->FindClass(env, "java/lang/Thread");
    if (thread_class == NULL) {
        return -1;
    }
    nsa_thread_name = (*env)->GetFieldID(env, thread_class, "name", "Ljava/lang/String;");
    if (nsa_thread_name == NULL) {
        (*env)->ExceptionClear(env);  /* NoSuchFieldError: this JVM's Thread differs; GetThreadInfo will do */
    }
    if ((*vm)->GetEnv(vm, (void **) &nsa_jvmti, JVMTI_VERSION_1_2) != JNI_OK) {
        nsa_throw(env, "java/lang/UnsatisfiedLinkError", "numaspread agent: the JVM offers no JVMTI environment");
        return -1;
    }
    jvmtiEventCallbacks callbacks;
    memset(&callbacks, 0, sizeof callbacks);
    callbacks.ThreadStart = nsa_on_thread_start;
    if ((*nsa_jvmti)->SetEventCallbacks(nsa_jvmti, &callbacks, (jint) sizeof callbacks) != JVMTI_ERROR_NONE
            || (*nsa_jvmti)->SetEventNotificationMode(nsa_jvmti, JVMTI_ENABLE, JVMTI_EVENT_THREAD_START, NULL)
                    != JVMTI_ERROR_NONE) {
        nsa_throw(env, "java/lang/UnsatisfiedLinkError", "numaspread agent: cannot enable JVMTI ThreadStart");
        return -1;
    }
    return 0;
}
