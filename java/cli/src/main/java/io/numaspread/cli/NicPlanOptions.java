// SPDX-License-Identifier: Apache-2.0
package io.numaspread.cli;

import io.numaspread.NumaspreadException;
import io.numaspread.irq.LinkIrqPolicy;
import io.numaspread.kernel.InterfaceName;
import io.numaspread.kernel.KernelPaths;
import io.numaspread.nic.LowerDevices;
import io.numaspread.nic.NapiDiscovery;
import io.numaspread.nic.NapiMap;
import io.numaspread.nic.Nic;
import io.numaspread.nic.NicDiscovery;
import io.numaspread.nic.QueueLeases;
import io.numaspread.plan.PlanRequest;
import io.numaspread.plan.Planner;
import io.numaspread.plan.Purpose;
import io.numaspread.plan.SpreadPlan;
import io.numaspread.topology.Topology;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Mixin;

/**
 * Where the kernel's files are and how a NIC's queues are spread: the flags of every command that plans for a NIC,
 * whichever way it names the NIC ({@link NicOption}).
 */
class NicPlanOptions {
    @Mixin
    MachineOptions machine = new MachineOptions();

    @Mixin
    ProcRootOptions proc = new ProcRootOptions();

    @Mixin
    PlanOptions planOptions = new PlanOptions();

    @Mixin
    HostRootOption host = new HostRootOption();

    /**
     * The NIC, the machine and the plan for the NIC's queues on it.
     *
     * @param plan the NIC's share of the host's plan, its leased queues on their lessees' CPUs
     * @param leases its leased rx queues (Linux 7.0+) and what the plan did with each
     */
    record NicPlan(KernelPaths paths, Topology topology, Nic nic, SpreadPlan plan, QueueLeases.Leased leases) {
        NicReport report() {
            return new NicReport(topology, nic, plan, paths);
        }
    }

    /** The NICs' joint plan ({@link Planner#together}): each NIC with its share, in the order chosen. */
    List<NicPlan> plans(NicOption.Chosen nics) {
        return plans(nics, proc.paths(machine), machine.topology());
    }

    /** {@link #plans(NicOption.Chosen)} on the topology the command has read already. */
    List<NicPlan> plans(NicOption.Chosen nics, Topology topology) {
        return plans(nics, proc.paths(machine), topology);
    }

    /** For commands that write: see {@link ProcRootOptions#writablePaths}. */
    List<NicPlan> plansToWrite(NicOption.Chosen nics) {
        return plans(nics, proc.writablePaths(machine), machine.topology());
    }

    private List<NicPlan> plans(NicOption.Chosen chosen, KernelPaths paths, Topology topology) {
        List<InterfaceName> names = chosen.names();
        List<Nic> nics = chosen.all
                ? NicDiscovery.withQueueIrqs(paths)
                : LowerDevices.nicsUnder(names, paths).stream()
                        .map(name -> NicDiscovery.discover(name, paths))
                        .toList();
        if (nics.isEmpty()) {
            throw NumaspreadException.badInput("--all: no interface of " + paths.netClass() + " has queue IRQs");
        }
        return together(nics, paths, topology);
    }

    /** The NICs under an upper device ({@link LowerDevices#nics}), planned together as several --nic are. */
    List<NicPlan> plans(LowerDevices lower) {
        KernelPaths paths = proc.paths(machine);
        return together(
                lower.nics().stream()
                        .map(member -> NicDiscovery.discover(member.name(), paths))
                        .toList(),
                paths,
                machine.topology());
    }

    private List<NicPlan> together(List<Nic> nics, KernelPaths paths, Topology topology) {
        List<PlanRequest> requests = nics.stream()
                .map(nic -> planOptions.refine(nic.planRequest(topology, Purpose.IRQS)))
                .toList();
        List<SpreadPlan> shares;
        try {
            shares = Planner.together(topology, requests);
        } catch (IllegalArgumentException e) {
            throw NumaspreadException.badInput(e.getMessage());
        }
        List<NicPlan> plans = new ArrayList<>();
        for (int i = 0; i < nics.size(); i++) {
            plans.add(leased(paths, topology, nics.get(i), shares.get(i)));
        }
        return List.copyOf(plans);
    }

    /** {@code share}, a plan of {@code nic}'s queues, with its leased queues on their lessees' CPUs. */
    NicPlan leased(KernelPaths paths, Topology topology, Nic nic, SpreadPlan share) {
        QueueLeases.Leased leased = machine.leaseSource.leased(paths, topology, nic, share);
        return new NicPlan(paths, topology, nic, leased.plan().plan(), leased);
    }

    /** The NIC's NAPI instances, through the backend this command reads the machine with. */
    NapiMap napis(NicPlan plan) {
        return NapiDiscovery.discover(plan.nic().name(), plan.paths(), machine.backend());
    }

    /** The systemd .link files that have udev place the NIC's IRQs too. */
    List<LinkIrqPolicy> linkPolicies(NicPlan plan) {
        return LinkIrqPolicy.find(host.hostRoot, plan.paths(), plan.nic().name());
    }

    /** {@link Nic#planRequest} for the NIC's queue IRQs, with the plan flags applied. */
    static SpreadPlan planFor(Topology topology, Nic nic, PlanOptions options) {
        return PlanOptions.plan(topology, options.refine(nic.planRequest(topology, Purpose.IRQS)));
    }
}
