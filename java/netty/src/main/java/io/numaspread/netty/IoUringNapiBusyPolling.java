// SPDX-License-Identifier: Apache-2.0
package io.numaspread.netty;

import io.netty.channel.IoEventLoop;
import io.netty.channel.IoHandler;
import io.netty.util.concurrent.SingleThreadEventExecutor;
import io.numaspread.NumaspreadException;
import io.numaspread.kernel.IoUringSysctl;
import io.numaspread.kernel.KernelPaths;
import io.numaspread.nativeaccess.IoUringNapi;
import io.numaspread.nativeaccess.NativeBackend;
import io.numaspread.nativeaccess.NativeCallException;
import java.lang.System.Logger.Level;
import java.lang.reflect.Field;
import java.lang.reflect.InaccessibleObjectException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;

/**
 * Per-loop NAPI busy polling of io_uring loops: each loop's ring registers with {@code io_uring_register(
 * IORING_REGISTER_NAPI)} (Linux 6.9+) and, with static tracking (6.13+), exactly the NAPI IDs of the loop's own
 * queues; before 6.13 the ring tracks the NAPI instances of the sockets it serves (dynamic tracking), which with
 * steering by NAPI ID are its queue's too. On loop shutdown the IDs come out and the ring unregisters.
 *
 * <p>Netty 4.2's {@code IoUringIoHandler} keeps its ring in the private field {@code ringBuffer}, whose
 * package-private {@code fd()} is the ring's descriptor, and offers no NAPI registration. Both are reached by
 * reflection, which on the class path needs nothing; on the module path Netty's module exports the package but
 * does not open it, so the JVM needs {@value #ADD_OPENS}. Netty makes rings with {@code IORING_SETUP_SINGLE_ISSUER},
 * whose registrations only the loop's own thread may make, so each loop registers on its thread.
 *
 * <p>Self-contained: it needs only the ring's descriptor and the one native call, so Netty could offer it as an
 * {@code IoUringIoHandlerConfig} option.
 */
final class IoUringNapiBusyPolling {
    static final String ADD_OPENS =
            "--add-opens io.netty.transport.classes.io_uring/io.netty.channel.uring=io.numaspread.netty";
    static final String HANDLER = "io.netty.channel.uring.IoUringIoHandler";
    private static final String RING = "io.netty.channel.uring.RingBuffer";
    private static final System.Logger LOG = System.getLogger(IoUringNapiBusyPolling.class.getName());

    private final Field ringBuffer;
    private final Method ringFd;
    private final IoUringNapi settings;

    private IoUringNapiBusyPolling(Field ringBuffer, Method ringFd, IoUringNapi settings) {
        this.ringBuffer = ringBuffer;
        this.ringFd = ringFd;
        this.settings = settings;
    }

    /**
     * Checks, before any loop starts, that the loops' rings can busy-poll: the kernel (6.9+; static tracking
     * 6.13+), its {@code io_uring_disabled}, the JVM's access to Netty's io_uring package and the handler's
     * internals, in that order.
     *
     * @param netty the class loader of the loops' {@code IoHandlerFactory}, which loads Netty's io_uring classes
     * @throws NumaspreadException REFUSED naming what is missing
     */
    static IoUringNapiBusyPolling prepare(
            KernelPaths kernel, ClassLoader netty, int busyPollUsecs, boolean preferBusyPoll) {
        String release = LoopBusyPolling.release(kernel);
        if (!LoopBusyPolling.atLeast(release, 6, 9)) {
            throw refused("busy polling of io_uring loops needs Linux 6.9 or later (IORING_REGISTER_NAPI); this"
                    + " kernel is " + release);
        }
        IoUringSysctl.refusal(kernel).ifPresent(why -> {
            throw refused("busy polling of io_uring loops needs io_uring: " + why);
        });
        IoUringNapi.Tracking tracking =
                LoopBusyPolling.atLeast(release, 6, 13) ? IoUringNapi.Tracking.STATIC : IoUringNapi.Tracking.DYNAMIC;
        Class<?> handler;
        try {
            handler = Class.forName(HANDLER, false, netty);
        } catch (ClassNotFoundException e) {
            throw refused("busy polling of io_uring loops needs Netty's io_uring transport, and " + HANDLER
                    + " is not found by the loops' factory's class loader");
        }
        try {
            Field ring = handler.getDeclaredField("ringBuffer");
            if (!ring.getType().getName().equals(RING)) {
                throw internals("its ringBuffer is a " + ring.getType().getName() + ", not a " + RING);
            }
            Method fd = ring.getType().getDeclaredMethod("fd");
            if (fd.getReturnType() != int.class) {
                throw internals(RING + ".fd() returns " + fd.getReturnType() + ", not int");
            }
            ring.setAccessible(true);
            fd.setAccessible(true);
            return new IoUringNapiBusyPolling(ring, fd, new IoUringNapi(busyPollUsecs, preferBusyPoll, tracking));
        } catch (NoSuchFieldException | NoSuchMethodException e) {
            throw internals("it has no " + e.getMessage());
        } catch (InaccessibleObjectException e) {
            throw new NumaspreadException(
                    NumaspreadException.Kind.REFUSED,
                    "Netty's io_uring package is closed to numaspread, which reads each loop's ring descriptor from"
                            + " IoUringIoHandler.ringBuffer: run with " + ADD_OPENS,
                    e);
        }
    }

    /** The settings each ring registers: the tracking {@link #prepare} chose for this kernel. */
    IoUringNapi settings() {
        return settings;
    }

    /**
     * Refuses loops whose handlers are not Netty's io_uring handler, naming the first such; before the loops start.
     *
     * @throws NumaspreadException REFUSED
     */
    static void requireIoUring(List<IoHandler> handlers) {
        for (IoHandler handler : handlers) {
            if (!handler.getClass().getName().equals(HANDLER)) {
                throw refused("busy polling of io_uring loops (IORING_REGISTER_NAPI) is for " + HANDLER
                        + " loops; this loop's handler is " + handler.getClass().getName());
            }
        }
    }

    /**
     * Registers each loop's ring, on the loop's thread, with {@code napiIds.get(i)} for loop i under static
     * tracking (none under dynamic), and has the loop take them out and unregister when it shuts down.
     *
     * @return what each ring reads back, in loop order
     * @throws NativeCallException with the errno of the call that failed; the loops registered before keep their
     *     shutdown hooks, so stopping the group undoes them
     */
    List<IoUringLoopNapi> apply(
            NativeBackend backend, List<IoEventLoop> loops, List<IoHandler> handlers, List<List<Integer>> napiIds) {
        if (settings.tracking() == IoUringNapi.Tracking.DYNAMIC) {
            LOG.log(
                    Level.INFO,
                    "io_uring loops track NAPI instances dynamically (the sockets each ring serves): static"
                            + " tracking of each loop's own NAPI IDs needs Linux 6.13");
        }
        List<IoUringLoopNapi> readBack = new ArrayList<>(loops.size());
        for (int i = 0; i < loops.size(); i++) {
            IoEventLoop loop = loops.get(i);
            if (!(loop instanceof SingleThreadEventExecutor executor)) {
                throw internals("loop " + i + " is a " + loop.getClass().getName() + ", which runs no shutdown"
                        + " hooks to unregister its ring with");
            }
            int fd = ringFd(handlers.get(i));
            List<Integer> ids = settings.tracking() == IoUringNapi.Tracking.STATIC ? napiIds.get(i) : List.of();
            readBack.add(loop.submit(() -> register(backend, executor, fd, ids))
                    .syncUninterruptibly()
                    .getNow());
        }
        return List.copyOf(readBack);
    }

    /**
     * On the loop's thread: the register, then each ID; the first call after the register writes back what the
     * register set, which is the read-back (a second, identical register when there is no ID to add: it changes
     * nothing on a dynamic or empty static list).
     */
    private IoUringLoopNapi register(NativeBackend backend, SingleThreadEventExecutor loop, int fd, List<Integer> ids) {
        backend.registerIoUringNapi(fd, settings);
        List<Integer> added = new ArrayList<>(ids.size());
        loop.addShutdownHook(() -> unregister(backend, fd, added));
        IoUringNapi readBack = null;
        for (int id : ids) {
            IoUringNapi current = backend.updateIoUringNapiId(fd, id, true);
            added.add(id);
            readBack = readBack == null ? current : readBack;
        }
        if (readBack == null) {
            readBack = backend.registerIoUringNapi(fd, settings);
        }
        return new IoUringLoopNapi(fd, readBack, List.copyOf(added));
    }

    /**
     * Takes the static IDs out (kernels before a 2026 fix keep them past the unregister) and unregisters. The ring
     * closes right after, which frees all of it anyway, so a failure is logged, not thrown.
     */
    private static void unregister(NativeBackend backend, int fd, List<Integer> added) {
        try {
            for (int id : added) {
                backend.updateIoUringNapiId(fd, id, false);
            }
            backend.unregisterIoUringNapi(fd);
        } catch (RuntimeException e) {
            LOG.log(
                    Level.WARNING,
                    "unregistering NAPI busy polling of io_uring ring fd " + fd + " failed: " + e.getMessage(),
                    e);
        }
    }

    private int ringFd(IoHandler handler) {
        try {
            return (int) ringFd.invoke(ringBuffer.get(handler));
        } catch (IllegalAccessException | InvocationTargetException e) {
            throw internals("reading its ring descriptor failed: " + e);
        }
    }

    private static NumaspreadException internals(String what) {
        return refused("Netty's " + HANDLER + " is not as numaspread reads it (ringBuffer.fd()): " + what);
    }

    private static NumaspreadException refused(String message) {
        return new NumaspreadException(NumaspreadException.Kind.REFUSED, message);
    }
}
