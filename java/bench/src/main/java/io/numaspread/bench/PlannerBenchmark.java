// SPDX-License-Identifier: Apache-2.0
package io.numaspread.bench;

import io.numaspread.plan.Mode;
import io.numaspread.plan.PlanRequest;
import io.numaspread.plan.Planner;
import io.numaspread.plan.SpreadPlan;
import io.numaspread.testing.MachineShape;
import io.numaspread.testing.Topologies;
import io.numaspread.topology.Topology;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * Planning a queue for every CPU of a large machine (SMT 2, Intel numbering, sockets of 4 nodes). The topology
 * is built once in memory; only {@link Planner#plan} is timed. Allocation: run with {@code -prof gc}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(org.openjdk.jmh.annotations.Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class PlannerBenchmark {
    @Param({"16x1024", "64x8192"})
    public String machine;

    @Param({"SIBLINGS", "CPU"})
    public Mode mode;

    private Topology topology;
    private PlanRequest request;

    @Setup
    public void build() {
        String[] shape = machine.split("x");
        int nodes = Integer.parseInt(shape[0]);
        int cpus = Integer.parseInt(shape[1]);
        topology = Topologies.of(
                MachineShape.smt(machine, nodes, cpus / nodes / 2, 2, true, Topologies.socketDistances(nodes, 4)));
        request = PlanRequest.irqs(nodes / 2, cpus).withMode(mode);
    }

    @Benchmark
    public SpreadPlan planEveryCpu() {
        return Planner.plan(topology, request);
    }
}
