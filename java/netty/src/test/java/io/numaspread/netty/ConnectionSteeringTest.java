// SPDX-License-Identifier: Apache-2.0
package io.numaspread.netty;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.local.LocalAddress;
import io.netty.channel.local.LocalChannel;
import io.netty.channel.local.LocalIoHandler;
import io.netty.channel.local.LocalServerChannel;
import io.netty.channel.socket.SocketChannel;
import io.numaspread.CpuSet;
import io.numaspread.kernel.InterfaceName;
import io.numaspread.kernel.SysfsTree;
import io.numaspread.nativeaccess.BackendKind;
import io.numaspread.nativeaccess.Backends;
import io.numaspread.nativeaccess.NativeBackend;
import io.numaspread.nic.NapiInstance;
import io.numaspread.nic.NapiMap;
import io.numaspread.nic.NapiSource;
import io.numaspread.pin.ThreadPinner;
import io.numaspread.plan.Mode;
import io.numaspread.plan.PlanRequest;
import io.numaspread.plan.Planner;
import io.numaspread.plan.SpreadPlan;
import io.numaspread.testing.NeedsSecondCpu;
import io.numaspread.testing.ProcStatus;
import io.numaspread.topology.TopologyDiscovery;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A real Netty server on 127.0.0.1 whose two loops are pinned to CPU 0 and CPU 1. Clients connect from threads
 * pinned to CPU 0, then CPU 1; loopback handles a packet on its sender's CPU, so the accepted connections'
 * SO_INCOMING_CPU are 0 and 1, and each must land on the loop pinned there.
 */
@NeedsSecondCpu
class ConnectionSteeringTest {
    private static final List<Integer> CLIENT_CPUS = List.of(0, 1, 1, 0);

    private static SpreadPlan oneLoopPerCpu(ThreadPinner pinner, int count) {
        return Planner.plan(
                TopologyDiscovery.discover(pinner.backend(), SysfsTree.live()),
                PlanRequest.threads(0, count).withMode(Mode.CPU));
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void acceptedConnectionsLandOnTheLoopOfTheirIncomingCpu(Transport transport) throws Exception {
        ThreadPinner pinner = ThreadPinner.live();
        PinnedEventLoopGroup workers = PinnedEventLoopGroup.builder(transport.ioHandlerFactory())
                .plan(oneLoopPerCpu(pinner, 2))
                .pinner(pinner)
                .names("steer-test-%d")
                .build();
        try (Server server = new Server(transport, workers)) {
            assertEquals(
                    List.of(CpuSet.of(0), CpuSet.of(1)),
                    workers.loops().stream().map(PinnedLoop::cpus).toList());
            for (PinnedLoop loop : workers.loops()) {
                assertEquals(loop.assignment().cpus(), ProcStatus.cpusAllowed(loop.tid()), loop.threadName());
                assertEquals("steer-test-" + loop.index(), loop.threadName());
            }
            for (int cpu : CLIENT_CPUS) {
                Channel accepted = server.acceptFrom(pinner, cpu);
                PinnedLoop expected = workers.loops().get(cpu);
                assertSame(
                        expected.loop(),
                        accepted.eventLoop(),
                        transport + ": client on CPU " + cpu + " landed on " + accepted.eventLoop() + ", not loop "
                                + cpu);
            }
            ConnectionSteering steering = workers.steering().orElseThrow();
            assertEquals(List.of((long) CLIENT_CPUS.size(), 0L), List.of(steering.steered(), steering.fellBack()));
        }
    }

    @Test
    void aConnectionFromACpuNoLoopCoversFallsBackAndIsCounted() throws Exception {
        ThreadPinner pinner = ThreadPinner.live();
        PinnedEventLoopGroup workers = PinnedEventLoopGroup.builder(Transport.EPOLL.ioHandlerFactory())
                .plan(oneLoopPerCpu(pinner, 1))
                .pinner(pinner)
                .build();
        try (Server server = new Server(Transport.EPOLL, workers)) {
            assertEquals(CpuSet.of(0), workers.loops().get(0).cpus());
            server.acceptFrom(pinner, 1);
            server.acceptFrom(pinner, 0);
            ConnectionSteering steering = workers.steering().orElseThrow();
            assertEquals(List.of(1L, 1L), List.of(steering.steered(), steering.fellBack()));

            PrometheusRegistry registry = new PrometheusRegistry();
            SteeringMetrics.register(registry, "workers", steering);
            server.acceptFrom(pinner, 0);
            ByteArrayOutputStream text = new ByteArrayOutputStream();
            PrometheusTextFormatWriter.create().write(text, registry.scrape());
            List<String> samples = text.toString(StandardCharsets.UTF_8)
                    .lines()
                    .filter(l -> !l.startsWith("#"))
                    .toList();
            assertEquals(
                    List.of(
                            "numaspread_netty_connections_fell_back_total{group=\"workers\"} 1.0",
                            "numaspread_netty_connections_napi_id_unknown_total{group=\"workers\"} 0.0",
                            "numaspread_netty_connections_off_queue_total{group=\"workers\",loop=\"0\"} 0.0",
                            "numaspread_netty_connections_steered_total{group=\"workers\"} 2.0"),
                    samples,
                    "exported at the scrape, after a third connection");
            String dashboard = Files.readString(
                    Path.of(System.getProperty("basedir", "."), "../../deploy/grafana/numaspread-watch.json"));
            Matcher named = Pattern.compile("numaspread_netty_\\w+").matcher(dashboard);
            int found = 0;
            while (named.find()) {
                found++;
                String name = named.group();
                assertTrue(
                        samples.stream().anyMatch(sample -> sample.startsWith(name + "{")),
                        "the watch dashboard's " + name + " is exported by SteeringMetrics");
            }
            assertTrue(found >= 2, "the dashboard's steered share names both counters");
        }
    }

    /** Netty's in-VM transport has no socket, so no incoming CPU: its connections fall back, and are counted. */
    @Test
    void aChannelWithoutADescriptorFallsBack() throws Exception {
        ThreadPinner pinner = ThreadPinner.live();
        PinnedEventLoopGroup workers = PinnedEventLoopGroup.builder(LocalIoHandler.newFactory())
                .plan(oneLoopPerCpu(pinner, 2))
                .pinner(pinner)
                .build();
        EventLoopGroup boss = new MultiThreadIoEventLoopGroup(1, LocalIoHandler.newFactory());
        BlockingQueue<Channel> accepted = new LinkedBlockingQueue<>();
        try {
            LocalAddress address = new LocalAddress(ConnectionSteeringTest.class);
            Channel listener = new ServerBootstrap()
                    .group(boss, workers)
                    .channel(LocalServerChannel.class)
                    .childHandler(new ChannelInitializer<LocalChannel>() {
                        @Override
                        protected void initChannel(LocalChannel channel) {
                            accepted.add(channel);
                        }
                    })
                    .bind(address)
                    .sync()
                    .channel();
            Channel client = new Bootstrap()
                    .group(boss)
                    .channel(LocalChannel.class)
                    .handler(new ChannelInboundHandlerAdapter())
                    .connect(address)
                    .sync()
                    .channel();
            assertTrue(accepted.poll(10, TimeUnit.SECONDS) != null, "no local connection accepted");
            client.close().sync();
            listener.close().sync();
            ConnectionSteering steering = workers.steering().orElseThrow();
            assertEquals(List.of(0L, 1L), List.of(steering.steered(), steering.fellBack()));
        } finally {
            boss.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
            workers.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }

    @Test
    void everySteerIsAJfrEvent(@TempDir Path dir) throws Exception {
        ThreadPinner pinner = ThreadPinner.live();
        PinnedEventLoopGroup workers = PinnedEventLoopGroup.builder(Transport.EPOLL.ioHandlerFactory())
                .plan(oneLoopPerCpu(pinner, 1))
                .pinner(pinner)
                .build();
        Path file = dir.resolve("steer.jfr");
        try (Server server = new Server(Transport.EPOLL, workers);
                Recording recording = new Recording()) {
            recording.enable("io.numaspread.IncomingCpuSteer");
            recording.start();
            server.acceptFrom(pinner, 0);
            server.acceptFrom(pinner, 1);
            recording.stop();
            recording.dump(file);
        }
        List<RecordedEvent> events = RecordingFile.readAllEvents(file).stream()
                .filter(e -> e.getEventType().getName().equals("io.numaspread.IncomingCpuSteer"))
                .toList();
        assertEquals(
                List.of("0 0 -1 0 steered", "1 0 -1 -1 no loop runs on CPU 1"),
                events.stream()
                        .map(e -> e.getInt("incomingCpu") + " " + e.getInt("napiId") + " " + e.getInt("queue") + " "
                                + e.getInt("loop") + " " + e.getString("outcome"))
                        .toList());
        assertTrue(
                events.get(0).getString("remote").contains("127.0.0.1"),
                events.get(0).getString("remote"));
    }

    @Test
    void theFfmAndJnaBackendsReadTheSameIncomingCpu() throws Exception {
        ThreadPinner pinner = ThreadPinner.live();
        NativeBackend jna =
                Backends.select(SysfsTree.live(), Optional.of(BackendKind.JNA)).backend();
        PinnedEventLoopGroup workers = PinnedEventLoopGroup.builder(Transport.EPOLL.ioHandlerFactory())
                .plan(oneLoopPerCpu(pinner, 2))
                .pinner(pinner)
                .build();
        try (Server server = new Server(Transport.EPOLL, workers)) {
            for (int cpu : CLIENT_CPUS) {
                List<Integer> read = new ArrayList<>();
                server.acceptFrom(pinner, cpu, channel -> {
                    int fd = ChannelFds.fd(channel).orElseThrow();
                    read.add(pinner.backend().incomingCpu(fd));
                    read.add(jna.incomingCpu(fd));
                });
                assertEquals(List.of(cpu, cpu), read, pinner.backend().kind() + " and jna");
            }
        }
    }

    /** A NIC's map as netlink gives it: queue q polled by NAPI ID 8193 + q. */
    private static NapiMap twoQueueNapis() {
        return new NapiMap(
                new InterfaceName("eth0"),
                List.of(
                        new NapiInstance(8193, OptionalInt.of(0), OptionalInt.of(38), OptionalInt.empty()),
                        new NapiInstance(8194, OptionalInt.of(1), OptionalInt.of(40), OptionalInt.empty())),
                NapiSource.NETLINK,
                "queue-get and napi-get");
    }

    /**
     * Loopback's packets take no NAPI instance, so SO_INCOMING_NAPI_ID is 0: steering by NAPI ID (the default
     * once a NAPI map is given) finds no queue, steers by the incoming CPU instead and counts each such connection.
     */
    @ParameterizedTest
    @EnumSource(Transport.class)
    void withoutANapiIdSteeringByNapiIdFallsBackToTheIncomingCpuAndCountsIt(Transport transport) throws Exception {
        ThreadPinner pinner = ThreadPinner.live();
        NativeBackend jna =
                Backends.select(SysfsTree.live(), Optional.of(BackendKind.JNA)).backend();
        PinnedEventLoopGroup workers = PinnedEventLoopGroup.builder(transport.ioHandlerFactory())
                .plan(oneLoopPerCpu(pinner, 2))
                .pinner(pinner)
                .napis(twoQueueNapis())
                .build();
        try (Server server = new Server(transport, workers)) {
            ConnectionSteering steering = workers.steering().orElseThrow();
            assertEquals(SteeringKey.INCOMING_NAPI_ID, steering.key());
            for (int cpu : CLIENT_CPUS) {
                List<Integer> napiIds = new ArrayList<>();
                Channel accepted = server.acceptFrom(pinner, cpu, channel -> {
                    int fd = ChannelFds.fd(channel).orElseThrow();
                    napiIds.add(pinner.backend().incomingNapiId(fd));
                    napiIds.add(jna.incomingNapiId(fd));
                });
                assertEquals(List.of(0, 0), napiIds, pinner.backend().kind() + " and jna read loopback's NAPI ID");
                assertSame(workers.loops().get(cpu).loop(), accepted.eventLoop(), transport + ": client on CPU " + cpu);
            }
            assertEquals(
                    List.of(4L, 0L, 4L, 0L),
                    List.of(
                            steering.steered(),
                            steering.steeredByNapiId(),
                            steering.napiIdUnknown(),
                            steering.fellBack()));
            assertEquals(List.of(0L, 0L), steering.offQueueByLoop(), "no queue known, so none counted as another's");
        }
    }

    @Test
    void steeringByCpuIsStillTheChoiceWithAMap() throws Exception {
        ThreadPinner pinner = ThreadPinner.live();
        PinnedEventLoopGroup workers = PinnedEventLoopGroup.builder(Transport.EPOLL.ioHandlerFactory())
                .plan(oneLoopPerCpu(pinner, 2))
                .pinner(pinner)
                .napis(twoQueueNapis())
                .steering(SteeringKey.INCOMING_CPU)
                .build();
        try (Server server = new Server(Transport.EPOLL, workers)) {
            server.acceptFrom(pinner, 1);
            ConnectionSteering steering = workers.steering().orElseThrow();
            assertEquals(
                    List.of(1L, 0L, 0L),
                    List.of(steering.steered(), steering.steeredByNapiId(), steering.napiIdUnknown()),
                    "a CPU-steered connection never counts as an unknown NAPI ID");
        }
    }

    /** Without netdev netlink a NIC's map names no queue: the default key stays the incoming CPU. */
    @Test
    void aMapThatLinksNoQueueLeavesTheDefaultOnTheIncomingCpu() throws Exception {
        ThreadPinner pinner = ThreadPinner.live();
        NapiMap interruptsOnly =
                new NapiMap(new InterfaceName("eth0"), List.of(), NapiSource.INTERRUPTS, "no netdev netlink family");
        PinnedEventLoopGroup workers = PinnedEventLoopGroup.builder(Transport.EPOLL.ioHandlerFactory())
                .plan(oneLoopPerCpu(pinner, 1))
                .pinner(pinner)
                .napis(interruptsOnly)
                .build();
        try {
            assertEquals(
                    SteeringKey.INCOMING_CPU, workers.steering().orElseThrow().key());
        } finally {
            workers.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }

    @Test
    void steeringByNapiIdNeedsTheNicsNapiMap() {
        ThreadPinner pinner = ThreadPinner.live();
        IllegalArgumentException refused = assertThrows(
                IllegalArgumentException.class,
                () -> PinnedEventLoopGroup.builder(Transport.EPOLL.ioHandlerFactory())
                        .plan(oneLoopPerCpu(pinner, 1))
                        .pinner(pinner)
                        .steering(SteeringKey.INCOMING_NAPI_ID)
                        .build());
        assertEquals("steering by NAPI ID needs the NIC's NAPI map (napis)", refused.getMessage());
    }

    /** A server on 127.0.0.1 whose accepted channels are handed to the test as they become active. */
    private static final class Server implements AutoCloseable {
        private final EventLoopGroup boss;
        private final PinnedEventLoopGroup workers;
        private final Channel listener;
        private final BlockingQueue<Channel> accepted = new LinkedBlockingQueue<>();

        Server(Transport transport, PinnedEventLoopGroup workers) throws InterruptedException {
            this.boss = new MultiThreadIoEventLoopGroup(1, transport.ioHandlerFactory());
            this.workers = workers;
            this.listener = new ServerBootstrap()
                    .group(boss, workers)
                    .channel(transport.serverChannel())
                    .childHandler(new ChannelInitializer<SocketChannel>() {
                        @Override
                        protected void initChannel(SocketChannel channel) {
                            accepted.add(channel);
                        }
                    })
                    .bind(new InetSocketAddress("127.0.0.1", 0))
                    .sync()
                    .channel();
        }

        /** Connects from a thread pinned to {@code cpu} and returns the server's side of the connection. */
        Channel acceptFrom(ThreadPinner pinner, int cpu) throws Exception {
            return acceptFrom(pinner, cpu, channel -> {});
        }

        /** As above, and runs {@code whileOpen} on the server's side before closing it. */
        Channel acceptFrom(ThreadPinner pinner, int cpu, Consumer<Channel> whileOpen) throws Exception {
            CompletableFuture<Socket> client = new CompletableFuture<>();
            Thread thread = new Thread(
                    () -> {
                        try {
                            pinner.pinCurrentThread(CpuSet.of(cpu));
                            Socket socket = new Socket();
                            socket.connect(listener.localAddress());
                            client.complete(socket);
                        } catch (IOException | RuntimeException e) {
                            client.completeExceptionally(e);
                        }
                    },
                    "client-on-cpu-" + cpu);
            thread.start();
            thread.join();
            try (Socket socket = client.get()) {
                Channel channel = accepted.poll(10, TimeUnit.SECONDS);
                assertTrue(channel != null, "no connection accepted from " + socket.getLocalSocketAddress());
                whileOpen.accept(channel);
                channel.close().sync();
                return channel;
            }
        }

        @Override
        public void close() {
            listener.close().syncUninterruptibly();
            boss.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
            workers.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }
}
