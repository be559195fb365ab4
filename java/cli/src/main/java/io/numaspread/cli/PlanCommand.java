package io.numaspread.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.numaspread.plan.Assignment;
import io.numaspread.plan.Mode;
import io.numaspread.plan.Priorities;
import io.numaspread.plan.PriorityCheck;
import io.numaspread.plan.Purpose;
import io.numaspread.plan.SpreadPlan;
import io.numaspread.topology.Topology;
import java.io.PrintWriter;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

@Command(name = "plan", mixinStandardHelpOptions = true,
        description = {"Show where a NIC's queues go: one queue per CPU while CPUs are free, nearest nodes first, "
                + "SMT siblings apart. Changes nothing.",
            "Several --node values (--node 0,1) plan --count queues for each, sharing the CPUs."})
final class PlanCommand implements Runnable {
    @Spec
    CommandSpec spec;

    @Mixin
    MachineOptions machine = new MachineOptions();

    @Mixin
    PlanOptions options = new PlanOptions();

    @Option(names = "--node", paramLabel = "N", split = ",",
            description = "The origin node(s), e.g. the NIC's numa_node; -1 or none for no origin.")
    List<Integer> nodes = List.of();

    @Option(names = "--count", paramLabel = "K", required = true, description = "Queues per origin.")
    int count;

    @Option(names = "--json", description = "Print one JSON object.")
    boolean json;

    @Override
    public void run() {
        Topology topology = machine.topology();
        SpreadPlan plan = PlanOptions.plan(topology, options.request(nodes, count, Purpose.IRQS));
        List<PriorityCheck> checks = Priorities.check(topology, plan);
        PrintWriter out = spec.commandLine().getOut();
        if (json) {
            out.println(Json.write(toJson(plan, checks)));
        } else {
            printText(out, plan, checks);
        }
        out.flush();
    }

    static ObjectNode toJson(SpreadPlan plan, List<PriorityCheck> checks) {
        ObjectNode root = Json.object();
        ArrayNode origin = root.putArray("origin");
        plan.request().origins().forEach(origin::add);
        root.put("count", plan.request().count());
        root.put("mode", plan.request().mode() == Mode.SIBLINGS ? "siblings" : "cpu");
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
        boolean several = plan.request().origins().size() > 1;
        out.println("candidates " + plan.candidates() + "   policy " + plan.request().policy().id() + "   mode "
                + (plan.request().mode() == Mode.SIBLINGS ? "siblings" : "per-cpu")
                + (plan.request().skipFirst() ? "   first slot skipped" : ""));
        out.println((several ? "origin  " : "") + "queue  cpus              slot  node  distance  level  pass");
        for (Assignment a : plan.assignments()) {
            String origin = several ? String.format("%6s  ", a.origin().isPresent() ? a.origin().getAsInt() : "-")
                    : "";
            out.printf("%s%5d  %-16s %5d %5d %9s %6d %5d%n", origin, a.index(), a.cpus(), a.cpu(), a.node(),
                    a.distance().isPresent() ? Integer.toString(a.distance().getAsInt()) : "-", a.level(), a.pass());
        }
        out.println();
        checks.forEach(out::println);
    }
}
