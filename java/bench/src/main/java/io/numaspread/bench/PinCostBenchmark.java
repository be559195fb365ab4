// SPDX-License-Identifier: Apache-2.0
package io.numaspread.bench;

import io.numaspread.CpuSet;
import io.numaspread.nativeaccess.NativeBackend;
import java.util.BitSet;
import java.util.concurrent.TimeUnit;
import net.openhft.affinity.Affinity;
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
 * The cost of {@code sched_setaffinity} on the current thread, each call moving it between two CPUs, and of
 * {@code sched_getaffinity}, through our FFM and JNA backends and OpenHFT's Java-Thread-Affinity. The floor,
 * the raw syscall from C, is {@code native/bench/rawaffinity.c}; {@link PinCostReport} puts them side by side.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 4, time = 1)
@Fork(value = 2, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
@State(Scope.Thread)
public class PinCostBenchmark {
    /** ffm and jna: our backends; openhft: {@code net.openhft.affinity.Affinity}. */
    @Param({"ffm", "jna", "openhft"})
    public String via;

    private NativeBackend backend;
    private CpuSet[] sets;
    private BitSet[] bitSets;
    private int turn;

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        int[] cpus = Pinners.twoCpus();
        sets = new CpuSet[] {CpuSet.of(cpus[0]), CpuSet.of(cpus[1])};
        bitSets = new BitSet[] {new BitSet(), new BitSet()};
        bitSets[0].set(cpus[0]);
        bitSets[1].set(cpus[1]);
        if (via.equals("openhft")) {
            Affinity.setAffinity(bitSets[0]);
            if (!Affinity.getAffinity().equals(bitSets[0])) {
                throw new IllegalStateException("OpenHFT's Affinity did not pin: it reads back "
                        + Affinity.getAffinity() + " through " + Affinity.class.getName());
            }
        } else {
            backend = Pinners.backend(via);
        }
    }

    @Benchmark
    public void setAffinity() {
        turn ^= 1;
        if (backend == null) {
            Affinity.setAffinity(bitSets[turn]);
        } else {
            backend.setAffinity(0, sets[turn]);
        }
    }

    @Benchmark
    public Object getAffinity() {
        return backend == null ? Affinity.getAffinity() : backend.affinity(0);
    }
}
