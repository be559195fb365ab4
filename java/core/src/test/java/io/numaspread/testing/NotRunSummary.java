// SPDX-License-Identifier: Apache-2.0
package io.numaspread.testing;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.platform.engine.TestSource;
import org.junit.platform.engine.support.descriptor.ClassSource;
import org.junit.platform.engine.support.descriptor.MethodSource;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.TestPlan;

/**
 * At the end of a test run, says which tests {@link MachineRequirements} did not run here and for want of
 * what, so that a skipped test is never mistaken for a passed one. Registered for every module through
 * META-INF/services in core's test jar.
 */
public final class NotRunSummary implements TestExecutionListener {
    private final Map<String, List<String>> testsByReason = new TreeMap<>();

    @Override
    public synchronized void executionSkipped(TestIdentifier test, String reason) {
        if (reason.startsWith(MachineRequirements.REASON_PREFIX)) {
            testsByReason.computeIfAbsent(reason, r -> new ArrayList<>()).add(name(test));
        }
    }

    @Override
    public synchronized void testPlanExecutionFinished(TestPlan plan) {
        if (testsByReason.isEmpty()) {
            return;
        }
        StringBuilder summary = new StringBuilder("\nNOT RUN on this machine (not failed, not passed):\n");
        testsByReason.forEach((reason, tests) -> summary.append("  ")
                .append(reason)
                .append(": ")
                .append(String.join(", ", tests))
                .append('\n'));
        System.out.print(summary);
        System.out.flush();
    }

    private static String name(TestIdentifier test) {
        TestSource source = test.getSource().orElse(null);
        if (source instanceof MethodSource method) {
            return simpleName(method.getClassName()) + "." + method.getMethodName();
        }
        if (source instanceof ClassSource type) {
            return simpleName(type.getClassName());
        }
        return test.getDisplayName();
    }

    private static String simpleName(String className) {
        return className.substring(className.lastIndexOf('.') + 1);
    }
}
