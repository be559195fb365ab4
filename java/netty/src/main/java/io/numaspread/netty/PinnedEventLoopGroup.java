// SPDX-License-Identifier: Apache-2.0
package io.numaspread.netty;

import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelPromise;
import io.netty.channel.EventLoop;
import io.netty.channel.IoEventLoop;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.EventExecutor;
import io.numaspread.kernel.InterfaceName;
import io.numaspread.kernel.KernelPaths;
import io.numaspread.kernel.SysfsTree;
import io.numaspread.nativeaccess.BackendUnavailableException;
import io.numaspread.nic.NicDiscovery;
import io.numaspread.pin.PinnedThreadFactory;
import io.numaspread.pin.ThreadPinner;
import io.numaspread.plan.PlanRequest;
import io.numaspread.plan.Planner;
import io.numaspread.plan.Purpose;
import io.numaspread.plan.SpreadPlan;
import io.numaspread.topology.Topology;
import io.numaspread.topology.TopologyDiscovery;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A Netty event loop group whose loop i is pinned to assignment i of a {@link SpreadPlan}: by default the
 * sibling groups a NIC's queues are spread over, one loop per queue. It works with every transport that has
 * an {@link IoHandlerFactory}: {@code NioIoHandler}, {@code EpollIoHandler}, {@code IoUringIoHandler}.
 *
 * <p>Used as a server's child group, it registers each accepted connection on the loop whose CPUs contain the
 * connection's {@code SO_INCOMING_CPU} ({@link IncomingCpuSteering}), and leaves it to Netty's chooser when no
 * loop does. NIO channels need the JVM flag {@value ChannelFds#NIO_FLAG} for that; epoll and io_uring do not.
 *
 * <p>The loops start when the group is built, one after the other, so that the k-th thread created is loop
 * k's, and each loop reports the affinity its thread got.
 */
public final class PinnedEventLoopGroup extends MultiThreadIoEventLoopGroup {
    private final List<PinnedLoop> loops;
    private final IncomingCpuSteering steering;

    private PinnedEventLoopGroup(PinnedThreadFactory threads, IoHandlerFactory ioHandlerFactory, ThreadPinner pinner,
            boolean steer) {
        super(threads.plan().size(), threads, ioHandlerFactory);
        this.loops = startInOrder(threads.plan(), pinner);
        this.steering = steer ? new IncomingCpuSteering(pinner.backend(), loops) : null;
    }

    /**
     * One loop per queue of {@code nic}, loop i on the sibling group of queue i as {@code numaspread plan --nic}
     * places it (within this process's allowed CPUs), with steering.
     */
    public static PinnedEventLoopGroup forNic(String nic, IoHandlerFactory ioHandlerFactory)
            throws BackendUnavailableException {
        return builder(ioHandlerFactory).nic(nic).build();
    }

    /** {@code count} loops spread from {@code node} over this process's allowed CPUs, with steering. */
    public static PinnedEventLoopGroup forNode(int node, int count, IoHandlerFactory ioHandlerFactory)
            throws BackendUnavailableException {
        return builder(ioHandlerFactory).node(node, count).build();
    }

    /** One loop per assignment of {@code plan}, with steering. */
    public static PinnedEventLoopGroup forPlan(SpreadPlan plan, IoHandlerFactory ioHandlerFactory)
            throws BackendUnavailableException {
        return builder(ioHandlerFactory).plan(plan).build();
    }

    public static Builder builder(IoHandlerFactory ioHandlerFactory) {
        return new Builder(ioHandlerFactory);
    }

    /** The loops in group order, with the CPUs each thread got. */
    public List<PinnedLoop> loops() {
        return loops;
    }

    /** The steering counters, or empty when steering is off. */
    public Optional<IncomingCpuSteering> steering() {
        return Optional.ofNullable(steering);
    }

    @Override
    public ChannelFuture register(Channel channel) {
        return loopFor(channel).register(channel);
    }

    @Override
    public ChannelFuture register(ChannelPromise promise) {
        return loopFor(promise.channel()).register(promise);
    }

    /** Accepted channels (those with a parent) are steered; the server's own and outgoing ones are not. */
    private EventLoop loopFor(Channel channel) {
        if (steering != null && channel.parent() != null) {
            Optional<IoEventLoop> local = steering.choose(channel);
            if (local.isPresent()) {
                return local.get();
            }
        }
        return next();
    }

    private List<PinnedLoop> startInOrder(SpreadPlan plan, ThreadPinner pinner) {
        List<PinnedLoop> started = new ArrayList<>(plan.size());
        for (EventExecutor executor : this) {
            IoEventLoop loop = (IoEventLoop) executor;
            int index = started.size();
            started.add(loop.submit(() -> new PinnedLoop(index, loop, plan.get(index), pinner.currentAffinity(),
                    pinner.currentTid(), Thread.currentThread().getName())).syncUninterruptibly().getNow());
        }
        return List.copyOf(started);
    }

    /** Where the loops go (a NIC, a node and count, or a plan) and how they are built. */
    public static final class Builder {
        private final IoHandlerFactory ioHandlerFactory;
        private String nic;
        private Integer node;
        private int count;
        private SpreadPlan plan;
        private ThreadPinner pinner;
        private KernelPaths kernel = KernelPaths.LIVE;
        private String names = "numaspread-loop-%d";
        private boolean steering = true;

        private Builder(IoHandlerFactory ioHandlerFactory) {
            this.ioHandlerFactory = Objects.requireNonNull(ioHandlerFactory);
        }

        /** One loop per queue of {@code nic}, planned by {@link io.numaspread.nic.Nic#planRequest}. */
        public Builder nic(String name) {
            this.nic = Objects.requireNonNull(name);
            return this;
        }

        /** {@code loops} loops spread from {@code origin}. */
        public Builder node(int origin, int loops) {
            this.node = origin;
            this.count = loops;
            return this;
        }

        /** Loop i on assignment i. */
        public Builder plan(SpreadPlan spreadPlan) {
            this.plan = Objects.requireNonNull(spreadPlan);
            return this;
        }

        /** Overrides the loop count of {@link #nic} (default: its queue count). */
        public Builder loops(int loops) {
            this.count = loops;
            return this;
        }

        /** The pinner to use instead of {@link ThreadPinner#live()}. */
        public Builder pinner(ThreadPinner threadPinner) {
            this.pinner = Objects.requireNonNull(threadPinner);
            return this;
        }

        /** The proc and sysfs trees the NIC and the machine are read from (default: the live ones). */
        public Builder kernel(KernelPaths paths) {
            this.kernel = Objects.requireNonNull(paths);
            return this;
        }

        /** A {@link String#format} pattern for loop thread names, given the loop index. */
        public Builder names(String format) {
            this.names = Objects.requireNonNull(format);
            return this;
        }

        /** Steer accepted connections to the loop of their incoming CPU (default: on). */
        public Builder steering(boolean on) {
            this.steering = on;
            return this;
        }

        /**
         * @throws io.numaspread.NumaspreadException naming the NIC or file when the NIC is unknown, virtual or
         *     has no queue vectors
         * @throws IllegalArgumentException for an unknown node, or when neither or both of a NIC, a node and a
         *     plan are given
         * @throws io.numaspread.pin.CpusNotAllowedException when the plan uses CPUs this process may not
         */
        public PinnedEventLoopGroup build() throws BackendUnavailableException {
            if ((nic != null ? 1 : 0) + (node != null ? 1 : 0) + (plan != null ? 1 : 0) != 1) {
                throw new IllegalArgumentException("give exactly one of a NIC, a node and a count, or a plan");
            }
            ThreadPinner threadPinner = pinner != null ? pinner : ThreadPinner.live();
            SpreadPlan spreadPlan = plan != null ? plan : spreadPlan(threadPinner);
            PinnedThreadFactory threads = PinnedThreadFactory.builder(spreadPlan, threadPinner).names(names)
                    .delegate(new DefaultThreadFactory(PinnedEventLoopGroup.class))
                    .build();
            return new PinnedEventLoopGroup(threads, ioHandlerFactory, threadPinner, steering);
        }

        /** The plan the loops are built on: the NIC's as {@code plan --nic} makes it, or the node's. */
        SpreadPlan spreadPlan(ThreadPinner threadPinner) {
            Topology topology = TopologyDiscovery.discover(threadPinner.backend(), SysfsTree.at(kernel.sysfsRoot()))
                    .withAllowed(threadPinner.allowed());
            PlanRequest request;
            if (nic != null) {
                request = NicDiscovery.discover(new InterfaceName(nic), kernel).planRequest(topology, Purpose.THREADS);
                request = count > 0 ? request.withCount(count) : request;
            } else {
                request = PlanRequest.threads(node, count);
            }
            return Planner.plan(topology, request);
        }
    }
}
