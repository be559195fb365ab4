// SPDX-License-Identifier: Apache-2.0
package io.numaspread.nativeaccess;

import io.numaspread.CpuSet;
import io.numaspread.internal.ffm.CallState;
import io.numaspread.internal.ffm.LibC;
import io.numaspread.internal.ffm.LibCStructs;
import io.numaspread.internal.ffm.LibNuma;
import io.numaspread.kernel.KernelFiles;
import io.numaspread.kernel.LibcKernelFiles;
import io.numaspread.kernel.ThreadScheduling;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Optional;

/**
 * libc and libnuma through the FFM API and the jextract bindings (JDK 23 and newer). Each thread has its own
 * {@link CallState}: errno is captured by the call into that thread's memory, and the CPU mask is reused, so
 * pinning the calling thread allocates no native memory.
 *
 * <p>Only in the overlay, and package-private: the overlay adds no public class that the base lacks
 * ({@code jar --validate}). {@link FfmBackend#load} makes it.
 */
final class BoundFfmBackend implements FfmBackend {
    private final int maskBits;
    private final Optional<String> numaUnavailableCause;
    private final ThreadLocal<CallState> callState;

    private BoundFfmBackend(int maskBits, Optional<String> numaUnavailableCause) {
        this.maskBits = maskBits;
        this.numaUnavailableCause = numaUnavailableCause;
        long maskBytes = (long) Math.max(1, (maskBits + Long.SIZE - 1) / Long.SIZE) * Long.BYTES;
        this.callState = ThreadLocal.withInitial(() -> new CallState(maskBytes));
    }

    /** Binds libc and, if it can, libnuma; masks hold {@code maskBits} CPUs, from {@code cpu/possible}. */
    static NativeBackend load(int maskBits) throws BackendUnavailableException {
        // A restricted call of our own first: with --illegal-native-access=deny, the bindings' static
        // initializers would otherwise fail with an ExceptionInInitializerError.
        try {
            Linker.nativeLinker().downcallHandle(FunctionDescriptor.of(ValueLayout.JAVA_INT));
        } catch (IllegalCallerException e) {
            Module module = BoundFfmBackend.class.getModule();
            throw new BackendUnavailableException(
                    BackendKind.FFM,
                    "native access is denied (run java with " + "--enable-native-access="
                            + (module.isNamed() ? module.getName() : "ALL-UNNAMED") + ")",
                    e);
        }
        Optional<String> missing = LibC.missingSymbol();
        if (missing.isPresent()) {
            throw new BackendUnavailableException(BackendKind.FFM, "libc has no " + missing.get());
        }
        return new BoundFfmBackend(maskBits, LibNuma.unavailableCause());
    }

    @Override
    public BackendKind kind() {
        return BackendKind.FFM;
    }

    @Override
    public Optional<String> numaUnavailableCause() {
        return numaUnavailableCause;
    }

    @Override
    public int maxNode() {
        requireNuma();
        return LibNuma.maxNode();
    }

    @Override
    public CpuSet nodeCpus(int node) {
        requireNuma();
        CallState call = callState.get();
        return LibNuma.nodeToCpus(call, node).orElseThrow(() -> failure("numa_node_to_cpus", call, "node " + node));
    }

    @Override
    public int distance(int from, int to) {
        requireNuma();
        return LibNuma.distance(from, to);
    }

    @Override
    public CpuSet affinity(int tid) {
        CallState call = callState.get();
        MemorySegment mask = call.mask();
        if (LibC.schedGetaffinity(call, tid, mask) != 0) {
            throw failure("sched_getaffinity", call, "thread " + tid);
        }
        return CpuSet.fromMask(mask.toArray(ValueLayout.JAVA_LONG));
    }

    @Override
    public void setAffinity(int tid, CpuSet cpus) {
        CallState call = callState.get();
        MemorySegment mask = call.mask();
        long[] words = cpus.toMask(maskBits);
        MemorySegment.copy(words, 0, mask, ValueLayout.JAVA_LONG, 0, words.length);
        if (LibC.schedSetaffinity(call, tid, mask) != 0) {
            throw failure("sched_setaffinity", call, "thread " + tid + " to CPUs " + cpus);
        }
    }

    @Override
    public ThreadScheduling scheduling(int tid) {
        CallState call = callState.get();
        int policy = LibC.schedGetscheduler(call, tid);
        if (policy < 0) {
            throw failure("sched_getscheduler", call, "thread " + tid);
        }
        if (LibC.schedGetparam(call, tid) != 0) {
            throw failure("sched_getparam", call, "thread " + tid);
        }
        return SchedulingNumbers.scheduling(tid, policy, call.intOption());
    }

    @Override
    public void setScheduling(int tid, ThreadScheduling scheduling) {
        CallState call = callState.get();
        // The header's number, which bindings-check holds to gcc's; SchedPolicy's is the same ABI value.
        int policy = LibC.schedPolicy(scheduling.policy().name());
        if (LibC.schedSetscheduler(call, tid, policy, scheduling.priority()) != 0) {
            throw failure("sched_setscheduler", call, "thread " + tid + " to " + scheduling);
        }
    }

    @Override
    public int currentCpu() {
        CallState call = callState.get();
        int cpu = LibC.schedGetcpu(call);
        if (cpu < 0) {
            throw failure("sched_getcpu", call, "");
        }
        return cpu;
    }

    @Override
    public int currentTid() {
        return LibC.gettid();
    }

    @Override
    public int incomingCpu(int fd) {
        CallState call = callState.get();
        if (LibC.incomingCpu(call, fd) != 0) {
            throw failure("getsockopt", call, "SO_INCOMING_CPU of fd " + fd);
        }
        return call.intOption();
    }

    @Override
    public int incomingNapiId(int fd) {
        CallState call = callState.get();
        if (LibC.incomingNapiId(call, fd) != 0) {
            throw failure("getsockopt", call, "SO_INCOMING_NAPI_ID of fd " + fd);
        }
        return call.intOption();
    }

    @Override
    public void setEpollBusyPoll(int epollFd, EpollBusyPoll params) {
        CallState call = callState.get();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment struct =
                    LibCStructs.epollParams(arena, params.usecs(), params.budget(), params.preferBusyPoll());
            if (LibC.epollParams(call, epollFd, true, struct) != 0) {
                throw failure("ioctl", call, "EPIOCSPARAMS " + params + " on epoll fd " + epollFd);
            }
        }
    }

    @Override
    public EpollBusyPoll epollBusyPoll(int epollFd) {
        CallState call = callState.get();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment struct = LibCStructs.epollParams(arena, 0, 0, false);
            if (LibC.epollParams(call, epollFd, false, struct) != 0) {
                throw failure("ioctl", call, "EPIOCGPARAMS on epoll fd " + epollFd);
            }
            int[] fields = LibCStructs.epollParamsFields(struct);
            return new EpollBusyPoll(fields[0], fields[1], fields[2] != 0);
        }
    }

    @Override
    public IoUringNapi registerIoUringNapi(int ringFd, IoUringNapi settings) {
        return registerNapi(
                ringFd,
                "REGISTER_OP",
                settings.busyPollUsecs(),
                settings.preferBusyPoll(),
                LibCStructs.ioUringNapiTracking(settings.tracking().name()),
                "IORING_REGISTER_NAPI " + settings);
    }

    @Override
    public IoUringNapi updateIoUringNapiId(int ringFd, int napiId, boolean add) {
        String opcode = add ? "STATIC_ADD_ID" : "STATIC_DEL_ID";
        return registerNapi(
                ringFd, opcode, 0, false, napiId, "IORING_REGISTER_NAPI IO_URING_NAPI_" + opcode + " " + napiId);
    }

    private IoUringNapi registerNapi(
            int ringFd, String opcode, int busyPollUsecs, boolean preferBusyPoll, int opParam, String what) {
        CallState call = callState.get();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment napi = LibCStructs.ioUringNapi(arena, opcode, busyPollUsecs, preferBusyPoll, opParam);
            if (LibC.ioUringRegisterNapi(call, ringFd, true, napi) != 0) {
                throw failure("io_uring_register", call, what + " on ring fd " + ringFd);
            }
            int[] fields = LibCStructs.ioUringNapiFields(napi);
            return new IoUringNapi(fields[0], fields[1] != 0, tracking(fields[2]));
        }
    }

    /** The strategy the kernel's written-back {@code op_param} names; 6.9 to 6.12 write 0 there, dynamic. */
    private static IoUringNapi.Tracking tracking(int number) {
        for (IoUringNapi.Tracking tracking : IoUringNapi.Tracking.values()) {
            if (LibCStructs.ioUringNapiTracking(tracking.name()) == number) {
                return tracking;
            }
        }
        throw new IllegalStateException(
                "the kernel wrote back NAPI tracking " + number + ", which is none of <linux/io_uring.h>'s");
    }

    @Override
    public void unregisterIoUringNapi(int ringFd) {
        CallState call = callState.get();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment napi = LibCStructs.ioUringNapi(arena, "REGISTER_OP", 0, false, 0);
            if (LibC.ioUringRegisterNapi(call, ringFd, false, napi) != 0) {
                throw failure("io_uring_register", call, "IORING_UNREGISTER_NAPI on ring fd " + ringFd);
            }
        }
    }

    /** libc's open, read, write and close, each failure's errno captured by the call into this thread's state. */
    @Override
    public KernelFiles kernelFiles() {
        return new LibcKernelFiles(new LibcKernelFiles.Calls() {
            @Override
            public int open(byte[] nulTerminatedPath, boolean forWriting, boolean truncate) {
                CallState call = callState.get();
                try (Arena arena = Arena.ofConfined()) {
                    int fd = LibC.open(
                            call,
                            arena.allocateFrom(ValueLayout.JAVA_BYTE, nulTerminatedPath),
                            OpenFlags.kernelFile(forWriting, truncate));
                    return fd < 0 ? -call.errno() : fd;
                }
            }

            @Override
            public long read(int fd, byte[] buffer, int length) {
                CallState call = callState.get();
                try (Arena arena = Arena.ofConfined()) {
                    MemorySegment bytes = arena.allocate(length);
                    long got = LibC.read(call, fd, bytes);
                    if (got < 0) {
                        return -call.errno();
                    }
                    MemorySegment.copy(bytes, ValueLayout.JAVA_BYTE, 0, buffer, 0, (int) got);
                    return got;
                }
            }

            @Override
            public long write(int fd, byte[] buffer, int length) {
                CallState call = callState.get();
                try (Arena arena = Arena.ofConfined()) {
                    MemorySegment bytes = arena.allocate(length);
                    MemorySegment.copy(buffer, 0, bytes, ValueLayout.JAVA_BYTE, 0, length);
                    long written = LibC.write(call, fd, bytes);
                    return written < 0 ? -call.errno() : written;
                }
            }

            @Override
            public int close(int fd) {
                CallState call = callState.get();
                return LibC.close(call, fd) < 0 ? -call.errno() : 0;
            }
        });
    }

    @Override
    public NetlinkFd openNetlink(int protocol, int groups) {
        CallState call = new CallState(Long.BYTES);
        int fd = LibC.netlinkSocket(call, protocol);
        if (fd < 0) {
            throw failure("socket", call, "AF_NETLINK protocol " + protocol);
        }
        if (LibC.bindNetlink(call, fd, groups) != 0) {
            // bind's errno is read into its exception before close can overwrite it; a failing close is added to
            // that exception, never thrown in its place.
            NativeCallException bindFailure =
                    failure("bind", call, "netlink protocol " + protocol + " groups " + groups);
            if (LibC.close(call, fd) != 0) {
                bindFailure.addSuppressed(failure("close", call, "netlink socket " + fd + " after its bind failed"));
            }
            throw bindFailure;
        }
        return new Netlink(fd, call);
    }

    /**
     * A netlink socket through the jextract bindings. Its native memory (the pollfd, one buffer to send and
     * receive through, errno capture) is its own: only the thread holding the lock of
     * {@code io.numaspread.netlink.NetlinkSocket} uses it.
     */
    private static final class Netlink implements NetlinkFd {
        private static final int BUFFER_BYTES = 64 * 1024;

        private final int fd;
        private final CallState call;
        private final MemorySegment wait;
        private final MemorySegment buffer;

        Netlink(int fd, CallState call) {
            this.fd = fd;
            this.call = call;
            Arena arena = Arena.ofAuto();
            this.wait = LibCStructs.pollIn(arena, fd);
            this.buffer = arena.allocate(BUFFER_BYTES);
        }

        @Override
        public int pollIn(int timeoutMillis) {
            int ready = LibC.poll(call, wait, timeoutMillis);
            if (ready < 0) {
                throw failure("poll", call, "netlink socket");
            }
            return ready;
        }

        @Override
        public int recvInto(byte[] into) {
            long length = LibC.recv(call, fd, buffer.asSlice(0, Math.min(into.length, BUFFER_BYTES)));
            if (length < 0) {
                throw failure("recv", call, "netlink socket");
            }
            MemorySegment.copy(buffer, ValueLayout.JAVA_BYTE, 0, into, 0, (int) length);
            return (int) length;
        }

        @Override
        public int sendFrom(byte[] message) {
            if (message.length > BUFFER_BYTES) {
                throw new IllegalArgumentException("a netlink request of " + message.length + " bytes exceeds the "
                        + BUFFER_BYTES + "-byte buffer");
            }
            MemorySegment.copy(message, 0, buffer, ValueLayout.JAVA_BYTE, 0, message.length);
            long length = LibC.send(call, fd, buffer.asSlice(0, message.length));
            if (length < 0) {
                throw failure("send", call, "netlink socket");
            }
            return (int) length;
        }

        @Override
        public void closeFd() {
            LibC.close(call, fd);
        }
    }

    private void requireNuma() {
        numaUnavailableCause.ifPresent(cause -> {
            throw new IllegalStateException("libnuma is not usable through FFM: " + cause);
        });
    }

    private static NativeCallException failure(String function, CallState call, String detail) {
        int errno = call.errno();
        return new NativeCallException(function, errno, LibC.strerror(errno), detail);
    }
}
