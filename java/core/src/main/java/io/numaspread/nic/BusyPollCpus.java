// SPDX-License-Identifier: Apache-2.0
package io.numaspread.nic;

import io.numaspread.CpuSet;
import io.numaspread.NumaspreadException;
import io.numaspread.kernel.InterfaceName;
import io.numaspread.nativeaccess.NativeBackend;
import io.numaspread.plan.PlanRequest;
import io.numaspread.plan.Planner;
import io.numaspread.plan.PollSibling;
import io.numaspread.topology.Topology;
import java.util.Collections;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.IntFunction;

/**
 * The CPUs a NIC's threaded busy-poll NAPIs ({@code threaded} 2, Linux 6.19+) spin on, as the kernel reports
 * them: the NAPIs from netdev {@code napi-get}, each thread's CPUs from {@code sched_getaffinity} on its PID. It
 * is the kernel's word, not a state file's, so it holds whoever set the threads up ({@code apply --poll-queues},
 * or by hand).
 *
 * @param iface the NIC
 * @param byNapi each busy-poll NAPI's thread's CPUs, by NAPI ID
 * @param unreported why the kernel could not say which NAPIs busy-poll (no netdev netlink, or a {@code napi-get}
 *     without per-NAPI {@code threaded}, before Linux 6.17); empty when it did say
 */
public record BusyPollCpus(InterfaceName iface, Map<Integer, CpuSet> byNapi, Optional<String> unreported) {
    public BusyPollCpus {
        byNapi = Collections.unmodifiableMap(new TreeMap<>(byNapi)); // in NAPI ID order, for messages
    }

    /**
     * Pure: the busy-poll NAPIs of {@code napis} (threaded 2, with a thread) and their threads' CPUs.
     *
     * @param affinityOfPid a thread's CPUs by PID
     */
    public static BusyPollCpus of(NapiMap napis, IntFunction<CpuSet> affinityOfPid) {
        Optional<String> unreported = Optional.empty();
        if (napis.source() == NapiSource.INTERRUPTS) {
            unreported = Optional.of(napis.detail());
        } else if (napis.instances().stream().noneMatch(napi -> napi.threaded().isPresent())) {
            unreported = Optional.of("netdev napi-get reports no per-NAPI threaded (Linux 6.17+), so no NAPI of "
                    + napis.iface() + " is known to busy-poll");
        }
        Map<Integer, CpuSet> byNapi = new TreeMap<>();
        for (NapiInstance napi : napis.instances()) {
            if (napi.threaded().orElse(0) == PerNapiThreaded.BUSY_POLL
                    && napi.threadPid().isPresent()) {
                byNapi.put(napi.id(), affinityOfPid.apply(napi.threadPid().getAsInt()));
            }
        }
        return new BusyPollCpus(napis.iface(), byNapi, unreported);
    }

    /**
     * The running kernel's: {@code napis} (netdev {@code napi-get}, as {@link NapiDiscovery} reads it) with each
     * busy-poll thread's affinity through {@code backend}.
     *
     * @throws NumaspreadException (call failed) naming the NIC and the thread PID whose affinity cannot be read
     */
    public static BusyPollCpus read(NapiMap napis, NativeBackend backend) {
        return of(napis, pid -> {
            try {
                return backend.affinity(pid);
            } catch (RuntimeException e) {
                throw new NumaspreadException(
                        NumaspreadException.Kind.CALL_FAILED,
                        "reading the CPUs of " + napis.iface() + "'s busy-poll NAPI thread (pid " + pid
                                + ", sched_getaffinity) failed: " + e.getMessage(),
                        e);
            }
        });
    }

    /** The CPUs the busy-poll threads may run on. */
    public CpuSet cpus() {
        return byNapi.values().stream().reduce(CpuSet.EMPTY, CpuSet::union);
    }

    /**
     * What event loops and IRQs stay off: the busy-poll CPUs, and with {@link PollSibling#IDLE} (as {@code apply
     * --poll-sibling} has by default) their SMT siblings too.
     */
    public CpuSet reserved(Topology topology, PollSibling sibling) {
        CpuSet.Builder reserved = CpuSet.builder();
        cpus().forEachCpu(cpu -> reserved.addAll(sibling.keptFree(topology, cpu)));
        return reserved.build();
    }

    /**
     * {@code loops} (event loops) planned off the {@link #reserved} CPUs.
     *
     * @throws NumaspreadException (bad input) when that leaves no CPU to plan over, naming the NIC, the busy-poll
     *     CPUs and their NAPIs
     */
    public PlanRequest avoidedBy(Topology topology, PlanRequest loops, PollSibling sibling) {
        CpuSet reserved = reserved(topology, sibling);
        PlanRequest avoiding = loops.avoiding(reserved);
        if (!reserved.isEmpty() && Planner.candidates(topology, avoiding).isEmpty()) {
            throw NumaspreadException.badInput(iface
                    + "'s threaded busy-poll NAPIs " + byNapi.keySet() + " spin on CPUs " + cpus()
                    + (sibling == PollSibling.IDLE && !reserved.equals(cpus())
                            ? ", which with their siblings kept free (" + reserved + ")"
                            : ", which")
                    + " leave none of CPUs " + Planner.candidates(topology, loops) + " for event loops");
        }
        return avoiding;
    }
}
