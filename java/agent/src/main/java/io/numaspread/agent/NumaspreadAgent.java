// SPDX-License-Identifier: Apache-2.0
package io.numaspread.agent;

import io.numaspread.CpuSet;
import io.numaspread.NumaspreadException;
import io.numaspread.irq.NicPlacement;
import io.numaspread.irq.Wanted;
import io.numaspread.kernel.KernelPaths;
import io.numaspread.kernel.SysfsTree;
import io.numaspread.lease.LeasedPlanner;
import io.numaspread.nativeaccess.BackendKind;
import io.numaspread.nativeaccess.BackendUnavailableException;
import io.numaspread.nativeaccess.Backends;
import io.numaspread.nativeaccess.NativeBackend;
import io.numaspread.nic.Nic;
import io.numaspread.nic.NicDiscovery;
import io.numaspread.pin.AgentOptions;
import io.numaspread.plan.Assignment;
import io.numaspread.plan.Mode;
import io.numaspread.plan.PlanRequest;
import io.numaspread.plan.Planner;
import io.numaspread.plan.Purpose;
import io.numaspread.plan.SpreadPlan;
import io.numaspread.topology.Topology;
import io.numaspread.topology.TopologyDiscovery;
import java.lang.instrument.Instrumentation;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The {@code -javaagent} entry points. {@code premain} installs the rules before {@code main} runs, so every
 * matching thread is pinned by the native ThreadStart hook as it starts; {@code agentmain} (dynamic attach)
 * installs them and also pins the matching threads that already run.
 *
 * <p>Bad options print one line to stderr and leave the JVM running without pinning, unless {@code strict=true},
 * when the JVM does not start (or the attach fails).
 *
 * <p>premain delays the application's {@code main}, so its path loads only what the rules need: the options, the
 * library, which reads the topology and plans {@code node=N,count=K} itself (core's Planner, loaded only for
 * {@code nic=}, when other processes hold CPU leases, or when the library declines, stays the reference), and the
 * host's CPU lease registry ({@link AgentLeases}). No lambdas, streams or {@code String.format} on it
 * (each links classes at a cold JVM's pace); the IRQ transaction, the NIC and the thread dump load only when the
 * options ask for them.
 */
public final class NumaspreadAgent {
    static final String PREFIX = "numaspread agent: ";

    private NumaspreadAgent() {}

    /**
     * The two-argument form, though it needs no Instrumentation: the JDK looks for this one first, and when a
     * class lacks it, the NoSuchMethodException's message is built with a stream and a lambda, which spin
     * classes on a cold JVM before premain starts (about 14 classes, milliseconds).
     */
    public static void premain(String options, Instrumentation instrumentation) {
        start(options, false);
    }

    public static void agentmain(String options, Instrumentation instrumentation) {
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
            String message = e instanceof NumaspreadException || e.getMessage() != null ? e.getMessage() : e.toString();
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
        InstalledLibrary library = NativeAgent.load();
        // A refused installed file is said always: it is there for a reason, and someone should look at it.
        if (library.refusedFile() || options.verbose()) {
            System.err.println(PREFIX + library.describeLoad());
        }
        String[] globs = options.globs().toArray(new String[0]);
        for (String glob : globs) {
            String problem = NativeAgent.globProblem(glob);
            if (problem != null) {
                throw NumaspreadException.badInput("bad glob \"" + glob + "\" in threads=: it " + problem);
            }
        }
        long[] masks;
        int words;
        String[] cpulists;
        // The registry's lock is held from reading the other processes' leases until this JVM's are taken, so
        // that a JVM starting beside this one plans around them.
        AgentLeases leases = AgentLeases.open(options);
        try {
            Map<Integer, Integer> heldByOthers = leases == null ? Map.of() : leases.heldByOthers();
            // The library plans as if alone on the host; around other processes' CPUs, as for a NIC, core does.
            masks = options.nic().isEmpty() && heldByOthers.isEmpty()
                    ? NativeAgent.planThreads(
                            "/sys",
                            null,
                            options.node().getAsInt(),
                            options.count().getAsInt(),
                            options.mode() == Mode.CPU)
                    : null;
            words = masks == null ? 0 : masks.length / options.count().getAsInt();
            if (masks == null) {
                JavaPlan plan = new JavaPlan(options, heldByOthers);
                masks = plan.masks;
                words = plan.words;
            }
            int count = masks.length / words;
            cpulists = new String[count];
            for (int index = 0; index < count; index++) {
                cpulists[index] = CpuSet.fromMask(Arrays.copyOfRange(masks, index * words, (index + 1) * words))
                        .toString();
            }
            if (leases != null) {
                leases.take(globs, cpulists);
            }
        } finally {
            if (leases != null) {
                leases.close();
            }
        }
        PinReports.start(options.verbose());
        NativeAgent.install(
                new String[][] {globs},
                new long[][] {masks},
                new String[][] {cpulists},
                words,
                options.verbose(),
                attached);
        if (options.verbose()) {
            StringBuilder line = new StringBuilder(PREFIX)
                    .append("threads ")
                    .append(String.join("|", globs))
                    .append(" rotate over CPUs");
            for (String cpus : cpulists) {
                line.append(" [").append(cpus).append(']');
            }
            System.err.println(line);
        }
        if (attached) {
            RunningThreads.pin();
        }
    }

    /**
     * The plan made in Java, by core's topology discovery and {@link LeasedPlanner} (the {@link Planner}'s plan
     * around the CPUs other processes hold): for {@code nic=} and {@code irqs=apply}, for {@code node=} when
     * other processes hold CPUs, and whenever the library's plan declined (a file missing or malformed, no
     * candidate CPU, an unknown node), so that the culprit is named as Java names it. A class of its own, so that
     * topology and planner classes load only when it runs.
     */
    private static final class JavaPlan {
        final long[] masks;
        final int words;

        JavaPlan(AgentOptions options, Map<Integer, Integer> heldByOthers) {
            SysfsTree sysfs = SysfsTree.live();
            Topology topology = TopologyDiscovery.discover(backend(sysfs), sysfs);
            Nic nic = options.nic().isPresent()
                    ? NicDiscovery.discover(options.nic().get(), KernelPaths.LIVE)
                    : null;
            SpreadPlan plan = LeasedPlanner.plan(topology, threadRequest(options, topology, nic), heldByOthers)
                    .plan();
            if (options.applyIrqs()) {
                IrqPlacement.apply(nic, topology, options);
            }
            int bits = sysfs.maskBits();
            words = (bits + 63) / 64;
            List<Assignment> assignments = plan.assignments();
            masks = new long[assignments.size() * words];
            for (Assignment assignment : assignments) {
                System.arraycopy(assignment.cpus().toMask(bits), 0, masks, assignment.index() * words, words);
            }
        }

        private static PlanRequest threadRequest(AgentOptions options, Topology topology, Nic nic) {
            if (nic == null) {
                return PlanRequest.threads(
                                options.node().getAsInt(), options.count().getAsInt())
                        .withMode(options.mode());
            }
            return nic.planRequest(topology, Purpose.THREADS)
                    .withMode(options.mode())
                    .withCount(
                            options.count().isPresent()
                                    ? options.count().getAsInt()
                                    : nic.queues().size());
        }

        /**
         * Always the sysfs backend, whatever {@code -Dnumaspread.backend} says (that is for the application's own
         * use of numaspread): the agent makes its one native call, sched_setaffinity, from its own library, and
         * reading the same kernel facts from files keeps JNA and FFM out of the application's JVM (tens of
         * milliseconds of start-up, and no restricted-method warnings). The jar carries neither.
         */
        private static NativeBackend backend(SysfsTree sysfs) {
            try {
                return Backends.select(sysfs, Optional.of(BackendKind.SYSFS)).backend();
            } catch (BackendUnavailableException e) {
                throw new NumaspreadException(NumaspreadException.Kind.UNAVAILABLE, e.getMessage());
            }
        }
    }

    /**
     * {@code irqs=apply}: the NIC's queue IRQs placed as {@code numaspread apply --nic IFACE} places them (with
     * {@code --per-cpu} for {@code mode=cpu}), through the same {@link NicPlacement}; {@code numaspread restore --nic
     * IFACE} undoes it. A refusal (no privilege, irqbalance) leaves the IRQs alone and the threads still pinned,
     * unless strict. A class of its own, so that the IRQ transaction is loaded only when asked for.
     */
    private static final class IrqPlacement {
        static void apply(Nic nic, Topology topology, AgentOptions options) {
            try {
                SpreadPlan plan = Planner.plan(
                        topology, nic.planRequest(topology, Purpose.IRQS).withMode(options.mode()));
                NicPlacement.Outcome outcome = new NicPlacement(
                                KernelPaths.LIVE,
                                AgentKernelFiles.live(),
                                Optional.empty(),
                                NicPlacement.StateLocation.DEFAULT)
                        .apply(nic, Wanted.plan(plan), NicPlacement.Options.defaults());
                StringBuilder line = new StringBuilder(PREFIX + "applied the IRQ plan of " + nic.name() + ":");
                outcome.counts()
                        .forEach((status, count) ->
                                line.append(' ').append(count).append(' ').append(status.label()));
                // The live kernel and the default state file: restore finds it by the interface's name.
                System.err.println(line + " (previous values in " + outcome.stateFile() + "; undo: "
                        + "numaspread restore --nic " + nic.name() + ")");
            } catch (NumaspreadException e) {
                if (options.strict()) {
                    throw NumaspreadException.badInput("IRQs of " + nic.name() + " not applied: " + e.getMessage());
                }
                System.err.println(PREFIX + "IRQs of " + nic.name() + " not applied: " + e.getMessage()
                        + "; pinning threads only");
            }
        }
    }

    /** Dynamic attach: the matching threads that already run, found by JVMTI and pinned by their Linux TIDs. */
    private static final class RunningThreads {
        static void pin() {
            List<ThreadDump.RunningThread> running = ThreadDump.running(NativeAgent.allThreads());
            int[] tids = new int[running.size()];
            String[] names = new String[running.size()];
            for (int i = 0; i < tids.length; i++) {
                tids[i] = running.get(i).tid();
                names[i] = running.get(i).name();
            }
            if (NativeAgent.pinRunning(tids, names) < 0) {
                System.err.println(PREFIX + "a TID from the thread dump is no thread of this JVM; it was not pinned");
            }
        }
    }
}
