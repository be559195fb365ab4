// SPDX-License-Identifier: Apache-2.0
package io.numaspread.examples;

import static io.numaspread.examples.ExampleArgs.positive;
import static io.numaspread.examples.ExampleArgs.value;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.unix.IntegerUnixChannelOption;
import io.netty.channel.uring.IoUringIoHandler;
import io.netty.channel.uring.IoUringServerSocketChannel;
import io.netty.util.AttributeKey;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.numaspread.NumaspreadException;
import io.numaspread.nativeaccess.EpollBusyPoll;
import io.numaspread.netty.ConnectionSteering;
import io.numaspread.netty.IoUringLoopNapi;
import io.numaspread.netty.PinnedEventLoopGroup;
import io.numaspread.netty.PinnedLoop;
import io.numaspread.netty.SteeringKey;
import io.numaspread.nic.IrqSuspension;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.stream.Collectors;

/**
 * A TCP echo server whose connection loops sit next to a NIC's queues. Two ways to run it:
 *
 * <pre>
 * java -jar numaspread-examples.jar --nic eth0                     # PinnedEventLoopGroup.forNic, steered
 * java -javaagent:numaspread-agent.jar=threads=echo-loop-*,nic=eth0 \
 *      -jar numaspread-examples.jar --default-loops 4              # Netty's own loops, pinned by the agent
 * </pre>
 *
 * With {@code --nic} each accepted connection is registered on its queue's loop: by its
 * {@code SO_INCOMING_NAPI_ID} when the NIC's NAPI map is known, else (or with {@code --steer-by cpu}) on the loop
 * whose CPUs hold its {@code SO_INCOMING_CPU} (the CPU that took its queue's interrupt); {@code --no-steering}
 * keeps the pinned loops and leaves the choice to Netty's round robin. {@code --busy-poll USECS} makes each loop
 * busy-poll its queue for that long in {@code epoll_wait} (Linux 6.9+; refused with exit status 3 before).
 * {@code --transport io_uring} runs the loops on Netty's io_uring transport instead of epoll; there
 * {@code --busy-poll USECS} registers each loop's ring for NAPI busy polling ({@code IORING_REGISTER_NAPI}, Linux
 * 6.9+, each loop's own queue's NAPI IDs from 6.13; refused with exit status 3 before 6.9), and
 * {@code --irq-suspension}, which is epoll's, is refused.
 * {@code --irq-suspension} turns on {@link IrqSuspension#recipe()} instead: each loop's epoll instance prefers busy
 * polling and each queue's NAPI takes the recipe's {@code napi-set} values, so that the queue's IRQ stays masked while
 * the loop keeps finding events (Linux 6.13+ with {@code CAP_NET_ADMIN}; refused with exit status 3 before 6.13). With
 * {@code --report} it prints one line per connection at its first read, all as the kernel reports them: the incoming
 * CPU and NAPI ID (the receive queue) just before steering chose its loop, when it became active and at that read, and
 * the serving thread's ID, allowed CPUs and the CPU it ran on. Ctrl-C (or SIGTERM) prints the steering counters and
 * stops.
 */
public final class EchoServer {
    private static final int SOL_SOCKET = 1;
    private static final IntegerUnixChannelOption SO_INCOMING_CPU =
            new IntegerUnixChannelOption("SO_INCOMING_CPU", SOL_SOCKET, 49);
    private static final IntegerUnixChannelOption SO_INCOMING_NAPI_ID =
            new IntegerUnixChannelOption("SO_INCOMING_NAPI_ID", SOL_SOCKET, 56);
    /** {CPU, NAPI ID} as the kernel gave them on the acceptor thread, just before the group chose the loop. */
    private static final AttributeKey<int[]> AT_STEERING = AttributeKey.valueOf("echo-server.at-steering");

    private EchoServer() {}

    public static void main(String[] args) throws Exception {
        Options options = ExampleArgs.parseOrExit(
                "echo-server",
                "EchoServer (--nic IFACE [--no-steering |"
                        + " --steer-by napi-id|cpu] [--busy-poll USECS | --irq-suspension] [--loops-on-irq-cpus]"
                        + " | --default-loops N) [--transport epoll|io_uring] [--port P]"
                        + " [--bind ADDRESS]"
                        + " [--report]",
                Options::parse,
                args);
        Transport transport = options.transport;
        EventLoopGroup boss = new MultiThreadIoEventLoopGroup(
                1, new DefaultThreadFactory("echo-accept"), transport.ioHandlerFactory());
        EventLoopGroup workers;
        if (options.nic != null) {
            PinnedEventLoopGroup.Builder builder = PinnedEventLoopGroup.builder(transport.ioHandlerFactory())
                    .nic(options.nic)
                    .names("echo-loop-%d")
                    .steering(options.steering)
                    .loopsOnIrqCpus(options.loopsOnIrqCpus);
            if (options.steerBy != null) {
                builder.steering(options.steerBy);
            }
            if (options.busyPollUsecs > 0 && transport == Transport.IO_URING) {
                builder.ioUringBusyPoll(options.busyPollUsecs, false);
            } else if (options.busyPollUsecs > 0) {
                builder.busyPoll(new EpollBusyPoll(options.busyPollUsecs, EpollBusyPoll.NAPI_POLL_WEIGHT, false));
            }
            if (options.irqSuspension) {
                builder.irqSuspension(IrqSuspension.recipe());
            }
            PinnedEventLoopGroup pinned;
            try {
                pinned = builder.build();
            } catch (NumaspreadException e) {
                System.err.println("echo-server: " + e.getMessage());
                System.exit(e.kind() == NumaspreadException.Kind.REFUSED ? 3 : 1);
                return;
            }
            for (PinnedLoop loop : pinned.loops()) {
                System.out.printf(
                        "loop %d %s tid %d cpus %s%n", loop.index(), loop.threadName(), loop.tid(), loop.cpus());
            }
            pinned.steering()
                    .ifPresent(steering -> System.out.printf(
                            "steering by %s, NAPI map %s%n",
                            steering.key(),
                            steering.napis()
                                    .map(map -> map.source() + " ("
                                            + map.instances().size() + " NAPIs: " + map.detail() + ")")
                                    .orElse("none")));
            for (int loop = 0; loop < pinned.busyPolling().size(); loop++) {
                EpollBusyPoll params = pinned.busyPolling().get(loop);
                System.out.printf(
                        "busy-poll loop %d usecs %d budget %d prefer %b%n",
                        loop, params.usecs(), params.budget(), params.preferBusyPoll());
            }
            for (int loop = 0; loop < pinned.ioUringBusyPolling().size(); loop++) {
                IoUringLoopNapi ring = pinned.ioUringBusyPolling().get(loop);
                System.out.printf(
                        "busy-poll loop %d ring-fd %d usecs %d prefer %b tracking %s napi-ids %s%n",
                        loop,
                        ring.ringFd(),
                        ring.settings().busyPollUsecs(),
                        ring.settings().preferBusyPoll(),
                        ring.settings().tracking(),
                        ring.napiIds());
            }
            workers = pinned;
        } else {
            workers = new MultiThreadIoEventLoopGroup(
                    options.defaultLoops, new DefaultThreadFactory("echo-loop"), transport.ioHandlerFactory());
        }
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            if (workers instanceof PinnedEventLoopGroup pinned
                    && pinned.steering().isPresent()) {
                ConnectionSteering steering = pinned.steering().get();
                System.out.printf("steered %d fell-back %d%n", steering.steered(), steering.fellBack());
                System.out.printf(
                        "by-napi-id %d napi-id-unknown %d off-queue %s%n",
                        steering.steeredByNapiId(),
                        steering.napiIdUnknown(),
                        steering.offQueueByLoop().stream().map(String::valueOf).collect(Collectors.joining(",")));
            }
            System.out.flush();
            // A group that set NAPI settings (--irq-suspension) puts them back in a listener of its termination;
            // listeners run in the order added, so this one's countdown comes after that and the JVM exits with
            // the NIC's NAPIs as they were, not as the next server would find them.
            CountDownLatch stopped = new CountDownLatch(1);
            boss.shutdownGracefully(0, 2, TimeUnit.SECONDS);
            workers.shutdownGracefully(0, 2, TimeUnit.SECONDS).addListener(done -> stopped.countDown());
            try {
                if (!stopped.await(30, TimeUnit.SECONDS)) {
                    System.err.println("echo-server: the loops did not stop within 30 s");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }));
        Channel server = new ServerBootstrap()
                .group(boss, workers)
                .channel(transport.serverChannel)
                .option(ChannelOption.SO_BACKLOG, 1024)
                .handler(new AtSteering())
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childHandler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel channel) {
                        channel.pipeline().addLast(new Echo(options.report ? System.out : null));
                    }
                })
                .bind(options.bind, options.port)
                .sync()
                .channel();
        System.out.println("listening on " + server.localAddress());
        server.closeFuture().sync();
    }

    /**
     * In the listening channel's pipeline, ahead of the bootstrap's acceptor that registers each accepted channel
     * (and so has the group steer it), on the same thread: what the kernel says of the connection at the moment
     * steering reads it, so that a report can judge the choice by the kernel's answer rather than by steering's.
     */
    private static final class AtSteering extends ChannelInboundHandlerAdapter {
        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (msg instanceof Channel accepted) {
                accepted.attr(AT_STEERING)
                        .set(new int[] {option(accepted, SO_INCOMING_CPU), option(accepted, SO_INCOMING_NAPI_ID)});
            }
            ctx.fireChannelRead(msg);
        }
    }

    /** Writes back what it reads; with a report stream, describes the connection at its first read. */
    private static final class Echo extends ChannelInboundHandlerAdapter {
        private final PrintStream report;
        private int acceptCpu = -1;
        private int acceptNapiId = -1;
        private boolean reported;

        Echo(PrintStream report) {
            this.report = report;
        }

        @Override
        public void channelActive(ChannelHandlerContext ctx) {
            acceptCpu = option(ctx.channel(), SO_INCOMING_CPU);
            acceptNapiId = option(ctx.channel(), SO_INCOMING_NAPI_ID);
            ctx.fireChannelActive();
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (report != null && !reported) {
                reported = true;
                Channel channel = ctx.channel();
                int[] atSteering = channel.attr(AT_STEERING).get();
                report.printf(
                        "connection %s accept-cpu %d read-cpu %d napi %d loop %s loop-cpus %s ran-on %d "
                                + "accept-napi %d steer-cpu %d steer-napi %d tid %d%n",
                        channel.remoteAddress(),
                        acceptCpu,
                        option(channel, SO_INCOMING_CPU),
                        option(channel, SO_INCOMING_NAPI_ID),
                        Thread.currentThread().getName(),
                        ownCpus(),
                        ownCpu(),
                        acceptNapiId,
                        atSteering[0],
                        atSteering[1],
                        ownTid());
            }
            ctx.write(msg);
        }

        @Override
        public void channelReadComplete(ChannelHandlerContext ctx) {
            ctx.flush();
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            System.err.println("echo-server: " + ctx.channel().remoteAddress() + ": " + cause);
            ctx.close();
        }
    }

    private static int option(Channel channel, IntegerUnixChannelOption option) {
        Integer value = channel.config().getOption(option);
        return value == null ? -1 : value;
    }

    /** The CPU this thread last ran on: field 39 of /proc/thread-self/stat. */
    private static int ownCpu() {
        try {
            String stat = Files.readString(Path.of("/proc/thread-self/stat"));
            String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            return Integer.parseInt(fields[39 - 3]);
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    /** This thread's ID in the kernel: /proc/thread-self links to PID/task/TID. */
    private static long ownTid() {
        try {
            return Long.parseLong(Files.readSymbolicLink(Path.of("/proc/thread-self"))
                    .getFileName()
                    .toString());
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    /** This thread's allowed CPUs: Cpus_allowed_list of /proc/thread-self/status. */
    private static String ownCpus() {
        try {
            List<String> lines = Files.readAllLines(Path.of("/proc/thread-self/status"));
            return lines.stream()
                    .filter(line -> line.startsWith("Cpus_allowed_list:"))
                    .map(line -> line.substring(line.indexOf(':') + 1).strip())
                    .findFirst()
                    .orElse("?");
        } catch (IOException e) {
            return "?";
        }
    }

    /** The Netty transport the loops run on. */
    enum Transport {
        EPOLL(EpollIoHandler::newFactory, EpollServerSocketChannel.class),
        IO_URING(IoUringIoHandler::newFactory, IoUringServerSocketChannel.class);

        private final Supplier<IoHandlerFactory> ioHandlerFactory;
        private final Class<? extends ServerChannel> serverChannel;

        Transport(Supplier<IoHandlerFactory> ioHandlerFactory, Class<? extends ServerChannel> serverChannel) {
            this.ioHandlerFactory = ioHandlerFactory;
            this.serverChannel = serverChannel;
        }

        IoHandlerFactory ioHandlerFactory() {
            return ioHandlerFactory.get();
        }
    }

    record Options(
            String nic,
            boolean steering,
            SteeringKey steerBy,
            int busyPollUsecs,
            int defaultLoops,
            String bind,
            int port,
            boolean report,
            boolean loopsOnIrqCpus,
            boolean irqSuspension,
            Transport transport) {
        static Options parse(String[] args) {
            String nic = null;
            boolean steering = true;
            SteeringKey steerBy = null;
            int busyPollUsecs = 0;
            int defaultLoops = 0;
            String bind = "0.0.0.0";
            int port = 7007;
            boolean report = false;
            boolean loopsOnIrqCpus = false;
            boolean irqSuspension = false;
            Transport transport = Transport.EPOLL;
            for (int i = 0; i < args.length; i++) {
                switch (args[i]) {
                    case "--nic" -> nic = value(args, ++i, "--nic");
                    case "--no-steering" -> steering = false;
                    case "--steer-by" ->
                        steerBy = switch (value(args, ++i, "--steer-by")) {
                            case "napi-id" -> SteeringKey.INCOMING_NAPI_ID;
                            case "cpu" -> SteeringKey.INCOMING_CPU;
                            default ->
                                throw new IllegalArgumentException(
                                        "--steer-by is napi-id or cpu, not '" + args[i] + "'");
                        };
                    case "--busy-poll" -> busyPollUsecs = positive("--busy-poll", value(args, ++i, "--busy-poll"));
                    case "--default-loops" ->
                        defaultLoops = positive("--default-loops", value(args, ++i, "--default-loops"));
                    case "--bind" -> bind = value(args, ++i, "--bind");
                    case "--port" -> port = positive("--port", value(args, ++i, "--port"));
                    case "--report" -> report = true;
                    case "--loops-on-irq-cpus" -> loopsOnIrqCpus = true;
                    case "--irq-suspension" -> irqSuspension = true;
                    case "--transport" ->
                        transport = switch (value(args, ++i, "--transport")) {
                            case "epoll" -> Transport.EPOLL;
                            case "io_uring" -> Transport.IO_URING;
                            default ->
                                throw new IllegalArgumentException(
                                        "--transport is epoll or io_uring, not '" + args[i] + "'");
                        };
                    default -> throw new IllegalArgumentException("unknown argument '" + args[i] + "'");
                }
            }
            if ((nic == null) == (defaultLoops == 0)) {
                throw new IllegalArgumentException("give exactly one of --nic IFACE and --default-loops N");
            }
            if ((!steering || steerBy != null || busyPollUsecs > 0 || loopsOnIrqCpus || irqSuspension) && nic == null) {
                throw new IllegalArgumentException(
                        "--no-steering, --steer-by, --busy-poll, --irq-suspension and --loops-on-irq-cpus go with"
                                + " --nic");
            }
            if (busyPollUsecs > 0 && irqSuspension) {
                // The recipe sets the loops' busy polling itself (0 us, prefer_busy_poll); another would replace it.
                throw new IllegalArgumentException("give one of --busy-poll and --irq-suspension");
            }
            if (irqSuspension && transport == Transport.IO_URING) {
                throw new IllegalArgumentException(
                        "--irq-suspension is for epoll loops; io_uring loops busy-poll with --busy-poll");
            }
            if (!steering && steerBy != null) {
                throw new IllegalArgumentException("give one of --no-steering and --steer-by");
            }
            return new Options(
                    nic,
                    steering,
                    steerBy,
                    busyPollUsecs,
                    defaultLoops,
                    bind,
                    port,
                    report,
                    loopsOnIrqCpus,
                    irqSuspension,
                    transport);
        }
    }
}
