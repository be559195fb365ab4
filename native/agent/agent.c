/* SPDX-License-Identifier: Apache-2.0 */
/*
 * numaspread's agent library: a JVMTI agent and a JNI library at once.
 *
 * The Java agent loads it with System.load, or the JVM loads it for -agentpath and the Java agent binds it;
 * either way it takes a JVMTI environment from the JavaVM and enables ThreadStart. The event is posted on the new thread before its run(), so a thread whose name matches a rule
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
 * The library's files, by concern (nsa.h declares what they share; only JNI_OnLoad, Agent_OnLoad and
 * NativeAgent.bindAgentLibrary's JNI name are exported):
 *   agent.c     JNI_OnLoad and Agent_OnLoad, the table of NativeAgent's natives, JNI helpers
 *   hook.c      the JVMTI side: the ThreadStart hook, the live threads for a dynamic attach
 *   rules.c     the rule sets: install, swap, reference counts, the lookup by name
 *   glob.c      the thread-name globs
 *   pin.c       pinning by rule, at a thread's start and for a dynamic attach
 *   reports.c   the queue of pin reports that PinReports drains
 *   files.c     open/read/write/close for the kernel's control files (irqs=apply)
 *   cpulist.c   the cpulist parser and CPU masks
 *   topology.c  the sysfs topology reader
 *   plan.c      the C copy of Planner for node=N,count=K
 */
#include <jni.h>
#include <jvmti.h>
#include <string.h>

#include "nsa.h"

#define NSA_CLASS "io/numaspread/agent/NativeAgent"

void nsa_throw(JNIEnv *env, const char *class_name, const char *message) {
    jclass type = (*env)->FindClass(env, class_name);
    if (type != NULL && (*env)->ThrowNew(env, type, message) != 0) {
        (*env)->FatalError(env, "numaspread agent: cannot throw");
    }
}

/* Copies a Java string to a malloc'd modified-UTF-8 C string; NULL with an exception pending on failure. */
char *nsa_utf(JNIEnv *env, jstring text) {
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

/* Binds NativeAgent's natives and enables the ThreadStart hook: what either way of loading the library needs. */
static int nsa_bind(JavaVM *vm, JNIEnv *env, jclass type) {
    if ((*env)->RegisterNatives(env, type, nsa_methods, (jint) (sizeof nsa_methods / sizeof nsa_methods[0])) != 0) {
        return -1;
    }
    return nsa_reports_init(env) != 0 || nsa_hook_enable(vm, env) != 0 ? -1 : 0;
}

/* System.load, from the installed file or the jar's extracted copy. */
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
    return nsa_bind(vm, env, type) == 0 ? JNI_VERSION_1_8 : JNI_ERR;
}

/* Declared for -Wmissing-prototypes: jni.h has no prototype for a JNI name (jvmti.h declares Agent_OnLoad). */
JNIEXPORT jboolean JNICALL Java_io_numaspread_agent_NativeAgent_bindAgentLibrary(JNIEnv *env, jclass type);

/*
 * -agentpath:FILE: the JVM loads the library at its start, before any class, and calls this, which has nothing
 * to do yet (the rules come from the Java agent, which -javaagent must still name). The JVM calls no JNI_OnLoad
 * for an agent library, so the Java agent binds its natives through the function below instead of loading a
 * second copy.
 */
JNIEXPORT jint JNICALL Agent_OnLoad(JavaVM *vm, char *options, void *reserved) {
    (void) vm;
    (void) options;
    (void) reserved;
    return JNI_OK;
}

/*
 * NativeAgent.bindAgentLibrary(): HotSpot looks a native method that no System.load'ed library binds up in the
 * agent libraries too (-agentpath, -agentlib), so this is found only when this library was loaded that way;
 * otherwise the call throws UnsatisfiedLinkError and the Java agent loads the library itself.
 */
JNIEXPORT jboolean JNICALL Java_io_numaspread_agent_NativeAgent_bindAgentLibrary(JNIEnv *env, jclass type) {
    JavaVM *vm;
    if ((*env)->GetJavaVM(env, &vm) != 0) {
        return JNI_FALSE;
    }
    return nsa_bind(vm, env, type) == 0 ? JNI_TRUE : JNI_FALSE;
}
