// SPDX-License-Identifier: Apache-2.0
package io.numaspread.cli.containers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.numaspread.testing.NeedsContainerEngine;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** A JVM started with -javaagent inside a cpuset-limited container pins the threads that match its rule. */
@NeedsContainerEngine
class AgentContainerIT {
    private static final List<String> THREADS = List.of("io-0", "io-1", "io-2", "io-3", "other-0", "other-1");

    @BeforeAll
    static void agentIsBuilt() {
        NumaspreadContainer.built("java/agent/target/numaspread-agent.jar");
    }

    @Test
    void matchingThreadsArePinnedWithinTheContainersCpuset() {
        NumaspreadContainer.Run run = runProbe("1", 4);
        assertEquals(
                List.of("io-0 1", "io-1 1", "io-2 1", "io-3 1", "other-0 1", "other-1 1"),
                run.out().strip().lines().toList(),
                run::toString);
        // Every CPU of the host is on node 0; the plan holds only the container's CPU.
        for (String thread : List.of("io-0", "io-1", "io-2", "io-3")) {
            assertTrue(
                    Pattern.compile("pinned thread \"" + thread + "\" \\(tid \\d+\\) to CPUs 1\\b")
                            .matcher(run.err())
                            .find(),
                    run::toString);
        }
        assertFalse(run.err().contains("other-"), run::toString);
        assertFalse(run.err().contains("cannot pin"), run::toString);
    }

    @Test
    void theKthMatchingThreadTakesAssignmentKModN() {
        NumaspreadContainer.Run run = runProbe("0-1", 4);
        assertEquals(
                List.of("io-0 0", "io-1 1", "io-2 0", "io-3 1", "other-0 0-1", "other-1 0-1"),
                run.out().strip().lines().toList(),
                run::toString);
    }

    /** The probe's threads in a container of the given cpuset, under the agent with a rule for io-*. */
    private static NumaspreadContainer.Run runProbe(String cpuset, int expectedPins) {
        try (NumaspreadContainer container = NumaspreadContainer.start(host -> host.withCpusetCpus(cpuset))) {
            return container
                    .testProgram(
                            List.of(
                                    "-javaagent:" + NumaspreadContainer.AGENT_JAR
                                            + "=threads=io-*,node=0,count=2,verbose=true,strict=true",
                                    "-Dprobe.awaitStderrLines=" + expectedPins),
                            ThreadAffinityProbe.class,
                            THREADS.toArray(String[]::new))
                    .expectSuccess();
        }
    }
}
