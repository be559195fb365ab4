// SPDX-License-Identifier: Apache-2.0
package io.numaspread.cli;

import io.numaspread.CpuSet;
import io.numaspread.NumaspreadException;
import io.numaspread.irq.LinkIrqPolicy;
import io.numaspread.irq.NicPlacement;
import io.numaspread.irq.PlacementOptions;
import io.numaspread.kernel.InterfaceName;
import io.numaspread.kernel.KernelPaths;
import io.numaspread.kernel.KernelText;
import io.numaspread.kernel.SysfsTree;
import io.numaspread.nativeaccess.BackendUnavailableException;
import io.numaspread.nativeaccess.Backends;
import io.numaspread.nativeaccess.NativeBackend;
import io.numaspread.nativeaccess.SysfsBackend;
import io.numaspread.nic.LowerDevices;
import io.numaspread.plan.PollFlags;
import io.numaspread.watch.Backoff;
import io.numaspread.watch.KernelEvent;
import io.numaspread.watch.KubeletCpuState;
import io.numaspread.watch.KubeletCpuStateEvents;
import io.numaspread.watch.NetlinkEvents;
import io.numaspread.watch.UpperMembers;
import io.numaspread.watch.WatchPlanning;
import io.numaspread.watch.Watcher;
import io.prometheus.metrics.exporter.httpserver.HTTPServer;
import java.io.IOException;
import java.io.PrintWriter;
import java.math.BigDecimal;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.Function;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(
        name = "watch",
        mixinStandardHelpOptions = true,
        description = {
            "Apply the plan as 'apply' does, then keep it: react to the kernel's events (rtnetlink link"
                    + " messages; uevents for NICs bound or unbound, queues added or removed, CPUs going offline or"
                    + " online) and compare every queue IRQ with the plan each --interval. When the CPUs, the queues"
                    + " or the IRQ numbers change it plans again and applies; when another writer moves an IRQ it puts"
                    + " it back, and when that writer keeps at it, backs off (doubling, up to 30 intervals) and names"
                    + " it. One line per event. With --poll-queues every plan is made around the busy-poll cores,"
                    + " as apply's, and after a reset the polled queues' NAPIs are set to busy-poll again and their"
                    + " threads pinned to their poll CPUs. SIGTERM stops it; --restore-on-exit first puts back what"
                    + " was there before."
        },
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {
            "2:bad input (interface, flag, file); nothing was changed",
            "3:refused for safety (no privilege, irqbalance running, --poll-queues on a kernel without threaded busy"
                    + " polling); nothing was changed",
            "4:the first apply failed part way; every change was rolled back",
            "5:an event reader died (the line says which and why); stopped as SIGTERM stops it, so that a restart"
                    + " opens new sockets",
            "143:stopped by SIGTERM (after --restore-on-exit, when given)"
        })
final class WatchCommand implements Callable<Integer> {
    /** The exit code when an event reader died. */
    static final int READER_DIED = 5;

    private static final Duration SETTLE = Duration.ofMillis(250);
    private static final Duration STOP_WAIT = Duration.ofSeconds(30);

    @Spec
    CommandSpec spec;

    @Mixin
    NicOption.Repeated nics = new NicOption.Repeated();

    @Mixin
    MachineOptions machine = new MachineOptions();

    @Mixin
    ProcRootOptions proc = new ProcRootOptions();

    @Mixin
    PlanOptions planOptions = new PlanOptions();

    @Mixin
    ApplyOptions applyOptions = new ApplyOptions();

    @Mixin
    HostRootOption host = new HostRootOption();

    @Mixin
    PollOptions polling = new PollOptions();

    @Option(
            names = "--interval",
            paramLabel = "SECONDS",
            defaultValue = "10",
            description = "How often every queue IRQ is compared with the plan (default 10; decimals allowed).")
    BigDecimal interval;

    @Option(
            names = "--state-dir",
            paramLabel = "DIR",
            defaultValue = "/run/numaspread",
            description = "Where each NIC's state file IFACE.json is (default /run/numaspread, as apply's).")
    Path stateDirectory;

    @Option(
            names = "--restore-on-exit",
            description = "On SIGTERM, put back the values there were before (as 'restore' does) before exiting.")
    boolean restoreOnExit;

    @Option(
            names = "--metrics-port",
            paramLabel = "PORT",
            description = "Serve Prometheus metrics on http://ADDRESS:PORT/metrics (0 picks a free port).")
    Integer metricsPort;

    @Option(
            names = "--metrics-address",
            paramLabel = "ADDRESS",
            defaultValue = "127.0.0.1",
            description = "The address the metrics are served on (default 127.0.0.1).")
    String metricsAddress;

    @Option(
            names = "--metrics-file",
            paramLabel = "FILE",
            description = "Write the metrics to FILE after every check, for node-exporter's textfile collector"
                    + " (a *.prom file in its --collector.textfile.directory).")
    Path metricsFile;

    @Option(
            names = "--kubelet-cpu-state",
            paramLabel = "FILE",
            description = "Keep queues off the CPUs the kubelet's static CPU manager gives Guaranteed pods, read"
                    + " from FILE (usually /var/lib/kubelet/cpu_manager_state) when its directory says it changed"
                    + " (inotify) and at every check.")
    Path kubeletCpuState;

    // Hidden: only here to say where the option belongs, rather than picocli's "unknown option".
    @Option(names = "--irq-suspend", hidden = true)
    boolean irqSuspend;

    /** How the event sockets are opened: {@link NetlinkEvents#open}, or a test's datagrams. */
    private final Function<NativeBackend, Optional<NetlinkEvents.Sockets>> eventSockets;

    WatchCommand() {
        this(NetlinkEvents::open);
    }

    WatchCommand(Function<NativeBackend, Optional<NetlinkEvents.Sockets>> eventSockets) {
        this.eventSockets = eventSockets;
    }

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        if (irqSuspend) {
            throw NumaspreadException.badInput("--irq-suspend is apply's, not watch's: the NAPI settings stay in the"
                    + " kernel's per-NAPI config, which nothing watch repairs takes away; run numaspread apply --nic"
                    + " IFACE --irq-suspend once (restore puts them back), then watch");
        }
        Duration every = interval();
        KernelPaths paths = proc.writablePaths(machine);
        List<InterfaceName> ifaces = LowerDevices.nicsUnder(nics.names(), paths);
        NativeBackend events = eventBackend();
        if (metricsPort != null && (metricsPort < 0 || metricsPort > 65535)) {
            throw NumaspreadException.badInput("--metrics-port must be 0 to 65535, not " + metricsPort);
        }
        // A bad file stops watch at start.
        Optional<CpuSet> podCpus = Optional.ofNullable(kubeletCpuState).map(KubeletCpuState::exclusiveCpus);
        Optional<PollFlags> poll = polling.flags();
        WatchPlanning planning = new WatchPlanning(planOptions.flags(), Optional.ofNullable(kubeletCpuState), poll);

        String source = events.kind().id();
        Clock clock = Clock.systemUTC();
        Consumer<String> print = line -> {
            out.println(line);
            out.flush();
        };
        WatchMetrics metrics = new WatchMetrics(
                ifaces,
                print,
                paths,
                Optional.ofNullable(metricsFile),
                source,
                events instanceof SysfsBackend ? "polling" : "netlink",
                events,
                clock);
        PlacementOptions placement = applyOptions.placement();
        Watcher watcher = new Watcher(
                ifaces,
                paths,
                // Through the native backend, as apply: a failed read carries its errno (xps_cpus of a NIC with
                // one transmit queue reads ENOENT, which the plan takes as no XPS; Java's API gives no errno).
                machine.kernelFiles(),
                planning,
                new Watcher.Settings(
                        every,
                        SETTLE,
                        Backoff.forInterval(every),
                        placement,
                        stateDirectory,
                        napiAccess(placement.napiThreads() || poll.isPresent(), ifaces, paths),
                        machine.napiSettingsRestore(paths),
                        machine.leaseSource),
                event -> {
                    metrics.heard(event);
                    WatchPrinter.line(event).ifPresent(print);
                },
                clock);
        // A bond's or VLAN's members, read again at each check: a NIC that joins or leaves it is followed.
        UpperMembers.of(nics.names(), paths).ifPresent(watcher::follow);
        Optional<HTTPServer> server = serve(metrics);
        try {
            watcher.start();
        } catch (RuntimeException e) {
            server.ifPresent(HTTPServer::close);
            throw e;
        }
        Consumer<KernelEvent> intake = event -> {
            // Another interface's events are dropped by the watcher, and not counted either.
            if (watcher.post(event)) {
                metrics.count(event);
            }
        };
        AtomicReference<String> readerDied = new AtomicReference<>();
        Optional<NetlinkEvents> netlink = eventSockets
                .apply(events)
                .map(sockets -> NetlinkEvents.start(sockets, intake, new NetlinkEvents.Reports() {
                    @Override
                    public void skipped(String line) {
                        print.accept(line);
                    }

                    @Override
                    public void died(String line) {
                        // The first death stops watch; the other reader's, if any, comes too late to say.
                        if (readerDied.compareAndSet(null, line)) {
                            stopWithoutWaiting(watcher);
                        }
                    }
                }));
        Optional<KubeletCpuStateEvents> kubelet =
                podCpus.flatMap(cpus -> KubeletCpuStateEvents.start(kubeletCpuState, cpus, intake, print));
        out.println("watching " + nics.joined() + ": "
                + (netlink.isPresent()
                        ? "events from rtnetlink and uevent netlink sockets (" + source + " backend)"
                        : "no events (the " + source + " backend cannot open netlink sockets): polling only")
                + ", drift check every " + every.toMillis() / 1000.0 + " s"
                + server.map(s -> ", metrics on http://" + metricsAddress + ":" + s.getPort() + "/metrics")
                        .orElse("")
                + (metricsFile == null ? "" : ", metrics file " + metricsFile)
                + (kubeletCpuState == null
                        ? ""
                        : ", kubelet CPU state " + kubeletCpuState
                                + (kubelet.isPresent() ? " (inotify on its directory)" : " (read at each check)")));
        for (InterfaceName iface : ifaces) {
            if (Files.isDirectory(paths.netDevice(iface))) {
                LinkPolicyWords.lines(iface, LinkIrqPolicy.find(host.hostRoot, paths, iface))
                        .forEach(out::println);
            }
        }
        out.flush();

        Runnable release = () -> {
            netlink.ifPresent(NetlinkEvents::close);
            kubelet.ifPresent(KubeletCpuStateEvents::close);
            server.ifPresent(HTTPServer::close);
        };
        Thread onSigterm = new Thread(
                () -> {
                    try {
                        watcher.stop(STOP_WAIT);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    release.run();
                    out.println("stopped");
                    out.flush();
                },
                "numaspread-watch-stop");
        Runtime.getRuntime().addShutdownHook(onSigterm);
        watcher.run(restoreOnExit);
        String died = readerDied.get();
        if (died == null) {
            return 0; // SIGTERM stopped it: the JVM exits 143 once the hook has run
        }
        try {
            Runtime.getRuntime().removeShutdownHook(onSigterm);
        } catch (IllegalStateException sigtermToo) {
            // A SIGTERM came as well: its hook releases everything; the exit code is still this one.
        }
        release.run();
        PrintWriter err = spec.commandLine().getErr();
        err.println("numaspread: "
                + KernelText.escape("watch: " + died + "; stopped" + (restoreOnExit ? " (after --restore-on-exit)" : "")
                        + " so that a restart opens new sockets"));
        err.flush();
        return READER_DIED;
    }

    /** Ends {@link Watcher#run} from a reader's thread, which must not wait for the restore it does. */
    private static void stopWithoutWaiting(Watcher watcher) {
        try {
            watcher.stop(Duration.ZERO);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private Duration interval() {
        if (interval.signum() <= 0 || interval.compareTo(BigDecimal.valueOf(86_400)) > 0) {
            throw NumaspreadException.badInput(
                    "--interval must be between 0 and 86400 seconds, not " + interval.toPlainString());
        }
        long millis = interval.movePointRight(3).longValue();
        if (millis < 100) {
            throw NumaspreadException.badInput("--interval must be at least 0.1 s, not " + interval.toPlainString());
        }
        return Duration.ofMillis(millis);
    }

    /** The live backend opens the netlink sockets; a copied /sys tree has no kernel behind it to send events. */
    private NativeBackend eventBackend() {
        if (machine.sysfsRoot != null) {
            return new SysfsBackend(SysfsTree.at(machine.sysfsRoot), proc.procRoot);
        }
        try {
            return Backends.live().backend();
        } catch (BackendUnavailableException e) {
            throw NumaspreadException.badInput(
                    e.getMessage() + " (it was forced by -D" + Backends.OVERRIDE_PROPERTY + ")");
        }
    }

    private Optional<HTTPServer> serve(WatchMetrics metrics) {
        if (metricsPort == null) {
            return Optional.empty();
        }
        try {
            return Optional.of(HTTPServer.builder()
                    .inetAddress(InetAddress.getByName(metricsAddress))
                    .port(metricsPort)
                    .registry(metrics.registry())
                    .buildAndStart());
        } catch (UnknownHostException e) {
            throw NumaspreadException.badInput(
                    "--metrics-address " + metricsAddress + " is not an address: " + e.getMessage());
        } catch (IOException e) {
            throw NumaspreadException.badInput(
                    "cannot serve metrics on " + metricsAddress + ":" + metricsPort + ": " + e.getMessage());
        }
    }

    /**
     * With --napi-threads or --poll-queues ({@code needed}), each NIC's access to its NAPI threads, every NIC checked
     * for threaded NAPI first.
     */
    private Optional<Function<InterfaceName, NicPlacement.NapiAccess>> napiAccess(
            boolean needed, List<InterfaceName> ifaces, KernelPaths paths) {
        if (!needed) {
            return Optional.empty();
        }
        Map<InterfaceName, NicPlacement.NapiAccess> access = new HashMap<>();
        ifaces.forEach(iface -> access.put(iface, machine.napiAccess(iface, paths)));
        return Optional.of(access::get);
    }
}
