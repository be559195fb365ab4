// SPDX-License-Identifier: Apache-2.0
package io.numaspread.nativeaccess;

import com.sun.jna.LastErrorException;
import com.sun.jna.Library;
import com.sun.jna.Native;
import com.sun.jna.NativeLong;
import com.sun.jna.Pointer;
import io.numaspread.CpuSet;
import io.numaspread.internal.NumaSoname;
import io.numaspread.kernel.KernelFiles;
import io.numaspread.kernel.LibcKernelFiles;
import io.numaspread.kernel.ThreadScheduling;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;
import java.util.Optional;

/**
 * libc and libnuma through JNA, for JDK 17 to 22. JNA reads errno right after each call on the calling
 * thread ({@link LastErrorException}), so no errno is ever shared between threads.
 */
public final class JnaBackend implements NativeBackend {
    private final LibC libc;
    private final LibNuma numa;
    private final String numaUnavailableCause;
    private final int maskBits;

    private JnaBackend(LibC libc, LibNuma numa, String numaUnavailableCause, int maskBits) {
        this.libc = libc;
        this.numa = numa;
        this.numaUnavailableCause = numaUnavailableCause;
        this.maskBits = maskBits;
    }

    /** Loads libc and, if it can, libnuma by its soname; the mask size comes from {@code cpu/possible}. */
    static JnaBackend load(int maskBits) throws BackendUnavailableException {
        LibC libc;
        try {
            libc = Native.load("c", LibC.class);
        } catch (LinkageError e) {
            throw new BackendUnavailableException(BackendKind.JNA, "JNA cannot load libc: " + rootCause(e), e);
        }
        LibNuma numa = null;
        String cause;
        try {
            numa = Native.load(NumaSoname.VALUE, LibNuma.class);
            cause = numa.numa_available() == -1
                    ? "numa_available() returned -1: this kernel has no NUMA support"
                    : null;
        } catch (UnsatisfiedLinkError e) {
            cause = NumaSoname.VALUE + " cannot be loaded (install libnuma1): " + firstLine(e.getMessage());
        }
        return new JnaBackend(libc, cause == null ? numa : null, cause, maskBits);
    }

    /**
     * The innermost cause, with its class: when JNA's native dispatch cannot load (native access denied, a
     * noexec tmp), the error is an ExceptionInInitializerError or NoClassDefFoundError whose own message is
     * null or says nothing.
     */
    private static String rootCause(Throwable error) {
        Throwable root = error;
        while (root.getCause() != null) {
            root = root.getCause();
        }
        return firstLine(root.toString());
    }

    /**
     * JNA's load errors list every path it tried, one a line, after "Unable to load library 'x':"; that header
     * and the first attempt's error say why.
     */
    private static String firstLine(String message) {
        List<String> lines = message.lines().map(String::strip).toList();
        return lines.size() > 1 && lines.get(0).endsWith(":") ? lines.get(0) + " " + lines.get(1) : lines.get(0);
    }

    @Override
    public BackendKind kind() {
        return BackendKind.JNA;
    }

    @Override
    public Optional<String> numaUnavailableCause() {
        return Optional.ofNullable(numaUnavailableCause);
    }

    @Override
    public int maxNode() {
        return requireNuma().numa_max_node();
    }

    @Override
    public CpuSet nodeCpus(int node) {
        LibNuma lib = requireNuma();
        Pointer bitmask = lib.numa_allocate_cpumask();
        try {
            lib.numa_node_to_cpus(node, bitmask);
            long bits = bitmask.getNativeLong(0).longValue();
            Pointer words = bitmask.getPointer(NativeLong.SIZE);
            return CpuSet.fromMask(words.getLongArray(0, (int) ((bits + 63) / 64)));
        } catch (LastErrorException e) {
            throw failure("numa_node_to_cpus", e, "node " + node);
        } finally {
            lib.numa_bitmask_free(bitmask);
        }
    }

    @Override
    public int distance(int from, int to) {
        return requireNuma().numa_distance(from, to);
    }

    @Override
    public CpuSet affinity(int tid) {
        long[] mask = new long[(maskBits + 63) / 64];
        try {
            libc.sched_getaffinity(tid, new NativeLong(mask.length * 8L), mask);
        } catch (LastErrorException e) {
            throw failure("sched_getaffinity", e, "thread " + tid);
        }
        return CpuSet.fromMask(mask);
    }

    @Override
    public void setAffinity(int tid, CpuSet cpus) {
        long[] mask = cpus.toMask(maskBits);
        try {
            libc.sched_setaffinity(tid, new NativeLong(mask.length * 8L), mask);
        } catch (LastErrorException e) {
            throw failure("sched_setaffinity", e, "thread " + tid + " to CPUs " + cpus);
        }
    }

    @Override
    public ThreadScheduling scheduling(int tid) {
        int policy;
        int[] param = new int[1];
        try {
            policy = libc.sched_getscheduler(tid);
        } catch (LastErrorException e) {
            throw failure("sched_getscheduler", e, "thread " + tid);
        }
        try {
            libc.sched_getparam(tid, param);
        } catch (LastErrorException e) {
            throw failure("sched_getparam", e, "thread " + tid);
        }
        return SchedulingNumbers.scheduling(tid, policy, param[0]);
    }

    @Override
    public void setScheduling(int tid, ThreadScheduling scheduling) {
        try {
            libc.sched_setscheduler(tid, scheduling.policy().number(), new int[] {scheduling.priority()});
        } catch (LastErrorException e) {
            throw failure("sched_setscheduler", e, "thread " + tid + " to " + scheduling);
        }
    }

    @Override
    public int currentCpu() {
        try {
            return libc.sched_getcpu();
        } catch (LastErrorException e) {
            throw failure("sched_getcpu", e, "");
        }
    }

    @Override
    public int currentTid() {
        return libc.gettid();
    }

    @Override
    public int incomingCpu(int fd) {
        int[] cpu = {0};
        int[] length = {Integer.BYTES};
        try {
            libc.getsockopt(fd, SocketOption.SOL_SOCKET, SocketOption.SO_INCOMING_CPU, cpu, length);
        } catch (LastErrorException e) {
            throw failure("getsockopt", e, "SO_INCOMING_CPU of fd " + fd);
        }
        return cpu[0];
    }

    @Override
    public int incomingNapiId(int fd) {
        int[] napiId = {0};
        int[] length = {Integer.BYTES};
        try {
            libc.getsockopt(fd, SocketOption.SOL_SOCKET, SocketOption.SO_INCOMING_NAPI_ID, napiId, length);
        } catch (LastErrorException e) {
            throw failure("getsockopt", e, "SO_INCOMING_NAPI_ID of fd " + fd);
        }
        return napiId[0];
    }

    @Override
    public void setEpollBusyPoll(int epollFd, EpollBusyPoll params) {
        ByteBuffer struct = ByteBuffer.allocate(SocketOption.EPOLL_PARAMS_SIZE).order(ByteOrder.nativeOrder());
        struct.putInt(params.usecs()).putShort((short) params.budget()).put((byte) (params.preferBusyPoll() ? 1 : 0));
        try {
            libc.ioctl(epollFd, new NativeLong(SocketOption.EPIOCSPARAMS), struct.array());
        } catch (LastErrorException e) {
            throw failure("ioctl", e, "EPIOCSPARAMS " + params + " on epoll fd " + epollFd);
        }
    }

    @Override
    public EpollBusyPoll epollBusyPoll(int epollFd) {
        byte[] struct = new byte[SocketOption.EPOLL_PARAMS_SIZE];
        try {
            libc.ioctl(epollFd, new NativeLong(SocketOption.EPIOCGPARAMS), struct);
        } catch (LastErrorException e) {
            throw failure("ioctl", e, "EPIOCGPARAMS on epoll fd " + epollFd);
        }
        ByteBuffer read = ByteBuffer.wrap(struct).order(ByteOrder.nativeOrder());
        return new EpollBusyPoll(read.getInt(), Short.toUnsignedInt(read.getShort()), read.get() != 0);
    }

    @Override
    public IoUringNapi registerIoUringNapi(int ringFd, IoUringNapi settings) {
        return registerNapi(
                ringFd,
                IoUringAbi.napi(
                        IoUringAbi.NAPI_REGISTER_OP,
                        settings.busyPollUsecs(),
                        settings.preferBusyPoll(),
                        IoUringAbi.number(settings.tracking())),
                "IORING_REGISTER_NAPI " + settings);
    }

    @Override
    public IoUringNapi updateIoUringNapiId(int ringFd, int napiId, boolean add) {
        int opcode = add ? IoUringAbi.NAPI_STATIC_ADD_ID : IoUringAbi.NAPI_STATIC_DEL_ID;
        return registerNapi(
                ringFd,
                IoUringAbi.napi(opcode, 0, false, napiId),
                "IORING_REGISTER_NAPI " + (add ? "IO_URING_NAPI_STATIC_ADD_ID " : "IO_URING_NAPI_STATIC_DEL_ID ")
                        + napiId);
    }

    private IoUringNapi registerNapi(int ringFd, byte[] napi, String what) {
        try {
            libc.syscall(IoUringAbi.SYS_IO_URING_REGISTER, ringFd, IoUringAbi.IORING_REGISTER_NAPI, napi, 1);
        } catch (LastErrorException e) {
            throw failure("io_uring_register", e, what + " on ring fd " + ringFd);
        }
        return IoUringAbi.settings(napi);
    }

    @Override
    public void unregisterIoUringNapi(int ringFd) {
        byte[] napi = new byte[IoUringAbi.NAPI_SIZE];
        try {
            libc.syscall(IoUringAbi.SYS_IO_URING_REGISTER, ringFd, IoUringAbi.IORING_UNREGISTER_NAPI, napi, 1);
        } catch (LastErrorException e) {
            throw failure("io_uring_register", e, "IORING_UNREGISTER_NAPI on ring fd " + ringFd);
        }
    }

    /** libc's open, read, write and close; JNA reads each failure's errno right after the call, on its thread. */
    @Override
    public KernelFiles kernelFiles() {
        return new LibcKernelFiles(new LibcKernelFiles.Calls() {
            @Override
            public int open(byte[] nulTerminatedPath, boolean forWriting, boolean truncate) {
                try {
                    return libc.open(nulTerminatedPath, OpenFlags.kernelFile(forWriting, truncate));
                } catch (LastErrorException e) {
                    return -e.getErrorCode();
                }
            }

            @Override
            public long read(int fd, byte[] buffer, int length) {
                try {
                    return libc.read(fd, buffer, new NativeLong(length)).longValue();
                } catch (LastErrorException e) {
                    return -e.getErrorCode();
                }
            }

            @Override
            public long write(int fd, byte[] buffer, int length) {
                try {
                    return libc.write(fd, buffer, new NativeLong(length)).longValue();
                } catch (LastErrorException e) {
                    return -e.getErrorCode();
                }
            }

            @Override
            public int close(int fd) {
                try {
                    return libc.close(fd);
                } catch (LastErrorException e) {
                    return -e.getErrorCode();
                }
            }
        });
    }

    @Override
    public NetlinkFd openNetlink(int protocol, int groups) {
        int fd;
        try {
            fd = libc.socket(NetlinkAbi.AF_NETLINK, NetlinkAbi.SOCK_RAW | NetlinkAbi.SOCK_CLOEXEC, protocol);
        } catch (LastErrorException e) {
            throw failure("socket", e, "AF_NETLINK protocol " + protocol);
        }
        try {
            libc.bind(fd, NetlinkAbi.sockaddrNl(groups), NetlinkAbi.SOCKADDR_NL_SIZE);
        } catch (LastErrorException e) {
            // A failing close is added to bind's exception, never thrown in its place.
            NativeCallException bindFailure = failure("bind", e, "netlink protocol " + protocol + " groups " + groups);
            try {
                libc.close(fd);
            } catch (LastErrorException closeError) {
                bindFailure.addSuppressed(
                        failure("close", closeError, "netlink socket " + fd + " after its bind failed"));
            }
            throw bindFailure;
        }
        return new Netlink(fd);
    }

    /** A netlink socket whose calls go through JNA; errno comes with each call's {@link LastErrorException}. */
    private final class Netlink implements NetlinkFd {
        private final int fd;

        Netlink(int fd) {
            this.fd = fd;
        }

        @Override
        public int pollIn(int timeoutMillis) {
            try {
                return libc.poll(NetlinkAbi.pollfd(fd), new NativeLong(1), timeoutMillis);
            } catch (LastErrorException e) {
                throw failure("poll", e, "netlink socket");
            }
        }

        @Override
        public int recvInto(byte[] buffer) {
            try {
                return libc.recv(fd, buffer, new NativeLong(buffer.length), 0).intValue();
            } catch (LastErrorException e) {
                throw failure("recv", e, "netlink socket");
            }
        }

        @Override
        public int sendFrom(byte[] message) {
            try {
                return libc.send(fd, message, new NativeLong(message.length), 0).intValue();
            } catch (LastErrorException e) {
                throw failure("send", e, "netlink socket");
            }
        }

        @Override
        public void closeFd() {
            try {
                libc.close(fd);
            } catch (LastErrorException e) {
                // NetlinkFd#closeFd: Linux has released the descriptor even when close reports an error.
            }
        }
    }

    private LibNuma requireNuma() {
        if (numa == null) {
            throw new IllegalStateException("libnuma is not usable through JNA: " + numaUnavailableCause);
        }
        return numa;
    }

    private NativeCallException failure(String function, LastErrorException e, String detail) {
        int errno = e.getErrorCode();
        return new NativeCallException(function, errno, libc.strerror(errno), detail);
    }

    /** The libc functions we call; each that sets errno declares {@link LastErrorException}. */
    interface LibC extends Library {
        int sched_getaffinity(int pid, NativeLong cpusetsize, long[] mask) throws LastErrorException;

        int sched_setaffinity(int pid, NativeLong cpusetsize, long[] mask) throws LastErrorException;

        int sched_getcpu() throws LastErrorException;

        /** {@code struct sched_param} is one int, {@code sched_priority}, on Linux. */
        int sched_setscheduler(int pid, int policy, int[] param) throws LastErrorException;

        int sched_getscheduler(int pid) throws LastErrorException;

        int sched_getparam(int pid, int[] param) throws LastErrorException;

        int gettid();

        int getsockopt(int fd, int level, int optname, int[] optval, int[] optlen) throws LastErrorException;

        /** Variadic in C; its one pointer argument travels as a fixed one would on x86_64 and aarch64 Linux. */
        int ioctl(int fd, NativeLong request, byte[] argument) throws LastErrorException;

        /**
         * Variadic in C; numaspread passes {@code io_uring_register}'s four arguments, each in a register as a fixed
         * argument would be on x86_64 and aarch64 Linux, the integers widened to long as the kernel reads them.
         */
        long syscall(long number, long fd, long opcode, byte[] argument, long count) throws LastErrorException;

        String strerror(int errnum);

        /** Variadic in C; called without a mode, which only O_CREAT needs, as the ABI allows. */
        int open(byte[] path, int flags) throws LastErrorException;

        NativeLong read(int fd, byte[] buffer, NativeLong count) throws LastErrorException;

        NativeLong write(int fd, byte[] buffer, NativeLong count) throws LastErrorException;

        int close(int fd) throws LastErrorException;

        int socket(int domain, int type, int protocol) throws LastErrorException;

        int bind(int fd, byte[] address, int addressLength) throws LastErrorException;

        int poll(byte[] fds, NativeLong count, int timeoutMillis) throws LastErrorException;

        NativeLong recv(int fd, byte[] buffer, NativeLong length, int flags) throws LastErrorException;

        NativeLong send(int fd, byte[] buffer, NativeLong length, int flags) throws LastErrorException;
    }

    /** The libnuma functions we call. */
    interface LibNuma extends Library {
        int numa_available();

        int numa_max_node();

        int numa_distance(int from, int to);

        Pointer numa_allocate_cpumask();

        void numa_bitmask_free(Pointer bitmask);

        int numa_node_to_cpus(int node, Pointer bitmask) throws LastErrorException;
    }
}
