// SPDX-License-Identifier: Apache-2.0
package io.numaspread.testing;

import java.lang.annotation.Annotation;
import java.lang.reflect.AnnotatedElement;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.platform.commons.support.AnnotationSupport;

/**
 * Skips a test annotated {@code @NeedsRoot}, {@code @NeedsLiveNic}, {@code @NeedsSecondCpu} or
 * {@code @NeedsContainerEngine} when this machine lacks what it names, so that a contributor's plain
 * {@code mvn verify} is not red for want of a privilege; {@link NotRunSummary} then lists what was not run.
 * With {@value #REQUIRE_ALL} set to true, as scripts/test sets it, nothing is skipped: a missing need
 * fails the test.
 */
public final class MachineRequirements implements ExecutionCondition {
    public static final String REQUIRE_ALL = "numaspread.test.requireAll";
    /** The reason every skip starts with, which {@link NotRunSummary} looks for. */
    static final String REASON_PREFIX = "needs ";

    private static final Map<Class<? extends Annotation>, Need> ANNOTATIONS = Map.of(
            NeedsRoot.class,
            Need.ROOT,
            NeedsLiveNic.class,
            Need.LIVE_NIC,
            NeedsSecondCpu.class,
            Need.SECOND_CPU,
            NeedsContainerEngine.class,
            Need.CONTAINER_ENGINE);

    @Override
    public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
        Set<Need> needs = context.getElement().map(MachineRequirements::needsOf).orElse(Set.of());
        return decide(needs, Need::presentHere, Boolean.getBoolean(REQUIRE_ALL));
    }

    /** Runs the test when every need is present here, or when every test must run. */
    static ConditionEvaluationResult decide(Set<Need> needs, Predicate<Need> present, boolean requireAll) {
        Set<Need> missing = needs.stream()
                .filter(present.negate())
                .collect(Collectors.toCollection(() -> EnumSet.noneOf(Need.class)));
        if (missing.isEmpty()) {
            return ConditionEvaluationResult.enabled("this machine has what the test needs");
        }
        String lacking = missing.stream().map(Need::description).collect(Collectors.joining(", "));
        return requireAll
                ? ConditionEvaluationResult.enabled(REQUIRE_ALL + " is set: running without " + lacking)
                : ConditionEvaluationResult.disabled(REASON_PREFIX + lacking + " (scripts/test, as root, runs it)");
    }

    private static Set<Need> needsOf(AnnotatedElement element) {
        Set<Need> needs = EnumSet.noneOf(Need.class);
        ANNOTATIONS.forEach((annotation, need) -> {
            if (AnnotationSupport.isAnnotated(element, annotation)) {
                needs.add(need);
            }
        });
        return needs;
    }
}
