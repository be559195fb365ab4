// SPDX-License-Identifier: Apache-2.0
package io.numaspread.netty;

import io.netty.channel.IoHandler;
import io.netty.channel.unix.FileDescriptor;
import io.numaspread.NumaspreadException;
import io.numaspread.kernel.Errno;
import io.numaspread.kernel.KernelPaths;
import io.numaspread.kernel.KernelText;
import io.numaspread.nativeaccess.EpollBusyPoll;
import io.numaspread.nativeaccess.NativeBackend;
import io.numaspread.nativeaccess.NativeCallException;
import io.numaspread.nic.IrqSuspension;
import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.InaccessibleObjectException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Per-loop epoll busy polling: sets each epoll loop's busy-poll parameters with {@code EPIOCSPARAMS} (Linux
 * 6.9+) on the loop's own epoll instance and reads them back with {@code EPIOCGPARAMS}. With steering by NAPI
 * ID every socket of a loop comes from the loop's queue, so the one NAPI instance epoll busy-polls is the
 * queue's, on the CPUs where the queue's IRQ is placed.
 *
 * <p>Netty 4.2's {@code EpollIoHandler} keeps its epoll descriptor in the private field {@code epollFd} and has
 * neither an accessor nor a channel option for these parameters ({@code EpollChannelOption.SO_BUSY_POLL} is
 * the per-socket {@code SO_BUSY_POLL}, which busy-polls in {@code recv}, not in {@code epoll_wait}). The field is
 * read by reflection, which on the class path needs nothing; on the module path Netty's module exports
 * the package but does not open it, so the JVM needs {@value #ADD_OPENS}. io_uring loops are refused here; their
 * rings busy-poll through {@link IoUringNapiBusyPolling}.
 */
final class LoopBusyPolling {
    static final String ADD_OPENS =
            "--add-opens io.netty.transport.classes.epoll/io.netty.channel.epoll=io.numaspread.netty";
    private static final String EPOLL_HANDLER = "io.netty.channel.epoll.EpollIoHandler";
    private static final int NEEDS_MAJOR = 6;
    private static final int NEEDS_MINOR = 9;
    private static final Pattern RELEASE = Pattern.compile("(\\d+)\\.(\\d+).*");

    private LoopBusyPolling() {}

    /**
     * Sets {@code wanted} on the epoll instance of each handler, in loop order, and returns what each reads back.
     *
     * @throws NumaspreadException REFUSED on a kernel before 6.9 or a loop that is not epoll, naming both;
     *     CALL_FAILED (a {@link NativeCallException}) with the ioctl's errno
     */
    static List<EpollBusyPoll> apply(
            NativeBackend backend, KernelPaths kernel, List<IoHandler> handlers, EpollBusyPoll wanted) {
        for (IoHandler handler : handlers) {
            if (!handler.getClass().getName().equals(EPOLL_HANDLER)) {
                throw new NumaspreadException(
                        NumaspreadException.Kind.REFUSED,
                        "busy polling per loop is for epoll "
                                + "loops (EPIOCSPARAMS); this loop's handler is "
                                + handler.getClass().getName()
                                + (handler.getClass().getName().contains("uring")
                                        ? " (io_uring loops busy-poll with ioUringBusyPoll, IORING_REGISTER_NAPI)"
                                        : ""));
            }
        }
        String release = release(kernel);
        if (!atLeast(release, NEEDS_MAJOR, NEEDS_MINOR)) {
            throw refusedFor(release);
        }
        List<EpollBusyPoll> readBack = new ArrayList<>(handlers.size());
        for (IoHandler handler : handlers) {
            int epollFd = epollFd(handler);
            try {
                backend.setEpollBusyPoll(epollFd, wanted);
            } catch (NativeCallException e) {
                // ENOTTY: ioctl's answer on a kernel whose epoll has no EPIOCSPARAMS.
                if (e.errno() == Errno.ENOTTY.number()) {
                    throw refusedFor(release + ", whose epoll answers ENOTTY to EPIOCSPARAMS");
                }
                throw e;
            }
            readBack.add(backend.epollBusyPoll(epollFd));
        }
        return List.copyOf(readBack);
    }

    /**
     * Refuses IRQ suspension on a kernel before 6.13, naming the version needed and the one found.
     *
     * @throws NumaspreadException REFUSED
     */
    static void requireIrqSuspension(KernelPaths kernel) {
        String release = release(kernel);
        if (!atLeast(release, 6, 13)) {
            throw new NumaspreadException(
                    NumaspreadException.Kind.REFUSED,
                    "IRQ suspension needs " + IrqSuspension.NEEDED_KERNEL
                            + " or later (netdev napi-set with irq-suspend-timeout, beside epoll's EPIOCSPARAMS of"
                            + " 6.9); this kernel is " + release);
        }
    }

    /** Whether a kernel release such as {@code 6.12.12+deb13-amd64} is {@code major.minor} or later. */
    static boolean atLeast(String release, int major, int minor) {
        Matcher numbers = RELEASE.matcher(release);
        if (!numbers.matches()) {
            throw new NumaspreadException(
                    NumaspreadException.Kind.UNAVAILABLE,
                    "cannot read a kernel version from release \"" + release + "\"");
        }
        int foundMajor = Integer.parseInt(numbers.group(1));
        return foundMajor > major || foundMajor == major && Integer.parseInt(numbers.group(2)) >= minor;
    }

    private static NumaspreadException refusedFor(String found) {
        return new NumaspreadException(
                NumaspreadException.Kind.REFUSED,
                "busy polling per loop needs Linux " + NEEDS_MAJOR + "." + NEEDS_MINOR
                        + " or later (epoll's EPIOCSPARAMS); this kernel is " + found);
    }

    static String release(KernelPaths kernel) {
        Path file = kernel.procRoot().resolve("sys/kernel/osrelease");
        try {
            return KernelText.read(file);
        } catch (IOException e) {
            throw new NumaspreadException(NumaspreadException.Kind.UNAVAILABLE, "cannot read " + file + ": " + e, e);
        }
    }

    private static int epollFd(IoHandler handler) {
        try {
            Field field = handler.getClass().getDeclaredField("epollFd");
            field.setAccessible(true);
            return ((FileDescriptor) field.get(handler)).intValue();
        } catch (InaccessibleObjectException e) {
            throw new NumaspreadException(
                    NumaspreadException.Kind.REFUSED,
                    "Netty's epoll package is closed to numaspread, which reads each loop's epoll descriptor from"
                            + " EpollIoHandler.epollFd: run with " + ADD_OPENS,
                    e);
        } catch (ReflectiveOperationException | ClassCastException e) {
            throw new NumaspreadException(
                    NumaspreadException.Kind.UNAVAILABLE,
                    "cannot find the epoll descriptor " + "of this Netty's EpollIoHandler (field epollFd): " + e,
                    e);
        }
    }
}
