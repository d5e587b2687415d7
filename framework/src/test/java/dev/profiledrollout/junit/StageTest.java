package dev.profiledrollout.junit;

import static dev.profiledrollout.assertions.ProfiledRolloutAssertions.assertThat;

import dev.profiledrollout.Activity;
import dev.profiledrollout.ProfiledRollout;
import dev.profiledrollout.RolloutLoad;
import dev.profiledrollout.RolloutResult;
import dev.profiledrollout.RolloutSession;
import dev.profiledrollout.trace.TraceSet;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** SGLang {@code profile_by_stage}: the -EXTEND and -DECODE files are analysed as two stages. */
class StageTest {

    @TempDir
    Path output;

    @ProfiledRollout(numSteps = 2, profileByStage = true, activities = Activity.GPU)
    @RolloutLoad(concurrency = 4, requests = 12, inputTokens = 64, outputTokens = 16, warmupRequests = 0)
    static class ByStageTestCase {
        static final AtomicReference<RolloutResult> RESULT = new AtomicReference<>();

        @Test
        void stages(RolloutSession session) {
            RESULT.set(session.awaitResult());
        }
    }

    @Test
    void should_group_extend_and_decode_captures_by_stage() {
        ProfiledTestKit.run(ByStageTestCase.class, output).testEvents().assertStatistics(stats -> stats.succeeded(1));

        Map<String, TraceSet> stages = ByStageTestCase.RESULT.get().trace().stages();
        assertThat(stages.keySet()).containsExactlyInAnyOrder("EXTEND", "DECODE");
        assertThat(stages.get("EXTEND").traces()).hasSize(1);
        assertThat(stages.get("DECODE").traces()).hasSize(1);
        assertThat(stages.get("DECODE").kernels()).isNotEmpty();
    }
}
