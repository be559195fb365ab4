// SPDX-License-Identifier: Apache-2.0
package io.numaspread.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.numaspread.CpuSet;
import io.numaspread.nativeaccess.BackendKind;
import io.numaspread.nativeaccess.Backends;
import io.numaspread.topology.CpuInfo;
import io.numaspread.topology.NumaNode;
import io.numaspread.topology.Topology;
import java.io.PrintWriter;
import java.util.LinkedHashSet;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

@Command(
        name = "topology",
        mixinStandardHelpOptions = true,
        description = "Show NUMA nodes, distances, SMT sibling groups, and the CPUs this process may use.")
final class TopologyCommand implements Runnable {
    @Spec
    CommandSpec spec;

    @Mixin
    MachineOptions machine = new MachineOptions();

    @Mixin
    JsonOption json = new JsonOption();

    @Override
    public void run() {
        print(spec.commandLine().getOut(), json.requested);
    }

    void print(PrintWriter out, boolean asJson) {
        MachineOptions.Machine read = machine.read();
        Backends.Selection selection = read.selection();
        Topology topology = read.topology();
        if (asJson) {
            out.println(Json.write(toJson(topology, selection.unavailable())));
        } else {
            printText(out, topology, selection.unavailable());
        }
        out.flush();
    }

    static ObjectNode toJson(Topology topology, Map<BackendKind, String> unavailable) {
        ObjectNode root = Json.object();
        root.put("backend", topology.backend().id());
        ObjectNode skipped = root.putObject("unavailable");
        unavailable.forEach((kind, why) -> skipped.put(kind.id(), why));
        ArrayNode nodes = root.putArray("nodes");
        for (NumaNode node : topology.nodes()) {
            ObjectNode entry = nodes.addObject();
            entry.put("id", node.id());
            entry.set("cpus", Json.cpus(node.cpus()));
            ArrayNode distances = entry.putArray("distances");
            node.distances().forEach(distance -> {
                if (distance == 0) {
                    distances.addNull();
                } else {
                    distances.add(distance);
                }
            });
        }
        ArrayNode cpus = root.putArray("cpus");
        for (CpuInfo cpu : topology.cpus()) {
            ObjectNode entry = cpus.addObject();
            entry.put("id", cpu.id());
            entry.put("node", cpu.node());
            entry.put("package", cpu.packageId());
            entry.set("siblings", Json.cpus(cpu.siblings()));
        }
        root.set("possible", Json.cpus(topology.possible()));
        root.set("online", Json.cpus(topology.online()));
        root.set("allowed", Json.cpus(topology.allowed()));
        root.set("isolated", Json.cpus(topology.isolated()));
        root.set("nohz_full", Json.cpus(topology.nohzFull()));
        return root;
    }

    static void printText(PrintWriter out, Topology topology, Map<BackendKind, String> unavailable) {
        out.println("backend   " + topology.backend().id());
        unavailable.forEach((kind, why) -> out.println("          (" + why + ")"));
        out.println("online    " + cpulist(topology.online()) + "   (possible " + cpulist(topology.possible()) + ")");
        out.println("allowed   " + cpulist(topology.allowed()));
        out.println("isolated  " + cpulist(topology.isolated()) + "   nohz_full " + cpulist(topology.nohzFull()));
        out.println();
        out.println("node  cpus");
        for (NumaNode node : topology.nodes()) {
            out.printf(Locale.ROOT, "%4d  %s%n", node.id(), cpulist(node.cpus()));
        }
        out.println();
        out.println("distances");
        StringBuilder header = new StringBuilder("node");
        topology.nodes().forEach(node -> header.append(String.format(Locale.ROOT, "%5d", node.id())));
        out.println(header);
        for (NumaNode node : topology.nodes()) {
            StringBuilder row = new StringBuilder(String.format(Locale.ROOT, "%4d", node.id()));
            node.distances().forEach(d -> row.append(d == 0 ? "    ?" : String.format(Locale.ROOT, "%5d", d)));
            out.println(row);
        }
        out.println();
        Set<CpuSet> groups = new LinkedHashSet<>();
        topology.cpus().forEach(cpu -> groups.add(cpu.siblings()));
        StringBuilder line = new StringBuilder("sibling groups  ");
        groups.forEach(group -> line.append('[').append(group).append("] "));
        out.println(line.toString().strip());
    }

    private static String cpulist(CpuSet cpus) {
        return cpus.isEmpty() ? "none" : cpus.toString();
    }
}
