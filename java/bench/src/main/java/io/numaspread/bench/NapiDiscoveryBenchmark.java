// SPDX-License-Identifier: Apache-2.0
package io.numaspread.bench;

import io.numaspread.kernel.InterfaceName;
import io.numaspread.kernel.KernelPaths;
import io.numaspread.nativeaccess.NativeBackend;
import io.numaspread.nic.NapiDiscovery;
import io.numaspread.nic.NicDiscovery;
import java.util.concurrent.TimeUnit;
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
 * What NAPI discovery of eth0 costs through netdev netlink (a socket, the family, a queue-get and a napi-get
 * dump), through the FFM and JNA backends, beside the discovery of the NIC itself from /sys and /proc that
 * {@code irqs} and {@code plan --nic} already do.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 4, time = 1)
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
@State(Scope.Thread)
public class NapiDiscoveryBenchmark {
    private static final InterfaceName ETH0 = new InterfaceName("eth0");

    @Param({"ffm", "jna"})
    public String via;

    private NativeBackend backend;

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        backend = Pinners.backend(via);
    }

    @Benchmark
    public Object napiDiscovery() {
        return NapiDiscovery.discover(ETH0, KernelPaths.LIVE, backend);
    }

    @Benchmark
    public Object nicDiscovery() {
        return NicDiscovery.discover(ETH0, KernelPaths.LIVE);
    }
}
