// SPDX-License-Identifier: Apache-2.0
package io.numaspread.agent;

import io.numaspread.NumaspreadException;
import io.numaspread.irq.NicPlacement;
import io.numaspread.kernel.InterfaceName;
import io.numaspread.kernel.KernelFiles;
import io.numaspread.kernel.KernelPaths;
import io.numaspread.kernel.SysfsTree;
import io.numaspread.nativeaccess.BackendKind;
import io.numaspread.nativeaccess.BackendUnavailableException;
import io.numaspread.nativeaccess.Backends;
import io.numaspread.nativeaccess.NativeBackend;
import io.numaspread.nic.Nic;
import io.numaspread.nic.NicDiscovery;
import io.numaspread.plan.Assignment;
import io.numaspread.plan.PlanRequest;
import io.numaspread.plan.Planner;
import io.numaspread.plan.Purpose;
import io.numaspread.plan.SpreadPlan;
import io.numaspread.topology.Topology;
import io.numaspread.topology.TopologyDiscovery;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * The {@code -javaagent} entry points. {@code premain} installs the rules before {@code main} runs, so every
 * matching thread is pinned by the native ThreadStart hook as it starts; {@code agentmain} (dynamic attach)
 * installs them and also pins the matching threads that already run.
 *
 * <p>Bad options print one line to stderr and leave the JVM running without pinning, unless {@code strict=true},
 * when the JVM does not start (or the attach fails).
 */
public final class NumaspreadAgent {
    static final String PREFIX = "numaspread agent: ";

    private NumaspreadAgent() {
    }

    public static void premain(String options) {
        start(options, false);
    }

    public static void agentmain(String options) {
        start(options, true);
    }

    /**
     * A strict failure in premain exits with status 1 rather than throwing: a throwing premain makes the JVM
     * abort with a native fatal error (status 134, maybe a core dump). In agentmain it throws, so the attach
     * fails and the running JVM is left alone.
     */
    private static void start(String text, boolean attached) {
        try {
            install(AgentOptions.parse(text), attached);
        } catch (RuntimeException e) {
            boolean strict = AgentOptions.strictRequested(text);
            String message = e instanceof AgentException || e.getMessage() != null ? e.getMessage() : e.toString();
            System.err.println(PREFIX + message + (strict ? "" : "; running without pinning"));
            if (strict && attached) {
                throw new IllegalStateException(PREFIX + message + " (strict=true)", e);
            }
            if (strict) {
                System.exit(1);
            }
        }
    }

    private static void install(AgentOptions options, boolean attached) {
        NativeAgent.load();
        for (String glob : options.globs()) {
            String problem = NativeAgent.globProblem(glob);
            if (problem != null) {
                throw new AgentException("bad glob \"" + glob + "\" in threads=: it " + problem);
            }
        }
        SysfsTree sysfs = SysfsTree.live();
        Topology topology = TopologyDiscovery.discover(backend(sysfs), sysfs);
        Optional<Nic> nic = options.nic().map(name -> NicDiscovery.discover(new InterfaceName(name), KernelPaths.LIVE));
        SpreadPlan plan = Planner.plan(topology, nic
                .map(found -> found.planRequest(topology, Purpose.THREADS).withMode(options.mode())
                        .withCount(options.count().orElse(found.queues().size())))
                .orElseGet(() -> PlanRequest.threads(options.node().orElseThrow(), options.count().orElseThrow())
                        .withMode(options.mode())));
        if (options.applyIrqs()) {
            applyIrqs(nic.orElseThrow(), topology, options);
        }
        int bits = sysfs.maskBits();
        int words = (bits + 63) / 64;
        long[] masks = new long[plan.assignments().size() * words];
        for (Assignment assignment : plan.assignments()) {
            System.arraycopy(assignment.cpus().toMask(bits), 0, masks, assignment.index() * words, words);
        }
        PinReports.start(options.verbose());
        NativeAgent.install(new String[][] {options.globs().toArray(String[]::new)}, new long[][] {masks}, words,
                attached);
        if (options.verbose()) {
            System.err.println(PREFIX + "threads " + String.join("|", options.globs()) + " rotate over CPUs "
                    + plan.assignments().stream().map(a -> "[" + a.cpus() + "]").collect(Collectors.joining(" ")));
        }
        if (attached) {
            List<ThreadDump.RunningThread> running = ThreadDump.running();
            NativeAgent.pinRunning(running.stream().mapToInt(ThreadDump.RunningThread::tid).toArray(),
                    running.stream().map(ThreadDump.RunningThread::name).toArray(String[]::new));
        }
    }

    /**
     * The sysfs backend unless {@code -Dnumaspread.backend} names another: the agent makes its one native call
     * (sched_setaffinity) from its own library, and reading the same kernel facts from files keeps JNA and FFM
     * out of the application's JVM (a tenth of a second of start-up, and no restricted-method warnings).
     */
    private static NativeBackend backend(SysfsTree sysfs) {
        try {
            return Backends.select(sysfs, Backends.override().or(() -> Optional.of(BackendKind.SYSFS))).backend();
        } catch (BackendUnavailableException e) {
            throw new AgentException(e.getMessage());
        }
    }

    /**
     * {@code irqs=apply}: the NIC's queue IRQs placed as {@code numaspread apply --nic IFACE} places them (with
     * {@code --per-cpu} for {@code mode=cpu}), through the same {@link NicPlacement}; {@code numaspread restore --nic
     * IFACE} undoes it. A refusal (no privilege, irqbalance) leaves the IRQs alone and the threads still pinned,
     * unless strict.
     */
    private static void applyIrqs(Nic nic, Topology topology, AgentOptions options) {
        try {
            SpreadPlan plan = Planner.plan(topology, nic.planRequest(topology, Purpose.IRQS).withMode(options.mode()));
            NicPlacement.Outcome outcome = NicPlacement.apply(nic, plan, NicPlacement.Options.defaults(), KernelPaths.LIVE,
                    KernelFiles.DIRECT);
            StringBuilder line = new StringBuilder(PREFIX + "applied the IRQ plan of " + nic.name() + ":");
            outcome.counts().forEach((status, count) -> line.append(' ').append(count).append(' ')
                    .append(status.label()));
            System.err.println(line + " (previous values in " + outcome.stateFile() + "; undo: "
                    + outcome.restoreCommand() + ")");
        } catch (NumaspreadException e) {
            if (options.strict()) {
                throw new AgentException("IRQs of " + nic.name() + " not applied: " + e.getMessage());
            }
            System.err.println(PREFIX + "IRQs of " + nic.name() + " not applied: " + e.getMessage()
                    + "; pinning threads only");
        }
    }
}
