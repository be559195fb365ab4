// SPDX-License-Identifier: Apache-2.0
package io.numaspread.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.numaspread.CpuSet;
import io.numaspread.kernel.SysfsTree;
import io.numaspread.lease.CpuLeases;
import io.numaspread.lease.HeldCpu;
import io.numaspread.nativeaccess.Backends;
import io.numaspread.topology.TopologyDiscovery;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Several JVMs with the agent on one host, sharing one lease registry as they share {@code /run/numaspread/cpus}:
 * where each JVM's threads run is read from the kernel ({@code /proc/PID/task/TID/status}), not from the JVM.
 */
class AgentLeasesTest {
    /** One thread on one CPU of node 0: on this 2-CPU machine, a second JVM has exactly one free CPU left. */
    private static final String OPTIONS = "threads=io-*,node=0,count=1,mode=cpu";

    @ParameterizedTest
    @MethodSource("io.numaspread.agent.AgentForkTest#jdks")
    @Timeout(180)
    void twoJvmsPinDisjointCpusAndACrashedHoldersCpuIsFreeAgain(Path jdk, @TempDir Path dir) throws Exception {
        CpuSet allowed = TopologyDiscovery.discover(Backends.live().backend(), SysfsTree.live())
                .allowed();
        assertTrue(allowed.size() >= 2, "two JVMs on disjoint CPUs need two allowed CPUs; this process has " + allowed);
        Path registry = dir.resolve("cpus");
        CpuSet firstCpus;
        try (ForkedJvm first = started(jdk, OPTIONS, registry)) {
            firstCpus = threadCpus(first, "io-0");
            assertEquals(1, firstCpus.size(), "mode=cpu pins to one CPU: " + firstCpus);
            List<HeldCpu> held = CpuLeases.in(registry).held();
            assertEquals(1, held.size(), "the first JVM's lease: " + held);
            assertEquals(firstCpus.first(), held.get(0).cpu(), "the CPU leased is the CPU its thread runs on");
            assertEquals(first.pid(), held.get(0).pid());
            assertEquals(
                    List.of("agent:io-*#0"), held.get(0).record().orElseThrow().pins(), held.toString());

            try (ForkedJvm second = started(jdk, OPTIONS, registry)) {
                CpuSet secondCpus = threadCpus(second, "io-0");
                assertEquals(1, secondCpus.size(), "mode=cpu pins to one CPU: " + secondCpus);
                assertTrue(
                        secondCpus.intersect(firstCpus).isEmpty(),
                        "the second JVM's io-0 on " + secondCpus + ", the first's on " + firstCpus);
                assertEquals(2, CpuLeases.in(registry).held().size(), "both JVMs' leases");
                second.kill();
            }
            try (ForkedJvm alone = started(jdk, OPTIONS + ",leases=off", registry)) {
                assertEquals(
                        firstCpus,
                        threadCpus(alone, "io-0"),
                        "leases=off plans as if alone on the host: where the first JVM's thread runs");
            }
            first.kill();
        }
        assertEquals(List.of(), CpuLeases.in(registry).held(), "the kernel dropped the killed JVM's lock");
        try (ForkedJvm next = started(jdk, OPTIONS, registry)) {
            assertEquals(firstCpus, threadCpus(next, "io-0"), "the killed holder's CPU is free again");
        }
    }

    /** The probe with the agent and registry {@code registry}, once its threads run. */
    private static ForkedJvm started(Path jdk, String options, Path registry) throws IOException {
        ForkedJvm jvm = ForkedJvm.start(ForkedJvm.sharingRegistry(
                ForkedJvm.command(jdk, options, List.of(), PinProbe.class, "attach", "io:1"), registry));
        jvm.readUntil("ready");
        return jvm;
    }

    /** The CPUs the kernel lets the thread named {@code name} of {@code jvm} run on. */
    private static CpuSet threadCpus(ForkedJvm jvm, String name) throws IOException {
        List<String> found = new ArrayList<>();
        try (DirectoryStream<Path> tasks =
                Files.newDirectoryStream(Path.of("/proc", Long.toString(jvm.pid()), "task"))) {
            for (Path task : tasks) {
                if (Files.readString(task.resolve("comm")).strip().equals(name)) {
                    for (String line : Files.readAllLines(task.resolve("status"))) {
                        if (line.startsWith("Cpus_allowed_list:")) {
                            found.add(line.substring("Cpus_allowed_list:".length())
                                    .strip());
                        }
                    }
                }
            }
        }
        assertEquals(1, found.size(), "one thread " + name + " in " + jvm.pid() + ": " + found);
        return CpuSet.parse(found.get(0));
    }
}
