/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <fcntl.h>
#include <jni.h>
#include <unistd.h>

#include "nsa.h"

/*
 * NativeAgent.open/read/write/close: libc's calls on the kernel's control files for irqs=apply, each returning
 * what the C call returns, or minus the errno that the call itself left (LibcKernelFiles.Calls). The agent
 * jar carries neither JNA nor the FFM overlay, and Java's file API words a failure only in the user's language:
 * a kernel-managed IRQ's EIO must be told by its number.
 */
jint JNICALL nsa_jni_open(JNIEnv *env, jclass type, jbyteArray path, jboolean for_writing,
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

jlong JNICALL nsa_jni_read(JNIEnv *env, jclass type, jint fd, jbyteArray buffer, jint length) {
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

jlong JNICALL nsa_jni_write(JNIEnv *env, jclass type, jint fd, jbyteArray buffer, jint length) {
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

jint JNICALL nsa_jni_close(JNIEnv *env, jclass type, jint fd) {
    (void) env;
    (void) type;
    return close(fd) < 0 ? -errno : 0;
}
