package io.numaspread.cli;

import io.numaspread.CpuSet;
import io.numaspread.irq.Nic;
import io.numaspread.plan.Mode;
import io.numaspread.plan.PlanRequest;
import io.numaspread.plan.Planner;
import io.numaspread.plan.Purpose;
import io.numaspread.plan.SpreadPlan;
import io.numaspread.topology.Topology;
import java.util.List;
import java.util.Optional;
import picocli.CommandLine.Option;

/** How a NIC's queues are spread: the plan options of {@code plan}, with origin and count from the NIC. */
final class QueuePlanOptions {
    @Option(names = "--per-cpu", description = "Give each queue its slot CPU alone instead of its SMT sibling group.")
    boolean perCpu;

    @Option(names = "--cpus", paramLabel = "LIST", description = "Plan over these CPUs instead of every online,"
            + " non-isolated, non-nohz_full CPU (a cpulist such as 0-3,8).")
    String cpus;

    @Option(names = "--exclude", paramLabel = "LIST", description = "Leave these CPUs out (a cpulist).")
    String exclude;

    @Option(names = "--skip-first", description = "Leave the first slot to the NIC's control IRQ (as mana does).")
    boolean skipFirst;

    /** The plan for {@code nic}: origin from its PCI function, one assignment per queue. */
    SpreadPlan plan(Topology topology, Nic nic) {
        PlanRequest request = new PlanRequest(nic.origin(topology).map(List::of).orElse(List.of()),
                nic.queues().size(), perCpu ? Mode.CPU : Mode.SIBLINGS, Purpose.IRQS,
                Optional.ofNullable(cpus).map(list -> cpuList("--cpus", list, topology)),
                exclude == null ? CpuSet.EMPTY : cpuList("--exclude", exclude, topology), skipFirst);
        try {
            return Planner.plan(topology, request);
        } catch (IllegalArgumentException e) {
            throw new CliException(CliException.BAD_INPUT, e.getMessage());
        }
    }

    private static CpuSet cpuList(String flag, String text, Topology topology) {
        CpuSet set;
        try {
            set = CpuSet.parse(text);
        } catch (IllegalArgumentException e) {
            throw new CliException(CliException.BAD_INPUT, flag + ": " + e.getMessage());
        }
        if (!topology.possible().containsAll(set)) {
            throw new CliException(CliException.BAD_INPUT, flag + ": CPUs " + set.minus(topology.possible())
                    + " do not exist (possible CPUs: " + topology.possible() + ")");
        }
        return set;
    }
}
