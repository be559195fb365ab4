// SPDX-License-Identifier: Apache-2.0
package io.numaspread.nativeaccess;

import io.numaspread.CpuSet;
import io.numaspread.kernel.KernelFiles;
import io.numaspread.kernel.ThreadScheduling;
import java.util.Optional;

/**
 * The one way numaspread reaches the kernel. {@link Backends} chooses the implementation, in one place.
 *
 * <p>FFM and JNA need only libc to pin threads; libnuma is optional for them. When it is missing,
 * {@link #numaUnavailableCause()} says why, and topology discovery takes the NUMA facts from sysfs instead.
 * The sysfs backend reads everything from files and cannot change affinity.
 *
 * <p>Implementations are thread-safe. errno is captured per call, on the calling thread.
 *
 * <p>The implementations, all in this package, are {@link JnaBackend}, {@link SysfsBackend} and, on JDK 23 and
 * newer, the FFM backend. That one implements {@code FfmBackend}, an interface that both the Java 17 base and the
 * multi-release jar's Java 23 overlay have, so that this interface can name it while only the overlay implements
 * it.
 */
public sealed interface NativeBackend permits FfmBackend, JnaBackend, SysfsBackend {

    BackendKind kind();

    /** Why this backend's NUMA calls cannot be used, or empty when they can. */
    Optional<String> numaUnavailableCause();

    /** {@code numa_max_node()}: the highest node number. */
    int maxNode();

    /** {@code numa_node_to_cpus()}: the CPUs of {@code node}. */
    CpuSet nodeCpus(int node);

    /** {@code numa_distance()}: the distance between two nodes, or 0 when the kernel does not know it. */
    int distance(int from, int to);

    /** {@code sched_getaffinity()}: the CPUs thread {@code tid} may run on; 0 means the calling thread. */
    CpuSet affinity(int tid);

    /**
     * {@code sched_setaffinity()}: restricts thread {@code tid} (0: the calling thread) to {@code cpus}.
     *
     * @throws UnsupportedOperationException on a backend that cannot change affinity
     */
    void setAffinity(int tid, CpuSet cpus);

    /**
     * {@code sched_getscheduler()} and {@code sched_getparam()}: thread {@code tid}'s (0: the calling thread's)
     * scheduling policy and priority.
     *
     * @throws NativeCallException with the call's errno ({@code ESRCH}: no such thread)
     * @throws io.numaspread.NumaspreadException (bad input) for a policy {@link ThreadScheduling} cannot hold
     *     (SCHED_DEADLINE)
     */
    ThreadScheduling scheduling(int tid);

    /**
     * {@code sched_setscheduler()}: sets thread {@code tid}'s (0: the calling thread's) policy and priority.
     *
     * @throws NativeCallException with the call's errno ({@code EPERM}: a real-time policy, or another user's
     *     thread, needs {@code CAP_SYS_NICE})
     * @throws UnsupportedOperationException on a backend that cannot call libc
     */
    void setScheduling(int tid, ThreadScheduling scheduling);

    /** {@code sched_getcpu()}: the CPU the calling thread runs on now. */
    int currentCpu();

    /** {@code gettid()}: the calling thread's Linux thread id. */
    int currentTid();

    /**
     * {@code getsockopt(fd, SOL_SOCKET, SO_INCOMING_CPU)}: the CPU that last handled a packet of socket
     * {@code fd} in the kernel, or -1 when none has been recorded yet.
     *
     * @throws UnsupportedOperationException on a backend that cannot call libc
     */
    int incomingCpu(int fd);

    /**
     * {@code getsockopt(fd, SOL_SOCKET, SO_INCOMING_NAPI_ID)}: the NAPI instance (hence the receive queue) that
     * last delivered a packet of socket {@code fd}, or 0 when none has, as for loopback, whose packets take no
     * NAPI instance.
     *
     * @throws UnsupportedOperationException on a backend that cannot call libc
     */
    int incomingNapiId(int fd);

    /**
     * {@code ioctl(epollFd, EPIOCSPARAMS)} (Linux 6.9+): sets epoll instance {@code epollFd}'s busy-poll
     * parameters. Before 6.9 the kernel answers {@code ENOTTY}.
     *
     * @throws NativeCallException with the call's errno
     * @throws UnsupportedOperationException on a backend that cannot call libc
     */
    void setEpollBusyPoll(int epollFd, EpollBusyPoll params);

    /**
     * {@code ioctl(epollFd, EPIOCGPARAMS)} (Linux 6.9+): epoll instance {@code epollFd}'s busy-poll parameters.
     *
     * @throws NativeCallException with the call's errno
     * @throws UnsupportedOperationException on a backend that cannot call libc
     */
    EpollBusyPoll epollBusyPoll(int epollFd);

    /**
     * {@code io_uring_register(ringFd, IORING_REGISTER_NAPI)} with {@code IO_URING_NAPI_REGISTER_OP} (Linux 6.9+;
     * tracking other than dynamic 6.13+): sets ring {@code ringFd}'s NAPI busy polling, emptying a static list.
     * A ring made with {@code IORING_SETUP_SINGLE_ISSUER} takes this only from its submitting thread.
     *
     * @return the settings in force before, as the kernel writes them back
     * @throws NativeCallException with the call's errno ({@code EINVAL}: before 6.9, a kernel without
     *     {@code CONFIG_NET_RX_BUSY_POLL}, or static tracking before 6.13; {@code EEXIST}: not the ring's
     *     submitting thread)
     * @throws UnsupportedOperationException on a backend that cannot call libc
     */
    IoUringNapi registerIoUringNapi(int ringFd, IoUringNapi settings);

    /**
     * {@code io_uring_register(ringFd, IORING_REGISTER_NAPI)} with {@code IO_URING_NAPI_STATIC_ADD_ID}, or
     * {@code IO_URING_NAPI_STATIC_DEL_ID} when not {@code add} (Linux 6.13+): adds NAPI instance {@code napiId} to,
     * or takes it from, the list a ring with static tracking polls.
     *
     * @return the ring's settings, as the kernel writes them back
     * @throws NativeCallException with the call's errno ({@code EINVAL}: the ring's tracking is not static;
     *     {@code EEXIST}: already added; {@code ENOENT}: no such NAPI instance, or not in the list)
     * @throws UnsupportedOperationException on a backend that cannot call libc
     */
    IoUringNapi updateIoUringNapiId(int ringFd, int napiId, boolean add);

    /**
     * {@code io_uring_register(ringFd, IORING_UNREGISTER_NAPI)} (Linux 6.9+): turns ring {@code ringFd}'s NAPI busy
     * polling off. Kernels before a 2026 fix keep a static list past this; take its IDs out first.
     *
     * @throws NativeCallException with the call's errno
     * @throws UnsupportedOperationException on a backend that cannot call libc
     */
    void unregisterIoUringNapi(int ringFd);

    /**
     * The kernel's control files (/proc/irq, xps_cpus) as this backend reaches them: through libc with each
     * failure's errno captured, or, for the sysfs backend, through Java's file API, whose failures tell only
     * EACCES, ENOENT and ENOTDIR apart (see {@link io.numaspread.kernel.Errno}).
     */
    KernelFiles kernelFiles();

    /**
     * Opens a netlink socket of {@code protocol} ({@code NETLINK_ROUTE}, {@code NETLINK_KOBJECT_UEVENT},
     * {@code NETLINK_GENERIC}) bound to the multicast {@code groups}: its descriptor's calls, which
     * {@code io.numaspread.netlink.NetlinkSocket} guards and speaks netlink through. The JDK has no netlink;
     * {@code watch} uses it to react to the kernel's events, NAPI discovery to ask the netdev family.
     *
     * @throws NativeCallException when {@code socket} or {@code bind} fails
     * @throws UnsupportedOperationException on a backend that cannot call libc (its callers poll instead)
     */
    NetlinkFd openNetlink(int protocol, int groups);
}
