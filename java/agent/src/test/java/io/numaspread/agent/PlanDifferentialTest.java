// SPDX-License-Identifier: Apache-2.0
package io.numaspread.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.numaspread.plan.Planner;
import io.numaspread.testing.SysfsFixture;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link PlanDifferential} in a JVM with the agent, on this machine's library: the library's node=N,count=K plan
 * is core's {@link Planner}'s on every fixture topology and this host's /sys. (The arm64 guest runs the same
 * program on the aarch64 library: scripts/vm-checks-agent-plan.)
 */
@Timeout(value = 600, unit = TimeUnit.SECONDS)
class PlanDifferentialTest {
    @Test
    void theLibrarysPlanIsTheJavaPlannersOnEveryFixtureTopology(@TempDir Path temp) throws Exception {
        ForkedJvm.Result result = ForkedJvm.run(ForkedJvm.command(
                ForkedJvm.JDK_25,
                "threads=none-*,node=0,count=1",
                List.of(codeSource(Planner.class), codeSource(SysfsFixture.class)),
                PlanDifferential.class,
                temp.toString()));
        assertEquals(0, result.exitCode(), result.describe());
        String summary = result.stdout().get(result.stdout().size() - 1);
        assertTrue(
                summary.matches("plan-differential \\S+: \\d+ queries, \\d+ planned in Java, 0 differ"),
                result.describe());
    }

    /** The directory or jar a class was loaded from: core's classes and its test classes, for the fork. */
    private static Path codeSource(Class<?> type) throws URISyntaxException {
        return Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI());
    }
}
