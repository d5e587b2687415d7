package dev.profiledrollout.faults;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Marks a nested user test class of the fault matrix: it runs only inside {@code EngineTestKit} (which sets
 * {@code profiledrollout.output.dir}), not when a build tool's class pattern picks it up on its own.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@ExtendWith(FaultCase.OnlyInTestKit.class)
@interface FaultCase {

    /** Disables the class unless the run carries the output directory a fault test gives it. */
    final class OnlyInTestKit implements ExecutionCondition {
        @Override
        public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
            return context.getConfigurationParameter("profiledrollout.output.dir").isPresent()
                    ? ConditionEvaluationResult.enabled("run by a fault-matrix test")
                    : ConditionEvaluationResult.disabled("a fault-matrix test case; runs only inside EngineTestKit");
        }
    }
}
