// SPDX-License-Identifier: Apache-2.0
package io.numaspread.bench;

import io.numaspread.kernel.SysfsTree;
import io.numaspread.nativeaccess.NativeBackend;
import io.numaspread.topology.TopologyDiscovery;
import java.util.concurrent.TimeUnit;
import net.openhft.affinity.impl.VanillaCpuLayout;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Topology discovery: ours through each backend (NUMA nodes, distances, sibling groups, packages, online,
 * allowed, isolated and nohz_full CPUs) against OpenHFT's {@code VanillaCpuLayout.fromCpuInfo()} (sockets,
 * cores and threads from /proc/cpuinfo; no NUMA).
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 4, time = 1)
@Fork(value = 2, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
@State(Scope.Thread)
public class TopologyBenchmark {
    /** ffm, jna, sysfs: our discovery through that backend; openhft: {@code VanillaCpuLayout.fromCpuInfo()}. */
    @Param({"ffm", "jna", "sysfs", "openhft"})
    public String via;

    private NativeBackend backend;

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        backend = via.equals("openhft") ? null : Pinners.backend(via);
    }

    @Benchmark
    public Object discover() throws Exception {
        return backend == null ? VanillaCpuLayout.fromCpuInfo() : TopologyDiscovery.discover(backend, SysfsTree.live());
    }
}
