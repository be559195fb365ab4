// SPDX-License-Identifier: Apache-2.0
package io.numaspread.netty;

import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelPromise;
import io.netty.channel.EventLoop;
import io.netty.channel.IoEventLoop;
import io.netty.channel.IoHandler;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.ThreadAwareExecutor;
import io.numaspread.NumaspreadException;
import io.numaspread.irq.RecordedNapiSettings;
import io.numaspread.irq.StateFile;
import io.numaspread.kernel.InterfaceName;
import io.numaspread.kernel.KernelPaths;
import io.numaspread.kernel.SysfsTree;
import io.numaspread.lease.CpuLeases;
import io.numaspread.lease.LeasedPlan;
import io.numaspread.lease.LeasedPlanner;
import io.numaspread.nativeaccess.BackendUnavailableException;
import io.numaspread.nativeaccess.EpollBusyPoll;
import io.numaspread.nativeaccess.IoUringNapi;
import io.numaspread.nic.BusyPollCpus;
import io.numaspread.nic.IrqSuspension;
import io.numaspread.nic.LowerDevices;
import io.numaspread.nic.NapiConfig;
import io.numaspread.nic.NapiDiscovery;
import io.numaspread.nic.NapiInstance;
import io.numaspread.nic.NapiMap;
import io.numaspread.nic.NapiSettings;
import io.numaspread.nic.NapiSettingsChange;
import io.numaspread.nic.Nic;
import io.numaspread.nic.NicDiscovery;
import io.numaspread.pin.PinnedThreadFactory;
import io.numaspread.pin.ThreadPinner;
import io.numaspread.plan.PlanRequest;
import io.numaspread.plan.PollSibling;
import io.numaspread.plan.Purpose;
import io.numaspread.plan.SpreadPlan;
import io.numaspread.topology.Topology;
import io.numaspread.topology.TopologyDiscovery;
import java.lang.System.Logger.Level;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import java.util.stream.Collectors;

/**
 * A Netty event loop group whose loop i is pinned to assignment i of a {@link SpreadPlan}: by default the
 * sibling groups a NIC's queues are spread over, one loop per queue. It works with every transport that has
 * an {@link IoHandlerFactory}: {@code NioIoHandler}, {@code EpollIoHandler}, {@code IoUringIoHandler}.
 *
 * <p>Used as a server's child group, it registers each accepted connection on its queue's loop
 * ({@link ConnectionSteering}): by {@code SO_INCOMING_NAPI_ID} when the group serves a NIC whose NAPI map it was
 * given, else by {@code SO_INCOMING_CPU}, and leaves it to Netty's chooser when no loop fits. NIO channels need
 * the JVM flag {@value ChannelFds#NIO_FLAG} for that; epoll and io_uring do not.
 *
 * <p>Opt-in, epoll loops busy-poll their queue ({@link Builder#busyPoll}, Linux 6.9+), and io_uring loops their
 * queues' NAPI instances ({@link Builder#ioUringBusyPoll}, Linux 6.9+, each loop's own NAPI IDs from 6.13).
 *
 * <p>Built for a NIC, the loops stay off the CPUs of its threaded busy-poll NAPIs ({@code threaded} 2, Linux
 * 6.19+, as {@code numaspread apply --poll-queues} sets them up) and their SMT siblings, as the kernel reports them
 * when the group is built ({@link BusyPollCpus}; {@link Builder#pollSibling}).
 *
 * <p>The loops start when the group is built, one after the other, so that the k-th thread created is loop
 * k's, and each loop reports the affinity its thread got.
 */
public final class PinnedEventLoopGroup extends MultiThreadIoEventLoopGroup {
    private static final System.Logger LOG = System.getLogger(PinnedEventLoopGroup.class.getName());
    /** A kernel that cannot say which NAPIs busy-poll says so for every group; the log says it once. */
    private static final AtomicBoolean BUSY_POLL_UNREPORTED_LOGGED = new AtomicBoolean();
    /** An unusable default lease registry (a JVM that is not root cannot create it) is logged once. */
    private static final AtomicBoolean LEASES_UNUSABLE_LOGGED = new AtomicBoolean();

    /** The system property that turns CPU leases off for every group built without {@link Builder#leases}. */
    public static final String LEASES_PROPERTY = CpuLeases.LEASES_PROPERTY;
    /** The system property naming the lease registry's directory (default {@value CpuLeases#DEFAULT}). */
    public static final String LEASE_DIRECTORY_PROPERTY = CpuLeases.DIRECTORY_PROPERTY;

    private final List<PinnedLoop> loops;
    private final ConnectionSteering steering;
    private final List<EpollBusyPoll> busyPolling;
    private final List<IoUringLoopNapi> ioUringBusyPolling;
    private final Optional<RecordedNapiSettings> napiSettings;
    private final List<CpuLeases.Lease> leases;

    private PinnedEventLoopGroup(
            PinnedThreadFactory threads,
            HandlerRecorder handlers,
            ThreadPinner pinner,
            Builder settings,
            Optional<NapiMap> napis,
            Optional<IoUringNapiBusyPolling> ioUring,
            List<CpuLeases.Lease> leases) {
        super(threads.plan().size(), threads, handlers);
        this.leases = leases;
        // The loops' CPUs are leased until the group has terminated (or the JVM exits, which drops the locks).
        terminationFuture().addListener(done -> leases.forEach(CpuLeases.Lease::close));
        if (ioUring.isPresent()) {
            // The handlers exist and no loop has started: a transport other than io_uring is refused now.
            List<IoHandler> made = new ArrayList<>();
            this.forEach(executor -> made.add(handlers.of((IoEventLoop) executor)));
            try {
                IoUringNapiBusyPolling.requireIoUring(made);
            } catch (RuntimeException e) {
                shutdownGracefully(0, 0, TimeUnit.SECONDS).syncUninterruptibly();
                throw e;
            }
        }
        this.loops = startInOrder(threads.plan(), pinner);
        SteeringKey key = settings.steeringKey != null
                ? settings.steeringKey
                : napis.filter(PinnedEventLoopGroup::knowsQueues).isPresent()
                        ? SteeringKey.INCOMING_NAPI_ID
                        : SteeringKey.INCOMING_CPU;
        this.steering = settings.steering ? new ConnectionSteering(pinner.backend(), loops, key, napis) : null;
        // Busy polling and NAPI settings are set on the running loops; if either is refused or fails, the group
        // stops, and nothing stays changed (NapiSettingsChange writes all instances or none).
        try {
            this.busyPolling = settings.busyPoll == null
                    ? List.of()
                    : LoopBusyPolling.apply(
                            pinner.backend(),
                            settings.kernel,
                            loops.stream().map(loop -> handlers.of(loop.loop())).toList(),
                            settings.busyPoll);
            this.ioUringBusyPolling = ioUring.isEmpty()
                    ? List.of()
                    : ioUring.get()
                            .apply(
                                    pinner.backend(),
                                    loops.stream().map(PinnedLoop::loop).toList(),
                                    loops.stream()
                                            .map(loop -> handlers.of(loop.loop()))
                                            .toList(),
                                    ioUring.get().settings().tracking() == IoUringNapi.Tracking.STATIC
                                            ? napiIdsByLoop(napis, loops.size())
                                            : List.of());
            this.napiSettings = settings.napiSettings == null
                    ? Optional.empty()
                    : Optional.of(recordedNapiSettings(settings, pinner, napis, loops.size()));
        } catch (RuntimeException e) {
            shutdownGracefully(0, 0, TimeUnit.SECONDS).syncUninterruptibly();
            throw e;
        }
        // The settings are the NIC's, not the process's: they go back when the loops are done with them; for a
        // process that is killed before, the NIC's state file holds them for numaspread restore, and the log too.
        napiSettings.ifPresent(change -> {
            LOG.log(
                    Level.INFO,
                    "NAPI settings {0} set; before, by NAPI ID: {1}",
                    settings.napiSettings,
                    change.before());
            terminationFuture().addListener(done -> restoreNapiSettings());
        });
    }

    /**
     * Writes the NAPI settings to the loops' queues' NAPIs, each NAPI's own ones recorded first in the NIC's state
     * file (the builder's, or {@code /run/numaspread/IFACE.json} where {@code apply} keeps it).
     */
    private static RecordedNapiSettings recordedNapiSettings(
            Builder settings, ThreadPinner pinner, Optional<NapiMap> napis, int loops) {
        List<Integer> napiIds = napiIdsOfLoops(napis, loops);
        InterfaceName iface = napis.orElseThrow().iface();
        return RecordedNapiSettings.apply(
                settings.stateFile != null ? settings.stateFile : StateFile.defaultPath(settings.kernel, iface),
                iface,
                NapiSettingsChange.Access.live(settings.kernel, pinner.backend()),
                napiIds,
                settings.napiSettings);
    }

    /** The NAPI IDs of queues 0 to {@code loops} - 1, the loops' own queues. */
    private static List<Integer> napiIdsOfLoops(Optional<NapiMap> napis, int loops) {
        return queuedMap(napis, "NAPI settings need").instances().stream()
                .filter(napi -> napi.queue().isPresent() && napi.queue().getAsInt() < loops)
                .map(NapiInstance::id)
                .toList();
    }

    /** For loop i, the NAPI IDs of queue i, its own. */
    private static List<List<Integer>> napiIdsByLoop(Optional<NapiMap> napis, int loops) {
        NapiMap map = queuedMap(napis, "busy polling of io_uring loops with static NAPI tracking (Linux 6.13+) needs");
        List<List<Integer>> byLoop = new ArrayList<>(loops);
        for (int loop = 0; loop < loops; loop++) {
            int queue = loop;
            byLoop.add(map.instances().stream()
                    .filter(napi -> napi.queue().isPresent() && napi.queue().getAsInt() == queue)
                    .map(NapiInstance::id)
                    .toList());
        }
        return byLoop;
    }

    /** The NAPI map, when it links queues; else a refusal that starts with {@code needing} and names the map. */
    private static NapiMap queuedMap(Optional<NapiMap> napis, String needing) {
        return napis.filter(PinnedEventLoopGroup::knowsQueues)
                .orElseThrow(() -> new NumaspreadException(
                        NumaspreadException.Kind.REFUSED,
                        needing + " the NIC's NAPI map with its queues (netdev"
                                + " netlink, " + NapiConfig.NEEDED_KERNEL + " or newer)"
                                + napis.map(unlinked -> "; the map"
                                                + " from "
                                                + unlinked.source().name().toLowerCase(Locale.ROOT) + " links none: "
                                                + unlinked.detail())
                                        .orElse("")));
    }

    private void restoreNapiSettings() {
        try {
            napiSettings.orElseThrow().restore();
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "putting the NAPI settings back failed: " + e.getMessage(), e);
        }
    }

    /**
     * One loop per queue of {@code nic}, loop i on the sibling group of queue i as {@code numaspread plan --nic}
     * places it (within this process's allowed CPUs), with steering. For an upper device ({@code bond0}, {@code
     * bond0.100}), one loop per queue of each NIC under it: {@link Builder#nic}.
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

    /** Whether a NAPI map links any NAPI ID to a queue (one from /proc/interrupts alone does not). */
    private static boolean knowsQueues(NapiMap napis) {
        return napis.instances().stream().anyMatch(napi -> napi.queue().isPresent());
    }

    /** The loops in group order, with the CPUs each thread got. */
    public List<PinnedLoop> loops() {
        return loops;
    }

    /** The loops' CPU leases, loop by loop, until the group has terminated; empty with leases off. */
    public List<CpuLeases.Lease> leases() {
        return leases;
    }

    /** The steering counters, or empty when steering is off. */
    public Optional<ConnectionSteering> steering() {
        return Optional.ofNullable(steering);
    }

    /** Each loop's epoll busy-poll parameters as read back after {@link Builder#busyPoll}; empty when off. */
    public List<EpollBusyPoll> busyPolling() {
        return busyPolling;
    }

    /**
     * Each io_uring loop's NAPI busy polling as its ring read it back after {@link Builder#ioUringBusyPoll}; empty
     * when off.
     */
    public List<IoUringLoopNapi> ioUringBusyPolling() {
        return ioUringBusyPolling;
    }

    /**
     * With {@link Builder#napiSettings}: each of the loops' NAPI instances' settings before the group set them,
     * by NAPI ID, which are put back when the group has terminated; empty when off.
     */
    public Map<Integer, NapiSettings> napiSettingsBefore() {
        return napiSettings.map(RecordedNapiSettings::before).orElse(Map.of());
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
            started.add(loop.submit(() -> new PinnedLoop(
                            index,
                            loop,
                            plan.get(index),
                            pinner.currentAffinity(),
                            pinner.currentTid(),
                            Thread.currentThread().getName()))
                    .syncUninterruptibly()
                    .getNow());
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
        private SteeringKey steeringKey;
        private NapiMap napis;
        private EpollBusyPoll busyPoll;
        private Integer ioUringBusyPollUsecs;
        private boolean ioUringPreferBusyPoll;
        private NapiSettings napiSettings;
        private IrqSuspension irqSuspension;
        private Path stateFile;
        private boolean onIrqCpus;
        private PollSibling pollSibling = PollSibling.IDLE;
        private Boolean leasing;
        private Path leaseDirectory;

        private Builder(IoHandlerFactory ioHandlerFactory) {
            this.ioHandlerFactory = Objects.requireNonNull(ioHandlerFactory);
        }

        /**
         * One loop per queue of {@code nic}, planned by {@link io.numaspread.nic.Nic#planRequest}. For an upper
         * device (a bond, team, VLAN, macvlan or bridge, or a stack of them such as a VLAN on a bond), one loop per
         * queue of each NIC under it ({@link LowerDevices}), NIC by NIC in that order, all planned together as
         * several origins; steering by NAPI ID then works across the NICs, whose NAPI IDs are unique on the host
         * ({@link NapiMap#merged}).
         */
        public Builder nic(String name) {
            this.nic = Objects.requireNonNull(name);
            return this;
        }

        /**
         * With {@link #nic}: pins loop i to queue i's IRQ CPU alone, the CPU {@code numaspread apply} gives that IRQ,
         * instead of that CPU's sibling group. A loop asleep in {@code epoll_wait} is then woken by its queue's
         * softirq on its own CPU, which takes no IPI, where a loop asleep on the sibling thread is woken through
         * that CPU's wakelist: one function-call IPI per wakeup ({@code sched_ttwu_pending}, the largest source
         * of IPIs per request; docs/benchmarks.md). The loop then shares its CPU with the queue's softirq.
         */
        public Builder loopsOnIrqCpus(boolean on) {
            this.onIrqCpus = on;
            return this;
        }

        /**
         * With {@link #nic}: whether the loops may run beside the NIC's busy-poll threads, on their CPUs' SMT
         * siblings, as {@code numaspread apply --poll-sibling} says. By default ({@link PollSibling#IDLE}) the
         * loops stay off the busy-poll cores whole; with {@link PollSibling#SHARED} only off the busy-poll CPUs.
         */
        public Builder pollSibling(PollSibling sibling) {
            this.pollSibling = Objects.requireNonNull(sibling);
            return this;
        }

        /** {@code loops} loops spread from {@code origin}. */
        public Builder node(int origin, int loops) {
            this.node = origin;
            this.count = loops;
            return this;
        }

        /**
         * Whether the group leases its loops' CPUs in the host's lease registry ({@link CpuLeases}) and, for a NIC
         * or a node, plans around the CPUs other processes hold, so that several JVMs on one host do not share
         * CPUs while free ones remain (default: on, unless the system property {@value #LEASES_PROPERTY} is
         * {@code off}). A plan given ({@link #plan}) is leased as it is. The leases go when the group has
         * terminated, and with the JVM. Off, the group plans as if it were alone on the host.
         */
        public Builder leases(boolean on) {
            this.leasing = on;
            return this;
        }

        /**
         * The lease registry's directory (default: the system property {@value #LEASE_DIRECTORY_PROPERTY}, else
         * {@value CpuLeases#DEFAULT}); turns leases on. A registry given here, or by the property, that cannot be
         * used fails the build; the default one is skipped, logged once, for a JVM that cannot create it.
         */
        public Builder leaseDirectory(Path directory) {
            this.leaseDirectory = Objects.requireNonNull(directory);
            this.leasing = true;
            return this;
        }

        /** Loop i on assignment i. */
        public Builder plan(SpreadPlan spreadPlan) {
            this.plan = Objects.requireNonNull(spreadPlan);
            return this;
        }

        /** Overrides the loop count of {@link #nic} (default: its queue count), per NIC for an upper device. */
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

        /** Steer accepted connections to their queue's loop (default: on). */
        public Builder steering(boolean on) {
            this.steering = on;
            return this;
        }

        /**
         * What steering reads (default: {@link SteeringKey#INCOMING_NAPI_ID} when the group has a NAPI map that
         * links NAPI IDs to queues, else {@link SteeringKey#INCOMING_CPU}).
         */
        public Builder steering(SteeringKey key) {
            this.steering = true;
            this.steeringKey = Objects.requireNonNull(key);
            return this;
        }

        /**
         * The NIC's NAPI instances, whose queue q is loop q's own, for steering by NAPI ID (default for a NIC:
         * what {@link NapiDiscovery} finds when the group is built).
         */
        public Builder napis(NapiMap map) {
            this.napis = Objects.requireNonNull(map);
            return this;
        }

        /**
         * Opt-in: each epoll loop busy-polls with {@code params} ({@code EPIOCSPARAMS}, Linux 6.9+), read back
         * into {@link PinnedEventLoopGroup#busyPolling()}. {@link #build()} refuses on an older kernel or a
         * transport other than epoll.
         */
        public Builder busyPoll(EpollBusyPoll params) {
            this.busyPoll = Objects.requireNonNull(params);
            return this;
        }

        /**
         * Opt-in, for io_uring loops: each loop's ring busy-polls for {@code busyPollUsecs} in its waits
         * ({@code IORING_REGISTER_NAPI}, Linux 6.9+), from 6.13 exactly the NAPI instances of its own queues (static
         * tracking, which needs the NIC's NAPI map), before that those of the sockets it serves (dynamic tracking,
         * logged). Read back into {@link PinnedEventLoopGroup#ioUringBusyPolling()}; undone as each loop shuts
         * down. {@link #build()} refuses, before any loop starts, an older kernel, {@code io_uring_disabled}, a
         * JVM that does not open Netty's io_uring package ({@value IoUringNapiBusyPolling#ADD_OPENS} on the module
         * path), a Netty whose handler is not as expected, and loops that are not io_uring.
         */
        public Builder ioUringBusyPoll(int busyPollUsecs, boolean preferBusyPoll) {
            if (busyPollUsecs < 0) {
                throw new IllegalArgumentException("busy-poll time " + busyPollUsecs + " us is negative");
            }
            this.ioUringBusyPollUsecs = busyPollUsecs;
            this.ioUringPreferBusyPoll = preferBusyPoll;
            return this;
        }

        /**
         * Opt-in, with {@link #busyPoll} and {@code prefer_busy_poll}: each loop's queue's NAPI instance gets
         * {@code settings} ({@code napi-set}, Linux 6.13+, CAP_NET_ADMIN), so that its hard IRQ stays deferred
         * while the loop polls. The settings are the NIC's, so the group puts back the ones it found when it
         * has terminated; {@link #build()} writes all of them or none, and refuses without the NIC's NAPI map
         * or on an older kernel.
         */
        public Builder napiSettings(NapiSettings settings) {
            this.napiSettings = Objects.requireNonNull(settings);
            return this;
        }

        /**
         * Where {@link #napiSettings} records each NAPI's own settings before it writes any (default: the NIC's
         * state file of {@code numaspread apply}, {@code /run/numaspread/IFACE.json}), so that {@code numaspread
         * restore} puts them back after a crash; a clean close takes the group's entries out again.
         */
        public Builder stateFile(Path file) {
            this.stateFile = Objects.requireNonNull(file);
            return this;
        }

        /**
         * Opt-in IRQ suspension (Linux 6.13+, {@code CAP_NET_ADMIN}, a NIC's NAPI map): {@link #busyPoll} with
         * {@code suspension.epoll()} and {@link #napiSettings} with {@code suspension.napi()} in one, usually
         * {@link IrqSuspension#recipe()} (whose javadoc says where each value comes from). All or nothing: a
         * refused or failed part stops the group, puts back what was written, and names the loop or NAPI. Refused
         * up front on a kernel before 6.13, which suspends no IRQs even where 6.9's busy polling works.
         */
        public Builder irqSuspension(IrqSuspension suspension) {
            this.irqSuspension = Objects.requireNonNull(suspension);
            this.busyPoll = suspension.epoll();
            this.napiSettings = suspension.napi();
            return this;
        }

        /**
         * @throws io.numaspread.NumaspreadException naming the NIC or file when the NIC is unknown, virtual or
         *     has no queue vectors, or naming the NIC and its busy-poll CPUs when those leave no CPU for loops; for
         *     an upper device, naming it when no NIC is under it or its NICs' queue counts differ (without {@link
         *     #loops}), and REFUSED for NAPI settings or IRQ suspension, which are per NIC
         * @throws IllegalArgumentException for an unknown node, or when neither or both of a NIC, a node and a
         *     plan are given
         * @throws io.numaspread.pin.CpusNotAllowedException when the plan uses CPUs this process may not
         * @throws io.numaspread.NumaspreadException REFUSED when busy polling is asked of a kernel before 6.9
         *     or of loops that are not epoll, or NAPI settings of a kernel before 6.13 or without a NAPI map
         *     that links queues, or IRQ suspension of a kernel before 6.13, or io_uring busy polling as
         *     {@link #ioUringBusyPoll} lists (before any loop starts); CALL_FAILED when a {@code napi-set} or an
         *     {@code io_uring_register} fails (nothing is left changed)
         */
        public PinnedEventLoopGroup build() throws BackendUnavailableException {
            if ((nic != null ? 1 : 0) + (node != null ? 1 : 0) + (plan != null ? 1 : 0) != 1) {
                throw new IllegalArgumentException("give exactly one of a NIC, a node and a count, or a plan");
            }
            if (onIrqCpus && nic == null) {
                throw new IllegalArgumentException("loops on their queues' IRQ CPUs need the NIC (nic)");
            }
            if (ioUringBusyPollUsecs != null && busyPoll != null) {
                throw new IllegalArgumentException(
                        "busyPoll (epoll's EPIOCSPARAMS) and ioUringBusyPoll are for different transports; give one");
            }
            Optional<IoUringNapiBusyPolling> ioUring = ioUringBusyPollUsecs == null
                    ? Optional.empty()
                    : Optional.of(IoUringNapiBusyPolling.prepare(
                            kernel,
                            ioHandlerFactory.getClass().getClassLoader(),
                            ioUringBusyPollUsecs,
                            ioUringPreferBusyPoll));
            if (irqSuspension != null) {
                // Before any loop starts: 6.9 to 6.12 would take the busy polling and then refuse napi-set.
                LoopBusyPolling.requireIrqSuspension(kernel);
            }
            ThreadPinner threadPinner = pinner != null ? pinner : ThreadPinner.live();
            if (steeringKey == SteeringKey.INCOMING_NAPI_ID && napis == null && nic == null) {
                throw new IllegalArgumentException("steering by NAPI ID needs the NIC's NAPI map (napis)");
            }
            Optional<CpuLeases.Session> session = leaseSession();
            PlannedLoops planned;
            PinnedThreadFactory threads;
            List<CpuLeases.Lease> leases;
            try {
                Map<Integer, Integer> heldByOthers =
                        session.map(CpuLeases.Session::heldByOthers).orElse(Map.of());
                planned = plan != null
                        ? new PlannedLoops(plan, napiMap(threadPinner))
                        : planLoops(threadPinner, heldByOthers);
                if (ioUring.isPresent() && ioUring.get().settings().tracking() == IoUringNapi.Tracking.STATIC) {
                    // Before any loop starts: static tracking registers the loops' own NAPI IDs, from the map.
                    napiIdsByLoop(planned.napis(), planned.plan().size());
                }
                threads = PinnedThreadFactory.builder(planned.plan(), threadPinner)
                        .names(names)
                        .delegate(new DefaultThreadFactory(PinnedEventLoopGroup.class))
                        .build();
                leases = session.isEmpty() ? List.of() : take(session.get(), planned.plan());
            } finally {
                session.ifPresent(CpuLeases.Session::close);
            }
            try {
                return new PinnedEventLoopGroup(
                        threads,
                        new HandlerRecorder(ioHandlerFactory),
                        threadPinner,
                        this,
                        planned.napis(),
                        ioUring,
                        leases);
            } catch (RuntimeException e) {
                leases.forEach(CpuLeases.Lease::close);
                throw e;
            }
        }

        /**
         * The lease registry's session for this build, holding its lock while the group plans and leases; empty
         * with leases off, or when the default registry cannot be used (logged once).
         */
        private Optional<CpuLeases.Session> leaseSession() {
            boolean on = leasing != null ? leasing : !CpuLeases.offByProperty();
            if (!on) {
                return Optional.empty();
            }
            Optional<Path> named = leaseDirectory != null ? Optional.of(leaseDirectory) : CpuLeases.propertyDirectory();
            try {
                return Optional.of(
                        CpuLeases.in(named.orElse(Path.of(CpuLeases.DEFAULT))).session());
            } catch (NumaspreadException e) {
                if (named.isPresent()) {
                    throw e;
                }
                if (!LEASES_UNUSABLE_LOGGED.getAndSet(true)) {
                    LOG.log(
                            Level.WARNING,
                            "event loops plan without CPU leases, as if alone on the host: {0} (-D{1}=off says"
                                    + " so quietly)",
                            e.getMessage(),
                            LEASES_PROPERTY);
                }
                return Optional.empty();
            }
        }

        /** Leases loop i's CPUs for {@code netty:NAME}, NAME its thread's; all or none. */
        private List<CpuLeases.Lease> take(CpuLeases.Session session, SpreadPlan spreadPlan) {
            List<CpuLeases.Lease> taken = new ArrayList<>();
            try {
                for (int i = 0; i < spreadPlan.size(); i++) {
                    taken.add(session.take(spreadPlan.get(i).cpus(), "netty:" + String.format(Locale.ROOT, names, i)));
                }
            } catch (RuntimeException e) {
                taken.forEach(CpuLeases.Lease::close);
                throw e;
            }
            return List.copyOf(taken);
        }

        /**
         * The NAPI map steering, NAPI settings and the busy-poll CPUs read: the one given, or for a NIC the
         * kernel's ({@link NapiDiscovery}); when netlink fails, none, so that the loops steer by incoming CPU.
         */
        private Optional<NapiMap> napiMap(ThreadPinner threadPinner) {
            if (napis != null || nic == null) {
                return Optional.ofNullable(napis);
            }
            return discovered(() -> NapiDiscovery.discover(new InterfaceName(nic), kernel, threadPinner.backend()));
        }

        /** The NAPI map of an upper device: its NICs' maps in one, NIC m's queues after those before it. */
        private Optional<NapiMap> napiMap(ThreadPinner threadPinner, LowerDevices lower, int share) {
            if (napis != null) {
                return Optional.of(napis);
            }
            return discovered(() -> NapiMap.merged(
                    lower.device(),
                    lower.nics().stream()
                            .map(member -> NapiDiscovery.discover(member.name(), kernel, threadPinner.backend()))
                            .toList(),
                    Collections.nCopies(lower.nics().size(), share)));
        }

        /** What {@code discovery} finds; none, logged, when netlink fails and nothing needs the map. */
        private Optional<NapiMap> discovered(Supplier<NapiMap> discovery) {
            try {
                return Optional.of(discovery.get());
            } catch (NumaspreadException e) {
                if (e.kind() == NumaspreadException.Kind.BAD_INPUT
                        || steeringKey == SteeringKey.INCOMING_NAPI_ID
                        || napiSettings != null) {
                    throw e;
                }
                LOG.log(
                        Level.WARNING,
                        "no NAPI map for {0}, steering by incoming CPU and no busy-poll CPUs known: {1}",
                        nic,
                        e.getMessage());
                return Optional.empty();
            }
        }

        /** The plan the loops are built on: the NIC's as {@code plan --nic} makes it, or the node's. */
        SpreadPlan spreadPlan(ThreadPinner threadPinner) {
            return planLoops(threadPinner, Map.of()).plan();
        }

        /**
         * The loops' plan, for a NIC off its busy-poll cores as its NAPI map and the threads' affinity tell them,
         * with the NAPI map it read (read once the NIC is known to exist, so that an unknown one is named with the
         * NICs there are), around the CPUs other processes hold ({@link LeasedPlanner}).
         */
        private PlannedLoops planLoops(ThreadPinner threadPinner, Map<Integer, Integer> heldByOthers) {
            Topology topology = TopologyDiscovery.discover(threadPinner.backend(), SysfsTree.at(kernel.sysfsRoot()))
                    .withAllowed(threadPinner.allowed());
            PlanRequest request;
            Optional<NapiMap> napis;
            if (nic != null) {
                LowerDevices lower = LowerDevices.resolve(new InterfaceName(nic), kernel);
                Purpose purpose = onIrqCpus ? Purpose.IRQS : Purpose.THREADS;
                if (lower.kind() == LowerDevices.Kind.NIC) {
                    request = NicDiscovery.discover(new InterfaceName(nic), kernel)
                            .planRequest(topology, purpose);
                    napis = napiMap(threadPinner);
                    request = count > 0 ? request.withCount(count) : request;
                } else {
                    request = upperDeviceRequest(this, lower, topology, purpose);
                    napis = napiMap(threadPinner, lower, request.count());
                }
                if (napis.isPresent()) {
                    BusyPollCpus busyPoll = BusyPollCpus.read(napis.get(), threadPinner.backend());
                    busyPoll.unreported().ifPresent(why -> {
                        if (!BUSY_POLL_UNREPORTED_LOGGED.getAndSet(true)) {
                            LOG.log(Level.INFO, "loops of {0} avoid no busy-poll CPUs: {1}", nic, why);
                        }
                    });
                    if (!busyPoll.byNapi().isEmpty()) {
                        LOG.log(
                                Level.INFO,
                                "loops of {0} stay off busy-poll CPUs {1} (NAPIs {2}, siblings {3})",
                                nic,
                                busyPoll.cpus(),
                                busyPoll.byNapi().keySet(),
                                pollSibling.id());
                    }
                    request = busyPoll.avoidedBy(topology, request, pollSibling);
                }
            } else {
                request = PlanRequest.threads(node, count);
                napis = napiMap(threadPinner);
            }
            LeasedPlan leased = LeasedPlanner.plan(topology, request, heldByOthers);
            if (!leased.shared().isEmpty()) {
                LOG.log(
                        Level.INFO,
                        "event loops share CPUs {0} with other processes that hold them (no free CPU was left);"
                                + " numaspread irqs lists who",
                        leased.shared());
            }
            return new PlannedLoops(leased.plan(), napis);
        }
    }

    /**
     * The loops of an upper device (a bond, a VLAN on one): each of its NICs is an origin with its own loops, as
     * many as it has queues (or {@link Builder#loops}), planned together so that no two share a CPU while one is
     * free, NIC by NIC in {@link LowerDevices} order; loop {@code m * count + q} is NIC m's queue q.
     *
     * @throws NumaspreadException (bad input) when the NICs have different queue counts and no loop count is
     *     given; (refused) when NAPI settings are asked, which are set and restored per NIC
     */
    private static PlanRequest upperDeviceRequest(
            Builder settings, LowerDevices lower, Topology topology, Purpose purpose) {
        if (settings.napiSettings != null) {
            throw new NumaspreadException(
                    NumaspreadException.Kind.REFUSED,
                    "NAPI settings and IRQ suspension are per NIC, and " + lower.device() + " is a "
                            + lower.kind().label() + ": build the group for one of its NICs "
                            + lower.nics().stream().map(m -> m.name().value()).toList());
        }
        List<Nic> nics = lower.nics().stream()
                .map(member -> NicDiscovery.discover(member.name(), settings.kernel))
                .toList();
        int share = settings.count > 0 ? settings.count : nics.get(0).queues().size();
        if (settings.count == 0 && nics.stream().anyMatch(nic -> nic.queues().size() != share)) {
            throw NumaspreadException.badInput(lower.device() + "'s NICs have different queue counts ("
                    + nics.stream()
                            .map(nic -> nic.name() + " " + nic.queues().size())
                            .collect(Collectors.joining(", "))
                    + "): give the loops per NIC (Builder.loops)");
        }
        List<Integer> origins =
                nics.stream().map(nic -> nic.origin(topology).orElse(-1)).toList();
        return nics.get(0).planRequest(topology, purpose).withOrigins(origins).withCount(share);
    }

    /** The loops' plan and the NAPI map it was made with. */
    private record PlannedLoops(SpreadPlan plan, Optional<NapiMap> napis) {}

    /** Netty's factory, remembering the handler it made for each loop, so that busy polling can reach it. */
    private static final class HandlerRecorder implements IoHandlerFactory {
        private final IoHandlerFactory delegate;
        private final Map<ThreadAwareExecutor, IoHandler> byLoop = new ConcurrentHashMap<>();

        HandlerRecorder(IoHandlerFactory delegate) {
            this.delegate = delegate;
        }

        @Override
        public IoHandler newHandler(ThreadAwareExecutor loop) {
            IoHandler handler = delegate.newHandler(loop);
            byLoop.put(loop, handler);
            return handler;
        }

        @Override
        public boolean isChangingThreadSupported() {
            return delegate.isChangingThreadSupported();
        }

        IoHandler of(IoEventLoop loop) {
            return Objects.requireNonNull(byLoop.get(loop), "no handler recorded for loop " + loop);
        }
    }
}
