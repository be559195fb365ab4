// SPDX-License-Identifier: Apache-2.0
package io.numaspread.internal.ffm;

import io.numaspread.internal.ffm.gen.libc_h;
import io.numaspread.internal.ffm.gen.sched_param;
import io.numaspread.internal.ffm.gen.sockaddr_nl;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.List;
import java.util.Optional;

/**
 * The libc calls numaspread makes, from the jextract bindings in {@code libc_h}, with errno captured per
 * call for those that set it. libc is found through the linker's default lookup. The structs the backend passes to
 * them, and reads back, are {@link LibCStructs}'.
 */
public final class LibC {
    private static final List<String> SYMBOLS = List.of(
            "sched_getaffinity",
            "sched_setaffinity",
            "sched_getcpu",
            "sched_setscheduler",
            "sched_getscheduler",
            "sched_getparam",
            "gettid",
            "getsockopt",
            "ioctl",
            "strerror",
            "open",
            "read",
            "write",
            "close",
            "socket",
            "bind",
            "poll",
            "recv",
            "send",
            "syscall");

    private LibC() {}

    /**
     * The first symbol this class needs that libc lacks. Checked before anything touches the bindings or
     * the handles' holders, whose static initializers would otherwise fail with an {@link ExceptionInInitializerError}.
     */
    public static Optional<String> missingSymbol() {
        return SYMBOLS.stream()
                .filter(name -> Linker.nativeLinker().defaultLookup().find(name).isEmpty())
                .findFirst();
    }

    /**
     * {@code sched_getaffinity}: 0 (glibc clears the mask beyond what the kernel wrote), or -1 with errno in
     * {@code call}.
     */
    public static int schedGetaffinity(CallState call, int tid, MemorySegment mask) {
        try {
            return (int) SchedGetaffinity.HANDLE.invokeExact(call.state(), tid, mask.byteSize(), mask);
        } catch (Throwable e) {
            throw unexpected(e);
        }
    }

    /** {@code sched_setaffinity}: 0, or -1 with errno in {@code call}. */
    public static int schedSetaffinity(CallState call, int tid, MemorySegment mask) {
        try {
            return (int) SchedSetaffinity.HANDLE.invokeExact(call.state(), tid, mask.byteSize(), mask);
        } catch (Throwable e) {
            throw unexpected(e);
        }
    }

    /**
     * The header's number for a policy named as {@code <sched.h>} names it without its {@code SCHED_} prefix
     * ({@code FIFO}), or -1 for a name it does not define.
     */
    public static int schedPolicy(String name) {
        return switch (name) {
            case "OTHER" -> libc_h.SCHED_OTHER();
            case "FIFO" -> libc_h.SCHED_FIFO();
            case "RR" -> libc_h.SCHED_RR();
            case "BATCH" -> libc_h.SCHED_BATCH();
            case "IDLE" -> libc_h.SCHED_IDLE();
            default -> -1;
        };
    }

    /**
     * {@code sched_setscheduler} with a {@code struct sched_param} of {@code priority}: 0, or -1 with errno in
     * {@code call}.
     */
    public static int schedSetscheduler(CallState call, int tid, int policy, int priority) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment param = sched_param.allocate(arena);
            sched_param.sched_priority(param, priority);
            return (int) SchedSetscheduler.HANDLE.invokeExact(call.state(), tid, policy, param);
        } catch (Throwable e) {
            throw unexpected(e);
        }
    }

    /** {@code sched_getscheduler}: the thread's policy, or -1 with errno in {@code call}. */
    public static int schedGetscheduler(CallState call, int tid) {
        try {
            return (int) SchedGetscheduler.HANDLE.invokeExact(call.state(), tid);
        } catch (Throwable e) {
            throw unexpected(e);
        }
    }

    /**
     * {@code sched_getparam} into {@code call}'s option scratch: 0, or -1 with errno in {@code call}. The priority
     * is then {@link CallState#intOption()} ({@code struct sched_param} is one int, which the bindings check).
     */
    public static int schedGetparam(CallState call, int tid) {
        try {
            return (int) SchedGetparam.HANDLE.invokeExact(call.state(), tid, call.option());
        } catch (Throwable e) {
            throw unexpected(e);
        }
    }

    /** {@code sched_getcpu}: the calling thread's CPU, or -1 with errno in {@code call}. */
    public static int schedGetcpu(CallState call) {
        try {
            return (int) SchedGetcpu.HANDLE.invokeExact(call.state());
        } catch (Throwable e) {
            throw unexpected(e);
        }
    }

    /**
     * {@code getsockopt(fd, SOL_SOCKET, SO_INCOMING_CPU)} into {@code call}'s option scratch: 0, or -1 with
     * errno in {@code call}. The CPU is then {@link CallState#intOption()}.
     */
    public static int incomingCpu(CallState call, int fd) {
        call.optionLength().set(ValueLayout.JAVA_INT, 0, Integer.BYTES);
        try {
            return (int) Getsockopt.HANDLE.invokeExact(
                    call.state(),
                    fd,
                    libc_h.SOL_SOCKET(),
                    libc_h.SO_INCOMING_CPU(),
                    call.option(),
                    call.optionLength());
        } catch (Throwable e) {
            throw unexpected(e);
        }
    }

    /**
     * {@code getsockopt(fd, SOL_SOCKET, SO_INCOMING_NAPI_ID)} into {@code call}'s option scratch: 0, or -1 with
     * errno in {@code call}. The NAPI ID is then {@link CallState#intOption()}.
     */
    public static int incomingNapiId(CallState call, int fd) {
        call.optionLength().set(ValueLayout.JAVA_INT, 0, Integer.BYTES);
        try {
            return (int) Getsockopt.HANDLE.invokeExact(
                    call.state(),
                    fd,
                    libc_h.SOL_SOCKET(),
                    libc_h.SO_INCOMING_NAPI_ID(),
                    call.option(),
                    call.optionLength());
        } catch (Throwable e) {
            throw unexpected(e);
        }
    }

    /**
     * {@code ioctl(epollFd, EPIOCSPARAMS or EPIOCGPARAMS, params)} (Linux 6.9+): 0, or -1 with errno in
     * {@code call}.
     */
    public static int epollParams(CallState call, int epollFd, boolean set, MemorySegment params) {
        try {
            return (int) Ioctl.HANDLE.invokeExact(
                    call.state(), epollFd, set ? libc_h.EPIOCSPARAMS() : libc_h.EPIOCGPARAMS(), params);
        } catch (Throwable e) {
            throw unexpected(e);
        }
    }

    /**
     * {@code syscall(SYS_io_uring_register, ringFd, IORING_REGISTER_NAPI or IORING_UNREGISTER_NAPI, napi, 1)}: 0,
     * or -1 with errno in {@code call}.
     */
    public static long ioUringRegisterNapi(CallState call, int ringFd, boolean register, MemorySegment napi) {
        try {
            return (long) SyscallIoUringRegister.HANDLE.invokeExact(
                    call.state(),
                    (long) libc_h.SYS_io_uring_register(),
                    (long) ringFd,
                    (long) (register ? libc_h.IORING_REGISTER_NAPI() : libc_h.IORING_UNREGISTER_NAPI()),
                    napi,
                    1L);
        } catch (Throwable e) {
            throw unexpected(e);
        }
    }

    /**
     * {@code open(path, flags)}, without a mode (no {@code O_CREAT}): a descriptor, or -1 with errno in
     * {@code call}. The caller's flags are the running architecture's, which this jar's bindings, generated on
     * one architecture, cannot all give.
     */
    public static int open(CallState call, MemorySegment nulTerminatedPath, int flags) {
        try {
            return (int) Open.HANDLE.invokeExact(call.state(), nulTerminatedPath, flags);
        } catch (Throwable e) {
            throw unexpected(e);
        }
    }

    /**
     * {@code socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, protocol)}: the descriptor, or -1 with errno in
     * {@code call}.
     */
    public static int netlinkSocket(CallState call, int protocol) {
        try {
            return (int) Socket.HANDLE.invokeExact(
                    call.state(), libc_h.AF_NETLINK(), libc_h.SOCK_RAW() | libc_h.SOCK_CLOEXEC(), protocol);
        } catch (Throwable e) {
            throw unexpected(e);
        }
    }

    /**
     * {@code bind} of a netlink socket to the multicast {@code groups} (port chosen by the kernel): 0, or -1 with
     * errno in {@code call}.
     */
    public static int bindNetlink(CallState call, int fd, int groups) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment address = sockaddr_nl.allocate(arena);
            sockaddr_nl.nl_family(address, (short) libc_h.AF_NETLINK());
            sockaddr_nl.nl_groups(address, groups);
            return (int) Bind.HANDLE.invokeExact(call.state(), fd, address, (int) address.byteSize());
        } catch (Throwable e) {
            throw unexpected(e);
        }
    }

    /** {@code read}: the bytes read, 0 at the end, or -1 with errno in {@code call}. */
    public static long read(CallState call, int fd, MemorySegment buffer) {
        try {
            return (long) Read.HANDLE.invokeExact(call.state(), fd, buffer, buffer.byteSize());
        } catch (Throwable e) {
            throw unexpected(e);
        }
    }

    /** {@code poll} on one {@code struct pollfd}: above 0 when ready, 0 on timeout, -1 with errno in {@code call}. */
    public static int poll(CallState call, MemorySegment wait, int timeoutMillis) {
        try {
            return (int) Poll.HANDLE.invokeExact(call.state(), wait, 1L, timeoutMillis);
        } catch (Throwable e) {
            throw unexpected(e);
        }
    }

    /** {@code write}: the bytes written, or -1 with errno in {@code call}. */
    public static long write(CallState call, int fd, MemorySegment buffer) {
        try {
            return (long) Write.HANDLE.invokeExact(call.state(), fd, buffer, buffer.byteSize());
        } catch (Throwable e) {
            throw unexpected(e);
        }
    }

    /** {@code recv(fd, buffer, size, 0)}: the byte count, or -1 with errno in {@code call}. */
    public static long recv(CallState call, int fd, MemorySegment buffer) {
        try {
            return (long) Recv.HANDLE.invokeExact(call.state(), fd, buffer, buffer.byteSize(), 0);
        } catch (Throwable e) {
            throw unexpected(e);
        }
    }

    /** {@code send(fd, message, size, 0)}: the byte count, or -1 with errno in {@code call}. */
    public static long send(CallState call, int fd, MemorySegment message) {
        try {
            return (long) Send.HANDLE.invokeExact(call.state(), fd, message, message.byteSize(), 0);
        } catch (Throwable e) {
            throw unexpected(e);
        }
    }

    /** {@code close}: 0, or -1 with errno in {@code call}. */
    public static int close(CallState call, int fd) {
        try {
            return (int) Close.HANDLE.invokeExact(call.state(), fd);
        } catch (Throwable e) {
            throw unexpected(e);
        }
    }

    /** {@code gettid}, which cannot fail. */
    public static int gettid() {
        return libc_h.gettid();
    }

    /** {@code strerror}: the C library's words for an errno value. */
    public static String strerror(int errno) {
        try {
            return ((MemorySegment) Strerror.HANDLE.invokeExact(errno)).getString(0);
        } catch (Throwable e) {
            throw unexpected(e);
        }
    }

    /** A downcall throws only what the JVM itself throws (out of memory, a bad argument type). */
    static RuntimeException unexpected(Throwable e) {
        if (e instanceof RuntimeException runtime) {
            return runtime;
        }
        if (e instanceof Error error) {
            throw error;
        }
        return new IllegalStateException("a downcall threw a checked exception", e);
    }

    // The handles, one holder class each: each is built on its first use, after missingSymbol(), and is static
    // final so that the JIT inlines the calls. A holder each, since a downcall handle costs the JVM dozens of
    // method-handle classes to spin, and a run calls few of these functions.

    private static final class SchedGetaffinity {
        static final MethodHandle HANDLE =
                CallState.capturingErrno(libc_h.sched_getaffinity$address(), libc_h.sched_getaffinity$descriptor());
    }

    private static final class SchedSetaffinity {
        static final MethodHandle HANDLE =
                CallState.capturingErrno(libc_h.sched_setaffinity$address(), libc_h.sched_setaffinity$descriptor());
    }

    private static final class SchedSetscheduler {
        static final MethodHandle HANDLE =
                CallState.capturingErrno(libc_h.sched_setscheduler$address(), libc_h.sched_setscheduler$descriptor());
    }

    private static final class SchedGetscheduler {
        static final MethodHandle HANDLE =
                CallState.capturingErrno(libc_h.sched_getscheduler$address(), libc_h.sched_getscheduler$descriptor());
    }

    private static final class SchedGetparam {
        static final MethodHandle HANDLE =
                CallState.capturingErrno(libc_h.sched_getparam$address(), libc_h.sched_getparam$descriptor());
    }

    private static final class SchedGetcpu {
        static final MethodHandle HANDLE =
                CallState.capturingErrno(libc_h.sched_getcpu$address(), libc_h.sched_getcpu$descriptor());
    }

    private static final class Getsockopt {
        static final MethodHandle HANDLE =
                CallState.capturingErrno(libc_h.getsockopt$address(), libc_h.getsockopt$descriptor());
    }

    // open is variadic (a mode follows O_CREAT, which numaspread never passes), so its handle says so.
    private static final class Open {
        static final MethodHandle HANDLE = CallState.capturingErrno(
                libc_h.open.address(), libc_h.open.makeInvoker().descriptor(), Linker.Option.firstVariadicArg(2));
    }

    // ioctl is variadic; numaspread passes it one pointer, a struct epoll_params.
    private static final class Ioctl {
        static final MethodHandle HANDLE = CallState.capturingErrno(
                libc_h.ioctl.address(),
                libc_h.ioctl.makeInvoker(libc_h.C_POINTER).descriptor(),
                Linker.Option.firstVariadicArg(2));
    }

    // syscall is variadic; numaspread passes io_uring_register's arguments, the integers as the longs the
    // kernel's registers hold.
    private static final class SyscallIoUringRegister {
        static final MethodHandle HANDLE = CallState.capturingErrno(
                libc_h.syscall.address(),
                libc_h.syscall
                        .makeInvoker(libc_h.C_LONG, libc_h.C_LONG, libc_h.C_POINTER, libc_h.C_LONG)
                        .descriptor(),
                Linker.Option.firstVariadicArg(1));
    }

    private static final class Read {
        static final MethodHandle HANDLE = CallState.capturingErrno(libc_h.read$address(), libc_h.read$descriptor());
    }

    private static final class Write {
        static final MethodHandle HANDLE = CallState.capturingErrno(libc_h.write$address(), libc_h.write$descriptor());
    }

    private static final class Close {
        static final MethodHandle HANDLE = CallState.capturingErrno(libc_h.close$address(), libc_h.close$descriptor());
    }

    private static final class Socket {
        static final MethodHandle HANDLE =
                CallState.capturingErrno(libc_h.socket$address(), libc_h.socket$descriptor());
    }

    // bind is outside the bound symbol list (headers/libc.txt says why): C passes its transparent-union
    // address argument as the pointer it holds.
    private static final class Bind {
        static final MethodHandle HANDLE = CallState.capturingErrno(
                Linker.nativeLinker().defaultLookup().findOrThrow("bind"),
                FunctionDescriptor.of(libc_h.C_INT, libc_h.C_INT, libc_h.C_POINTER, libc_h.C_INT));
    }

    private static final class Poll {
        static final MethodHandle HANDLE = CallState.capturingErrno(libc_h.poll$address(), libc_h.poll$descriptor());
    }

    private static final class Recv {
        static final MethodHandle HANDLE = CallState.capturingErrno(libc_h.recv$address(), libc_h.recv$descriptor());
    }

    private static final class Send {
        static final MethodHandle HANDLE = CallState.capturingErrno(libc_h.send$address(), libc_h.send$descriptor());
    }

    // strerror is outside the bound symbol list (headers/libc.txt): it only words an errno for a message.
    private static final class Strerror {
        static final MethodHandle HANDLE = Linker.nativeLinker()
                .downcallHandle(
                        Linker.nativeLinker().defaultLookup().findOrThrow("strerror"),
                        FunctionDescriptor.of(libc_h.C_POINTER, libc_h.C_INT));
    }
}
