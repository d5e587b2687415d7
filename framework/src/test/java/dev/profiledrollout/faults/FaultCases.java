package dev.profiledrollout.faults;

import dev.profiledrollout.Activity;
import dev.profiledrollout.Backend;
import dev.profiledrollout.ProfiledRollout;
import dev.profiledrollout.RolloutLoad;
import dev.profiledrollout.RolloutResult;
import dev.profiledrollout.RolloutSession;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * The user test classes several fault-matrix tests run as they are: what varies is the engine, its faults and the
 * configuration keys. A run writes below {@code FaultCases$<Case>/<method>} in its output directory.
 */
final class FaultCases {

    private FaultCases() {
    }

    /** A short SGLang window without warm-up; keeps its result. */
    @FaultCase
    @ProfiledRollout(activities = Activity.GPU)
    @RolloutLoad(concurrency = 2, requests = 4, inputTokens = 16, outputTokens = 8, warmupRequests = 0)
    static class Profiled {
        static final AtomicReference<RolloutResult> RESULT = new AtomicReference<>();

        @Test
        void profiled(RolloutSession session) {
            RESULT.set(session.awaitResult());
        }
    }

    /** A capture that asks for steps the load never reaches, so no trace file ever appears. */
    @FaultCase
    @ProfiledRollout(numSteps = 5, startStep = 1_000_000, activities = Activity.GPU)
    @RolloutLoad(concurrency = 2, requests = 2, inputTokens = 16, outputTokens = 4, warmupRequests = 0)
    static class StepsNeverReached {
        @Test
        void tooManySteps(RolloutSession session) {
            session.awaitResult();
        }
    }

    /** A short vLLM window after one warm-up request. */
    @FaultCase
    @ProfiledRollout(backend = Backend.VLLM, activities = Activity.GPU)
    @RolloutLoad(concurrency = 2, requests = 4, inputTokens = 16, outputTokens = 8, warmupRequests = 1)
    static class Vllm {
        @Test
        void profiled(RolloutSession session) {
            session.awaitResult();
        }
    }
}
