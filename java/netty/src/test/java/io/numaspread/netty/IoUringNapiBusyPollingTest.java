// SPDX-License-Identifier: Apache-2.0
package io.numaspread.netty;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.util.concurrent.SingleThreadEventExecutor;
import io.numaspread.NumaspreadException;
import io.numaspread.kernel.Errno;
import io.numaspread.kernel.InterfaceName;
import io.numaspread.kernel.KernelPaths;
import io.numaspread.kernel.SysfsTree;
import io.numaspread.nativeaccess.IoUringNapi;
import io.numaspread.nativeaccess.NativeBackend;
import io.numaspread.nativeaccess.NativeCallException;
import io.numaspread.nic.NapiDiscovery;
import io.numaspread.nic.NapiInstance;
import io.numaspread.pin.ThreadPinner;
import io.numaspread.plan.Mode;
import io.numaspread.plan.PlanRequest;
import io.numaspread.plan.Planner;
import io.numaspread.plan.SpreadPlan;
import io.numaspread.testing.NeedsLiveNic;
import io.numaspread.testing.NeedsRoot;
import io.numaspread.topology.TopologyDiscovery;
import java.io.File;
import java.lang.module.Configuration;
import java.lang.module.ModuleFinder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * NAPI busy polling of io_uring loops ({@code IORING_REGISTER_NAPI}) on real Netty rings and this machine's kernel
 * (6.13 or later, so static tracking), judged by the kernel: the ring's {@code fdinfo} and its answers. Kernels
 * and sysctls this machine does not have are copied into proc trees; nothing is skipped.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class IoUringNapiBusyPollingTest {
    private static SpreadPlan loops(ThreadPinner pinner, int count) {
        return Planner.plan(
                TopologyDiscovery.discover(pinner.backend(), SysfsTree.live()),
                PlanRequest.threads(0, count).withMode(Mode.CPU));
    }

    private static String fdinfo(int fd) throws Exception {
        return Files.readString(Path.of("/proc/self/fdinfo/" + fd));
    }

    private static Path procWith(Path proc, String release) throws Exception {
        Files.createDirectories(proc.resolve("sys/kernel"));
        Files.writeString(proc.resolve("sys/kernel/osrelease"), release + "\n");
        return proc;
    }

    /**
     * eth0's loop (one rx queue here) registers its ring with exactly its queue's NAPI ID, statically: the ring's
     * fdinfo says so, adding the ID again is refused as present, and on shutdown the ring is NAPI-disabled before
     * Netty closes it (a hook after numaspread's reads the fdinfo then).
     */
    @Test
    @NeedsLiveNic
    @NeedsRoot
    void eachLoopsRingRegistersExactlyItsQueuesNapiIds() throws Exception {
        assertTrue(
                LoopBusyPolling.atLeast(
                        Files.readString(Path.of("/proc/sys/kernel/osrelease")).strip(), 6, 13),
                "the build machine runs 6.13 or later");
        NativeBackend backend = ThreadPinner.live().backend();
        List<List<Integer>> queues = new ArrayList<>();
        for (NapiInstance napi : NapiDiscovery.discover(new InterfaceName("eth0"), KernelPaths.LIVE, backend)
                .instances()) {
            if (napi.queue().isEmpty()) {
                continue;
            }
            int queue = napi.queue().getAsInt();
            while (queues.size() <= queue) {
                queues.add(new ArrayList<>());
            }
            queues.get(queue).add(napi.id());
        }
        PinnedEventLoopGroup group = PinnedEventLoopGroup.builder(Transport.IO_URING.ioHandlerFactory())
                .nic("eth0")
                .ioUringBusyPoll(50, true)
                .build();
        List<CompletableFuture<String>> afterUnregister = new ArrayList<>();
        try {
            List<IoUringLoopNapi> polling = group.ioUringBusyPolling();
            assertEquals(group.loops().size(), polling.size());
            for (int i = 0; i < polling.size(); i++) {
                IoUringLoopNapi ring = polling.get(i);
                assertEquals(new IoUringNapi(50, true, IoUringNapi.Tracking.STATIC), ring.settings(), "loop " + i);
                assertEquals(queues.get(i), ring.napiIds(), "loop " + i + " has queue " + i + "'s NAPI IDs");
                String info = fdinfo(ring.ringFd());
                assertTrue(info.contains("NAPI:\tenabled\nnapi tracking:\tstatic\n"), info);
                assertTrue(info.contains("napi_busy_poll_dt:\t50000\n"), info);
                assertTrue(info.contains("napi_prefer_busy_poll:\ttrue\n"), info);
                SingleThreadEventExecutor loop =
                        (SingleThreadEventExecutor) group.loops().get(i).loop();
                int id = ring.napiIds().get(0);
                NativeCallException again = assertThrows(NativeCallException.class, () -> {
                    try {
                        loop.submit(() -> backend.updateIoUringNapiId(ring.ringFd(), id, true))
                                .get(10, TimeUnit.SECONDS);
                    } catch (java.util.concurrent.ExecutionException e) {
                        throw e.getCause();
                    }
                });
                assertEquals(Errno.EEXIST.number(), again.errno(), again.getMessage());
                CompletableFuture<String> seen = new CompletableFuture<>();
                loop.addShutdownHook(() -> {
                    try {
                        seen.complete(fdinfo(ring.ringFd()));
                    } catch (Exception e) {
                        seen.completeExceptionally(e);
                    }
                });
                afterUnregister.add(seen);
            }
        } finally {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        }
        for (CompletableFuture<String> seen : afterUnregister) {
            String info = seen.get(10, TimeUnit.SECONDS);
            assertTrue(info.contains("NAPI:\tdisabled\n"), info);
        }
    }

    /**
     * Before 6.13 the rings track dynamically: with this kernel's real rings and a proc tree that says 6.12, each
     * loop registers, reads back dynamic tracking, and the kernel's fdinfo agrees; no NAPI map is needed.
     */
    @Test
    void before613EachRingTracksDynamically(@TempDir Path proc) throws Exception {
        ThreadPinner pinner = ThreadPinner.live();
        PinnedEventLoopGroup group = PinnedEventLoopGroup.builder(Transport.IO_URING.ioHandlerFactory())
                .plan(loops(pinner, 2))
                .pinner(pinner)
                .kernel(new KernelPaths(procWith(proc, "6.12.57+deb13-amd64"), Path.of("/sys")))
                .ioUringBusyPoll(20, false)
                .build();
        try {
            assertEquals(2, group.ioUringBusyPolling().size());
            for (IoUringLoopNapi ring : group.ioUringBusyPolling()) {
                assertEquals(new IoUringNapi(20, false, IoUringNapi.Tracking.DYNAMIC), ring.settings());
                assertEquals(List.of(), ring.napiIds());
                String info = fdinfo(ring.ringFd());
                assertTrue(info.contains("NAPI:\tenabled\nnapi tracking:\tdynamic\n"), info);
                assertTrue(info.contains("napi_busy_poll_dt:\t20000\n"), info);
            }
        } finally {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }

    private static NumaspreadException refusedBuild(PinnedEventLoopGroup.Builder builder) {
        NumaspreadException refused = assertThrows(NumaspreadException.class, builder::build);
        assertEquals(NumaspreadException.Kind.REFUSED, refused.kind(), refused.getMessage());
        return refused;
    }

    private static PinnedEventLoopGroup.Builder onePlannedLoop(Transport transport, Path proc) {
        ThreadPinner pinner = ThreadPinner.live();
        return PinnedEventLoopGroup.builder(transport.ioHandlerFactory())
                .plan(loops(pinner, 1))
                .pinner(pinner)
                .kernel(new KernelPaths(proc, Path.of("/sys")))
                .ioUringBusyPoll(50, true);
    }

    @Test
    void aKernelBefore69IsRefusedNamingBothVersions(@TempDir Path proc) throws Exception {
        assertEquals(
                "busy polling of io_uring loops needs Linux 6.9 or later (IORING_REGISTER_NAPI); this kernel is"
                        + " 6.8.0-31-generic",
                refusedBuild(onePlannedLoop(Transport.IO_URING, procWith(proc, "6.8.0-31-generic")))
                        .getMessage());
    }

    @Test
    void ioUringDisabledIsRefusedNamingTheSysctl(@TempDir Path proc) throws Exception {
        procWith(proc, "6.18.2");
        Files.writeString(proc.resolve("sys/kernel/io_uring_disabled"), "2\n");
        assertEquals(
                "busy polling of io_uring loops needs io_uring: " + proc.resolve("sys/kernel/io_uring_disabled")
                        + " is 2: io_uring is disabled for every process",
                refusedBuild(onePlannedLoop(Transport.IO_URING, proc)).getMessage());
    }

    /** 6.13+ tracks statically, which needs the NIC's NAPI map; a group on a plan has none, refused up front. */
    @Test
    void staticTrackingWithoutANapiMapIsRefused(@TempDir Path proc) throws Exception {
        String message = refusedBuild(onePlannedLoop(Transport.IO_URING, procWith(proc, "6.18.2")))
                .getMessage();
        assertTrue(
                message.startsWith("busy polling of io_uring loops with static NAPI tracking (Linux 6.13+) needs the"
                        + " NIC's NAPI map with its queues"),
                message);
    }

    /** Epoll and NIO loops are refused once their handlers exist, before any of them has started. */
    @Test
    void loopsThatAreNotIoUringAreRefused(@TempDir Path proc) throws Exception {
        procWith(proc, "6.12.57+deb13-amd64");
        for (Transport transport : List.of(Transport.EPOLL, Transport.NIO)) {
            String message = refusedBuild(onePlannedLoop(transport, proc)).getMessage();
            assertTrue(
                    message.startsWith(
                            "busy polling of io_uring loops (IORING_REGISTER_NAPI) is for "
                                    + "io.netty.channel.uring.IoUringIoHandler loops; this loop's handler is io.netty.channel."),
                    message);
        }
    }

    @Test
    void epollAndIoUringBusyPollingTogetherAreBadArguments() {
        ThreadPinner pinner = ThreadPinner.live();
        IllegalArgumentException both = assertThrows(
                IllegalArgumentException.class,
                () -> PinnedEventLoopGroup.builder(Transport.IO_URING.ioHandlerFactory())
                        .plan(loops(pinner, 1))
                        .pinner(pinner)
                        .busyPoll(new io.numaspread.nativeaccess.EpollBusyPoll(50, 8, false))
                        .ioUringBusyPoll(50, false)
                        .build());
        assertTrue(both.getMessage().contains("different transports"), both.getMessage());
    }

    /**
     * Netty's jars as modules, as on an application's module path: numaspread (here in the unnamed module) cannot
     * read the handler's ring without the package opened, and the refusal names the flag.
     */
    @Test
    void aJvmThatDoesNotOpenNettysPackageIsRefusedNamingTheFlag(@TempDir Path proc) throws Exception {
        Path[] netty = Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
                .map(Path::of)
                .filter(jar -> jar.getFileName().toString().matches("netty-[a-z_-]+-4\\.2\\.\\d+\\.Final\\.jar"))
                .toArray(Path[]::new);
        Configuration modules = ModuleLayer.boot()
                .configuration()
                .resolve(ModuleFinder.of(netty), ModuleFinder.of(), Set.of("io.netty.transport.classes.io_uring"));
        ClassLoader loader = ModuleLayer.boot()
                .defineModulesWithOneLoader(modules, ClassLoader.getSystemClassLoader())
                .findLoader("io.netty.transport.classes.io_uring");
        NumaspreadException refused = assertThrows(
                NumaspreadException.class,
                () -> IoUringNapiBusyPolling.prepare(
                        new KernelPaths(procWith(proc, "6.18.2"), Path.of("/sys")), loader, 50, true));
        assertEquals(NumaspreadException.Kind.REFUSED, refused.kind());
        assertEquals(
                "Netty's io_uring package is closed to numaspread, which reads each loop's ring descriptor from"
                        + " IoUringIoHandler.ringBuffer: run with --add-opens"
                        + " io.netty.transport.classes.io_uring/io.netty.channel.uring=io.numaspread.netty",
                refused.getMessage());
    }
}
