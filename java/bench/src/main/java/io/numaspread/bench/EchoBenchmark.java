// SPDX-License-Identifier: Apache-2.0
package io.numaspread.bench;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.socket.SocketChannel;
import io.numaspread.kernel.SysfsTree;
import io.numaspread.netty.PinnedEventLoopGroup;
import io.numaspread.pin.ThreadPinner;
import io.numaspread.plan.Mode;
import io.numaspread.plan.PlanRequest;
import io.numaspread.plan.Planner;
import io.numaspread.plan.SpreadPlan;
import io.numaspread.topology.TopologyDiscovery;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Round trips of 64 bytes through a real Netty epoll echo server on 127.0.0.1, from a Netty client whose two
 * loops are pinned to the first two CPUs. Four connections, from client CPUs A, A, B, B, are used in turn.
 * The server's two worker loops are Netty's default (unpinned, round-robin), pinned to A and B (round-robin
 * puts connections 1 and 2 on the other CPU's loop), or pinned and steered by SO_INCOMING_CPU (each
 * connection on the loop of its client's CPU, since loopback handles packets on the sender's CPU).
 */
@BenchmarkMode(org.openjdk.jmh.annotations.Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 2)
@Fork(value = 3, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
@State(Scope.Thread)
public class EchoBenchmark {
    private static final int PAYLOAD = 64;

    /** default, pinned or steered server loops. */
    @Param({"default", "pinned", "steered"})
    public String loops;

    private EventLoopGroup boss;
    private EventLoopGroup workers;
    private PinnedEventLoopGroup clients;
    private Channel listener;
    private final List<Connection> connections = new ArrayList<>();
    private final ByteBuf payload =
            Unpooled.unreleasableBuffer(Unpooled.directBuffer(PAYLOAD).writeZero(PAYLOAD));
    private int next;

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        ThreadPinner pinner = ThreadPinner.live();
        SpreadPlan twoCpus = Planner.plan(
                TopologyDiscovery.discover(pinner.backend(), SysfsTree.live()),
                PlanRequest.threads(0, 2).withMode(Mode.CPU));
        boss = new MultiThreadIoEventLoopGroup(1, EpollIoHandler.newFactory());
        workers = switch (loops) {
            case "default" -> new MultiThreadIoEventLoopGroup(2, EpollIoHandler.newFactory());
            case "pinned", "steered" ->
                PinnedEventLoopGroup.builder(EpollIoHandler.newFactory())
                        .plan(twoCpus)
                        .pinner(pinner)
                        .steering(loops.equals("steered"))
                        .names("echo-server-%d")
                        .build();
            default -> throw new IllegalArgumentException("loops must be default, pinned or steered, not " + loops);
        };
        clients = PinnedEventLoopGroup.builder(EpollIoHandler.newFactory())
                .plan(twoCpus)
                .pinner(pinner)
                .steering(false)
                .names("echo-client-%d")
                .build();
        listener = new ServerBootstrap()
                .group(boss, workers)
                .channel(EpollServerSocketChannel.class)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel channel) {
                        channel.pipeline().addLast(new ChannelInboundHandlerAdapter() {
                            @Override
                            public void channelRead(ChannelHandlerContext ctx, Object message) {
                                ctx.writeAndFlush(message);
                            }
                        });
                    }
                })
                .bind(new InetSocketAddress("127.0.0.1", 0))
                .sync()
                .channel();
        for (int clientLoop : new int[] {0, 0, 1, 1}) {
            Connection connection = new Connection();
            connection.channel = new Bootstrap()
                    .group(clients.loops().get(clientLoop).loop())
                    .channel(EpollSocketChannel.class)
                    .handler(connection)
                    .connect(listener.localAddress())
                    .sync()
                    .channel();
            connections.add(connection);
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        listener.close().syncUninterruptibly();
        for (EventLoopGroup group : List.of(clients, workers, boss)) {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }

    @Benchmark
    public Object roundTrip() throws Exception {
        Connection connection = connections.get(next);
        next = (next + 1) % connections.size();
        return connection.roundTrip(payload);
    }

    /** One client connection; a round trip ends when all the bytes sent have come back. */
    private static final class Connection extends ChannelInboundHandlerAdapter {
        private Channel channel;
        private volatile CompletableFuture<Integer> pending;
        private int received;

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object message) {
            ByteBuf bytes = (ByteBuf) message;
            received += bytes.readableBytes();
            bytes.release();
            if (received >= PAYLOAD) {
                received -= PAYLOAD;
                pending.complete(PAYLOAD);
            }
        }

        Integer roundTrip(ByteBuf payload) throws Exception {
            CompletableFuture<Integer> done = new CompletableFuture<>();
            pending = done;
            channel.writeAndFlush(payload.duplicate());
            return done.get(10, TimeUnit.SECONDS);
        }
    }
}
