// SPDX-License-Identifier: Apache-2.0
package io.numaspread.netty;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.channel.IoHandler;
import io.netty.channel.unix.FileDescriptor;
import io.numaspread.NumaspreadException;
import io.numaspread.kernel.KernelPaths;
import io.numaspread.kernel.SysfsTree;
import io.numaspread.nativeaccess.BackendKind;
import io.numaspread.nativeaccess.Backends;
import io.numaspread.nativeaccess.EpollBusyPoll;
import io.numaspread.nativeaccess.NativeBackend;
import io.numaspread.nic.IrqSuspension;
import io.numaspread.pin.ThreadPinner;
import io.numaspread.plan.Mode;
import io.numaspread.plan.PlanRequest;
import io.numaspread.plan.Planner;
import io.numaspread.plan.SpreadPlan;
import io.numaspread.topology.TopologyDiscovery;
import java.lang.reflect.Field;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Per-loop epoll busy polling (EPIOCSPARAMS, Linux 6.9+) on real Netty loops, and its refusals. */
class LoopBusyPollingTest {
    private static final EpollBusyPoll WANTED = new EpollBusyPoll(50, 16, true);

    private static SpreadPlan loops(ThreadPinner pinner, int count) {
        return Planner.plan(
                TopologyDiscovery.discover(pinner.backend(), SysfsTree.live()),
                PlanRequest.threads(0, count).withMode(Mode.CPU));
    }

    private static String liveRelease() throws Exception {
        return Files.readString(Path.of("/proc/sys/kernel/osrelease")).strip();
    }

    /**
     * On this machine's kernel: from 6.9 every epoll loop reads back what was set, through both backends; before
     * 6.9 the build is refused, naming the version needed and the one found.
     */
    @Test
    void eachEpollLoopReadsBackItsBusyPollParameters() throws Exception {
        ThreadPinner pinner = ThreadPinner.live();
        PinnedEventLoopGroup.Builder builder = PinnedEventLoopGroup.builder(Transport.EPOLL.ioHandlerFactory())
                .plan(loops(pinner, 2))
                .pinner(pinner)
                .busyPoll(WANTED);
        String release = liveRelease();
        if (!LoopBusyPolling.atLeast(release, 6, 9)) {
            NumaspreadException refused = assertThrows(NumaspreadException.class, builder::build);
            assertEquals(NumaspreadException.Kind.REFUSED, refused.kind());
            assertEquals(
                    "busy polling per loop needs Linux 6.9 or later (epoll's EPIOCSPARAMS); this kernel is " + release,
                    refused.getMessage());
            return;
        }
        List<IoHandler> handlers = Collections.synchronizedList(new java.util.ArrayList<>());
        PinnedEventLoopGroup group = PinnedEventLoopGroup.builder(executor -> {
                    IoHandler handler = Transport.EPOLL.ioHandlerFactory().newHandler(executor);
                    handlers.add(handler);
                    return handler;
                })
                .plan(loops(pinner, 2))
                .pinner(pinner)
                .busyPoll(WANTED)
                .build();
        try {
            assertEquals(List.of(WANTED, WANTED), group.busyPolling());
            NativeBackend jna = Backends.select(SysfsTree.live(), Optional.of(BackendKind.JNA))
                    .backend();
            assertEquals(2, handlers.size());
            for (IoHandler handler : handlers) {
                assertEquals(
                        WANTED,
                        jna.epollBusyPoll(epollFd(handler)),
                        "jna reads back what " + pinner.backend().kind() + " set");
            }
            jna.setEpollBusyPoll(epollFd(handlers.get(0)), new EpollBusyPoll(0, 0, false));
            assertEquals(
                    new EpollBusyPoll(0, 0, false),
                    pinner.backend().epollBusyPoll(epollFd(handlers.get(0))),
                    pinner.backend().kind() + " reads back what jna set");
        } finally {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }

    /** A kernel before 6.9 cannot be had on demand: its osrelease is copied into a proc tree. */
    @Test
    void aKernelBefore69IsRefusedNamingBothVersions(@TempDir Path proc) throws Exception {
        Files.createDirectories(proc.resolve("sys/kernel"));
        Files.writeString(proc.resolve("sys/kernel/osrelease"), "6.1.0-31-amd64\n");
        ThreadPinner pinner = ThreadPinner.live();
        NumaspreadException refused = assertThrows(
                NumaspreadException.class,
                () -> PinnedEventLoopGroup.builder(Transport.EPOLL.ioHandlerFactory())
                        .plan(loops(pinner, 1))
                        .pinner(pinner)
                        .kernel(new KernelPaths(proc, Path.of("/sys")))
                        .busyPoll(WANTED)
                        .build());
        assertEquals(NumaspreadException.Kind.REFUSED, refused.kind());
        assertEquals(
                "busy polling per loop needs Linux 6.9 or later (epoll's EPIOCSPARAMS); this kernel is "
                        + "6.1.0-31-amd64",
                refused.getMessage());
    }

    /** 6.9 to 6.12 busy-poll but have no napi-set: IRQ suspension is refused before any loop starts. */
    @Test
    void irqSuspensionBefore613IsRefusedNamingBothVersions(@TempDir Path proc) throws Exception {
        Files.createDirectories(proc.resolve("sys/kernel"));
        Files.writeString(proc.resolve("sys/kernel/osrelease"), "6.12.57+deb13-amd64\n");
        ThreadPinner pinner = ThreadPinner.live();
        NumaspreadException refused = assertThrows(
                NumaspreadException.class,
                () -> PinnedEventLoopGroup.builder(Transport.EPOLL.ioHandlerFactory())
                        .plan(loops(pinner, 1))
                        .pinner(pinner)
                        .kernel(new KernelPaths(proc, Path.of("/sys")))
                        .irqSuspension(IrqSuspension.recipe())
                        .build());
        assertEquals(NumaspreadException.Kind.REFUSED, refused.kind());
        assertEquals(
                "IRQ suspension needs Linux 6.13 or later (netdev napi-set with irq-suspend-timeout, beside epoll's"
                        + " EPIOCSPARAMS of 6.9); this kernel is 6.12.57+deb13-amd64",
                refused.getMessage());
    }

    /** On this machine's kernel (6.13+), IRQ suspension without a NIC's NAPI map is refused, naming the map. */
    @Test
    void irqSuspensionWithoutANapiMapIsRefused() throws Exception {
        ThreadPinner pinner = ThreadPinner.live();
        assertTrue(LoopBusyPolling.atLeast(liveRelease(), 6, 13), "the build machine runs 6.13 or later");
        NumaspreadException refused = assertThrows(
                NumaspreadException.class,
                () -> PinnedEventLoopGroup.builder(Transport.EPOLL.ioHandlerFactory())
                        .plan(loops(pinner, 1))
                        .pinner(pinner)
                        .irqSuspension(IrqSuspension.recipe())
                        .build());
        assertEquals(NumaspreadException.Kind.REFUSED, refused.kind());
        assertTrue(refused.getMessage().startsWith("NAPI settings need the NIC's NAPI map"), refused.getMessage());
    }

    @Test
    void loopsThatAreNotEpollAreRefused() {
        ThreadPinner pinner = ThreadPinner.live();
        for (Transport transport : List.of(Transport.NIO, Transport.IO_URING)) {
            NumaspreadException refused = assertThrows(
                    NumaspreadException.class,
                    () -> PinnedEventLoopGroup.builder(transport.ioHandlerFactory())
                            .plan(loops(pinner, 1))
                            .pinner(pinner)
                            .busyPoll(WANTED)
                            .build());
            assertEquals(NumaspreadException.Kind.REFUSED, refused.kind());
            assertTrue(
                    refused.getMessage()
                            .startsWith("busy polling per loop is for epoll loops (EPIOCSPARAMS); "
                                    + "this loop's handler is io.netty.channel."),
                    refused.getMessage());
            assertEquals(
                    transport == Transport.IO_URING,
                    refused.getMessage().contains("IORING_REGISTER_NAPI"),
                    refused.getMessage());
        }
    }

    @Test
    void kernelReleasesCompareByMajorAndMinor() {
        assertTrue(LoopBusyPolling.atLeast("6.12.12+deb13-amd64", 6, 9));
        assertTrue(LoopBusyPolling.atLeast("6.9.0", 6, 9));
        assertTrue(LoopBusyPolling.atLeast("7.0.1", 6, 9));
        assertFalse(LoopBusyPolling.atLeast("6.1.0-31-amd64", 6, 9));
        assertFalse(LoopBusyPolling.atLeast("5.19.17", 6, 9));
        NumaspreadException unreadable =
                assertThrows(NumaspreadException.class, () -> LoopBusyPolling.atLeast("unknown", 6, 9));
        assertEquals("cannot read a kernel version from release \"unknown\"", unreadable.getMessage());
    }

    @Test
    void parametersOutsideTheKernelsFieldsAreBadInput() {
        assertEquals(
                "busy-poll time -1 us is negative",
                assertThrows(IllegalArgumentException.class, () -> new EpollBusyPoll(-1, 8, false))
                        .getMessage());
        assertEquals(
                "busy-poll budget 65536 is outside 0-65535",
                assertThrows(IllegalArgumentException.class, () -> new EpollBusyPoll(50, 65536, false))
                        .getMessage());
    }

    private static int epollFd(IoHandler handler) throws ReflectiveOperationException {
        Field field = handler.getClass().getDeclaredField("epollFd");
        field.setAccessible(true);
        return ((FileDescriptor) field.get(handler)).intValue();
    }
}
