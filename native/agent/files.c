/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <fcntl.h>
#include <jni.h>
#include <stddef.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "nsa.h"

/* fstat(2) by its system call: glibc 2.33 made fstat a symbol of its own, and the library needs glibc 2.14 at
 * most (NativeLibraryTest). On x86_64 and aarch64 glibc's struct stat is the kernel's (asm/stat.h), as the
 * assertions below hold where it matters: st_mode's place and the size. */
#if defined(__x86_64__)
_Static_assert(offsetof(struct stat, st_mode) == 24 && sizeof(struct stat) == 144, "struct stat is not the kernel's");
#elif defined(__aarch64__)
_Static_assert(offsetof(struct stat, st_mode) == 16 && sizeof(struct stat) == 128, "struct stat is not the kernel's");
#else
#error "the library is built for x86_64 and aarch64 only"
#endif
static int nsa_fstat(int fd, struct stat *status) {
    return syscall(SYS_fstat, fd, status) == 0 ? 0 : -1;
}

/*
 * Every kernel file this library opens (irqs=apply's control files, the sysfs topology) is opened so that a
 * tree another user prepared cannot turn a root write or read against a file of its choosing: O_NOFOLLOW refuses
 * a symbolic link in the last component (ELOOP); O_NONBLOCK keeps the open of a planted FIFO from waiting for its
 * other end, and fstat then refuses anything but a regular file (EINVAL), which every sysfs and procfs attribute
 * is. O_NONBLOCK is cleared again, so that reads and writes behave as they always did.
 */
int nsa_open_kernel_file(const char *path, int flags) {
    int fd = open(path, flags | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    if (fd < 0) {
        return -1;
    }
    struct stat status;
    int error = nsa_fstat(fd, &status) != 0 ? errno : S_ISREG(status.st_mode) ? 0 : EINVAL;
    int file_flags = error == 0 ? fcntl(fd, F_GETFL) : 0;
    if (error == 0 && (file_flags < 0 || fcntl(fd, F_SETFL, file_flags & ~O_NONBLOCK) != 0)) {
        error = errno;
    }
    if (error != 0) {
        (void) close(fd);  /* the failure reported is the first; nothing was read or written through fd */
        errno = error;
        return -1;
    }
    return fd;
}

static int nsa_is_kernel_whitespace(char c) {
    return c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/*
 * KernelText.meaning: a file means its bytes without trailing NULs and whitespace (some kernels pad with NULs)
 * and without leading whitespace. A NUL left inside ("0-1\0junk") is refused here, where the length is still
 * known: as a C string it would end the text early and read as "0-1", which Java refuses.
 */
char *nsa_kernel_text(char *bytes, size_t length) {
    while (length > 0 && (bytes[length - 1] == '\0' || nsa_is_kernel_whitespace(bytes[length - 1]))) {
        length--;
    }
    size_t start = 0;
    while (start < length && nsa_is_kernel_whitespace(bytes[start])) {
        start++;
    }
    if (memchr(bytes + start, '\0', length - start) != NULL) {
        return NULL;
    }
    bytes[length] = '\0';
    return bytes + start;
}

/*
 * NativeAgent.open/read/write/close: libc's calls on the kernel's control files for irqs=apply, each returning
 * what the C call returns, or minus the errno that the call itself left (LibcKernelFiles.Calls). The agent
 * jar carries neither JNA nor the FFM overlay, and Java's file API words a failure only in the user's language:
 * a kernel-managed IRQ's EIO must be told by its number. open is nsa_open_kernel_file's.
 */
jint JNICALL nsa_jni_open(JNIEnv *env, jclass type, jbyteArray path, jboolean for_writing,
        jboolean truncate) {
    (void) type;
    jsize length = (*env)->GetArrayLength(env, path);
    jbyte *bytes = (*env)->GetByteArrayElements(env, path, NULL);
    if (bytes == NULL) {
        return -ENOMEM;
    }
    int flags = for_writing ? O_WRONLY | (truncate ? O_TRUNC : 0) : O_RDONLY;
    int fd = length > 0 && bytes[length - 1] == 0 ? nsa_open_kernel_file((const char *) bytes, flags)
            : (errno = EINVAL, -1);
    int error = errno;
    (*env)->ReleaseByteArrayElements(env, path, bytes, JNI_ABORT);
    return fd < 0 ? -error : fd;
}

jlong JNICALL nsa_jni_read(JNIEnv *env, jclass type, jint fd, jbyteArray buffer, jint length) {
    (void) type;
    if (length < 0 || length > (*env)->GetArrayLength(env, buffer)) {
        return -EINVAL;
    }
    /* The size cap, by the file's offset: a regular file in a stand-in tree may be endless, and Java reads to
     * the end. One byte beyond NSA_MAX_FILE_BYTES is read, so that a file of exactly that size still ends. A
     * kernel file that cannot seek (ESPIPE) is small by nature. */
    off_t at = lseek(fd, 0, SEEK_CUR);
    if (at < 0 && errno != ESPIPE) {
        return -errno;
    }
    if (at > NSA_MAX_FILE_BYTES) {
        return -EFBIG;
    }
    char chunk[4096];
    size_t wanted = (size_t) length < sizeof chunk ? (size_t) length : sizeof chunk;
    if (at >= 0 && (size_t) (NSA_MAX_FILE_BYTES + 1 - at) < wanted) {
        wanted = (size_t) (NSA_MAX_FILE_BYTES + 1 - at);
    }
    ssize_t got = read(fd, chunk, wanted);
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
