// SPDX-License-Identifier: Apache-2.0
package io.numaspread.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.numaspread.NumaspreadException;
import io.numaspread.nic.NapiMap;
import io.numaspread.nic.Nic;
import io.numaspread.plan.Assignment;
import io.numaspread.plan.PollCore;
import io.numaspread.plan.PollFlags;
import io.numaspread.plan.PollPlan;
import io.numaspread.plan.PollSibling;
import io.numaspread.plan.Priorities;
import io.numaspread.plan.PriorityCheck;
import io.numaspread.plan.Purpose;
import io.numaspread.plan.SpreadPlan;
import io.numaspread.topology.Topology;
import java.io.PrintWriter;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(
        name = "plan",
        mixinStandardHelpOptions = true,
        description = {
            "Show where a NIC's queues go: one queue per CPU while CPUs are free, nearest nodes first, "
                    + "SMT siblings apart. Changes nothing.",
            "Several --node values (--node 0,1) plan --count queues for each, sharing the CPUs.",
            "--nic IFACE plans for that NIC: its node and its number of queues; it also shows each queue's NAPI"
                    + " instance, with the source that named it. Several --nic (or --all) plan the NICs together,"
                    + " sharing the CPUs as several --node values do.",
            "--poll-queues N plans a core of its own for each of N busy-poll threads (threaded busy polling,"
                    + " Linux 6.19+) and keeps the IRQs and event loops off those cores."
        })
final class PlanCommand implements Runnable {
    @Spec
    CommandSpec spec;

    @Mixin
    NicPlanOptions planning = new NicPlanOptions();

    @Option(
            names = "--node",
            paramLabel = "N",
            split = ",",
            description = "The origin node(s), e.g. the NIC's numa_node; -1 or none for no origin.")
    List<Integer> nodes = List.of();

    @Option(names = "--count", paramLabel = "K", description = "Queues per origin.")
    Integer count;

    @Mixin
    NicOption.Chosen nics = new NicOption.Chosen();

    @Mixin
    PollOptions polling = new PollOptions();

    @Mixin
    JsonOption json = new JsonOption();

    @Mixin
    PictureOptions picture = new PictureOptions();

    @Override
    public void run() {
        boolean drawn = picture.target().isPresent();
        Topology topology = planning.machine.topology();
        SpreadPlan plan;
        Nic found = null;
        NapiMap napis = null;
        NicPlanOptions.NicPlan nicPlan = null;
        if (nics.given()) {
            if (count != null || !nodes.isEmpty()) {
                throw NumaspreadException.badInput(
                        "--nic takes the origin and the count from the NIC: leave out --node and --count");
            }
            List<NicPlanOptions.NicPlan> nicPlans = planning.plans(nics, topology);
            if (nicPlans.size() > 1) {
                planTogether(topology, nicPlans, drawn);
                return;
            }
            nicPlan = nicPlans.get(0);
            found = nicPlan.nic();
            plan = nicPlan.plan();
            napis = planning.napis(nicPlan);
        } else if (count == null) {
            throw NumaspreadException.badInput("give --nic IFACE, or --count K (with --node N)");
        } else {
            plan = PlanOptions.plan(topology, planning.planOptions.request(nodes, count, Purpose.IRQS));
        }
        Optional<PollFlags.Around> polled = polling.plan(topology, plan.request());
        PollPlan poll = polled.map(PollFlags.Around::poll).orElse(null);
        SpreadPlan loops = null;
        if (poll != null) {
            if (nicPlan != null) {
                nicPlan = planning.leased(
                        nicPlan.paths(), topology, found, polled.get().irqs());
                plan = nicPlan.plan();
            } else {
                plan = polled.get().irqs();
            }
            loops = PlanOptions.plan(
                    topology,
                    poll.avoidedBy(plan.request().withPurpose(Purpose.THREADS).withSkipFirst(false)));
        }
        List<PriorityCheck> checks = Priorities.check(
                topology, List.of(plan), List.of(nicPlan == null ? Set.of() : leasedElsewhere(nicPlan)));
        PrintWriter out = spec.commandLine().getOut();
        if (json.requested) {
            ObjectNode root = toJson(plan, checks);
            if (poll != null) {
                root.set("poll", pollJson(poll, loops));
            }
            if (found != null) {
                putNic(root, found, napis);
                List<LeaseReport.Row> leases = LeaseReport.rows(found, nicPlan.leases());
                if (!leases.isEmpty()) {
                    root.set("leases", LeaseReport.toJson(leases));
                }
            }
            out.println(Json.write(root));
        } else {
            if (found != null) {
                printNic(out, found, topology);
            }
            if (poll != null) {
                printPoll(out, poll, loops);
            }
            printText(out, plan, checks);
            if (napis != null) {
                out.println();
                NapiReport.print(out, napis);
                LeaseReport.print(out, LeaseReport.rows(found, nicPlan.leases()));
            }
        }
        out.flush();
        picture.draw(
                found == null ? "numaspread plan" : "numaspread plan --nic " + found.name(),
                topology,
                plan,
                found == null ? "origin" : found.name().value(),
                List.of(),
                planning.proc.paths(planning.machine).procRoot());
    }

    /** The plan indexes of the NIC's queues on their lessees' CPUs, which the NIC's priorities do not judge. */
    private static Set<Integer> leasedElsewhere(NicPlanOptions.NicPlan nicPlan) {
        return nicPlan.leases().plan().moved().keySet();
    }

    /**
     * Several NICs: each NIC's share of their joint plan, in the order chosen, and the priorities judged over all
     * their queues as one.
     */
    private void planTogether(Topology topology, List<NicPlanOptions.NicPlan> nicPlans, boolean drawn) {
        String flag = drawn ? "--svg" : polling.pollQueues != null ? "--poll-queues" : null;
        if (flag != null) {
            throw NumaspreadException.badInput(
                    flag + " works on one NIC, and " + nicPlans.size() + " were chosen: give one --nic");
        }
        List<SpreadPlan> shares =
                nicPlans.stream().map(NicPlanOptions.NicPlan::plan).toList();
        List<PriorityCheck> checks = Priorities.check(
                topology,
                shares,
                nicPlans.stream().map(PlanCommand::leasedElsewhere).toList());
        PrintWriter out = spec.commandLine().getOut();
        if (json.requested) {
            ObjectNode root = Json.object();
            ArrayNode each = root.putArray("nics");
            for (NicPlanOptions.NicPlan nicPlan : nicPlans) {
                ObjectNode entry = toJson(nicPlan.plan(), List.of());
                entry.remove("priorities"); // judged over the joint plan, below
                putNic(entry, nicPlan.nic(), planning.napis(nicPlan));
                each.add(entry);
            }
            root.set("priorities", toJson(shares.get(0), checks).get("priorities"));
            out.println(Json.write(root));
        } else {
            printSummary(out, shares.get(0));
            for (NicPlanOptions.NicPlan nicPlan : nicPlans) {
                out.println();
                printNic(out, nicPlan.nic(), topology);
                printAssignments(out, nicPlan.plan());
            }
            out.println();
            out.println("priorities over the " + nicPlans.size() + " NICs' "
                    + shares.stream().mapToInt(SpreadPlan::size).sum() + " queues:");
            checks.forEach(out::println);
            for (NicPlanOptions.NicPlan nicPlan : nicPlans) {
                out.println();
                NapiReport.print(out, planning.napis(nicPlan));
            }
        }
        out.flush();
    }

    /** The NIC a plan is for, in the JSON object of its plan. */
    private static void putNic(ObjectNode root, Nic found, NapiMap napis) {
        root.put("interface", found.name().value());
        root.put("pci", found.pciAddress());
        root.put("numa_node", found.numaNode());
        root.set("napi", NapiReport.toJson(napis));
    }

    /** The NIC a plan is for, in one line. */
    private static void printNic(PrintWriter out, Nic found, Topology topology) {
        out.println(found.name() + ": PCI " + found.pciAddress() + ", " + found.originReason(topology) + "; "
                + found.queues().size() + " queue" + (found.queues().size() == 1 ? "" : "s") + " ("
                + (found.grouping().recognised()
                        ? found.grouping().scheme() + " naming"
                        : "naming not recognised: one per vector")
                + ")");
    }

    static ObjectNode pollJson(PollPlan poll, SpreadPlan loops) {
        ObjectNode root = Json.object();
        root.put("queues", poll.request().queues());
        root.put("sibling", poll.request().sibling().id());
        root.set("cpus", Json.cpus(poll.cpus()));
        root.set("reserved", Json.cpus(poll.reserved()));
        ArrayNode cores = root.putArray("cores");
        for (PollCore core : poll.cores()) {
            ObjectNode entry = cores.addObject();
            entry.put("queue", core.queue());
            entry.put("cpu", core.cpu());
            entry.put("node", core.node());
            if (core.distance().isPresent()) {
                entry.put("distance", core.distance().getAsInt());
            } else {
                entry.putNull("distance");
            }
            entry.put("level", core.level());
            entry.set("siblings", Json.cpus(core.siblings()));
        }
        ArrayNode loopCpus = root.putArray("loop_cpus");
        loops.assignments().forEach(a -> loopCpus.add(a.cpu()));
        return root;
    }

    /** The poll cores, and with {@code loops} (null for none) the event loop CPUs that avoid them. */
    static void printPoll(PrintWriter out, PollPlan poll, SpreadPlan loops) {
        boolean idle = poll.request().sibling() == PollSibling.IDLE;
        out.println("busy poll: " + poll.request().queues() + " queue"
                + (poll.request().queues() == 1 ? "" : "s")
                + ", one spinning core each, siblings " + (idle ? "kept free" : "shared")
                + "; IRQs and event loops avoid CPUs " + poll.reserved());
        out.println("poll  cpu  node  distance  level  siblings");
        for (PollCore core : poll.cores()) {
            out.printf(
                    Locale.ROOT,
                    "%4d %4d %5d %9s %6d  %s%n",
                    core.queue(),
                    core.cpu(),
                    core.node(),
                    core.distance().isPresent()
                            ? Integer.toString(core.distance().getAsInt())
                            : "-",
                    core.level(),
                    core.siblings().isEmpty() ? "-" : core.siblings() + (idle ? " (idle)" : " (shared)"));
        }
        if (loops == null) {
            return; // apply places no event loops
        }
        StringBuilder slots = new StringBuilder();
        for (Assignment a : loops.assignments()) {
            slots.append(slots.isEmpty() ? "" : ",").append(a.cpu());
        }
        out.println("event loops (" + loops.size() + "): CPUs " + slots);
        out.println();
    }

    static ObjectNode toJson(SpreadPlan plan, List<PriorityCheck> checks) {
        ObjectNode root = Json.object();
        ArrayNode origin = root.putArray("origin");
        plan.request().origins().forEach(origin::add);
        root.put("count", plan.request().count());
        root.put("mode", plan.request().mode().label());
        root.put("policy", plan.request().policy().id());
        root.put("skip_first", plan.request().skipFirst());
        root.set("candidates", Json.cpus(plan.candidates()));
        ArrayNode assignments = root.putArray("assignments");
        for (Assignment a : plan.assignments()) {
            ObjectNode entry = assignments.addObject();
            entry.put("index", a.index());
            if (a.origin().isPresent()) {
                entry.put("origin", a.origin().getAsInt());
            } else {
                entry.putNull("origin");
            }
            entry.set("cpus", Json.cpus(a.cpus()));
            entry.put("cpu", a.cpu());
            entry.put("node", a.node());
            if (a.distance().isPresent()) {
                entry.put("distance", a.distance().getAsInt());
            } else {
                entry.putNull("distance");
            }
            entry.put("level", a.level());
            entry.put("pass", a.pass());
        }
        ArrayNode priorities = root.putArray("priorities");
        for (PriorityCheck check : checks) {
            ObjectNode entry = priorities.addObject();
            entry.put("priority", check.priority().rank());
            entry.put("name", check.priority().title());
            entry.put("status", check.status().id());
            entry.put("detail", check.detail());
        }
        return root;
    }

    static void printText(PrintWriter out, SpreadPlan plan, List<PriorityCheck> checks) {
        printSummary(out, plan);
        printAssignments(out, plan);
        out.println();
        checks.forEach(out::println);
    }

    /** The candidates, the policy and the mode, which every share of a joint plan has alike. */
    private static void printSummary(PrintWriter out, SpreadPlan plan) {
        out.println("candidates " + plan.candidates() + "   policy "
                + plan.request().policy().id() + "   mode "
                + plan.request().mode().label()
                + (plan.request().skipFirst() ? "   first slot skipped" : ""));
    }

    private static void printAssignments(PrintWriter out, SpreadPlan plan) {
        boolean several = plan.request().origins().size() > 1;
        out.println((several ? "origin  " : "") + "queue  cpus              slot  node  distance  level  pass");
        for (Assignment a : plan.assignments()) {
            String origin = several
                    ? String.format(
                            Locale.ROOT,
                            "%6s  ",
                            a.origin().isPresent() ? a.origin().getAsInt() : "-")
                    : "";
            out.printf(
                    Locale.ROOT,
                    "%s%5d  %-16s %5d %5d %9s %6d %5d%n",
                    origin,
                    a.index(),
                    a.cpus(),
                    a.cpu(),
                    a.node(),
                    a.distance().isPresent() ? Integer.toString(a.distance().getAsInt()) : "-",
                    a.level(),
                    a.pass());
        }
    }
}
