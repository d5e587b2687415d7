package dev.profiledrollout.junit;

import static dev.profiledrollout.junit.ProfiledTestKit.attach;
import static dev.profiledrollout.junit.ProfiledTestKit.failure;
import static org.assertj.core.api.Assertions.assertThat;

import dev.profiledrollout.ProfiledRollout;
import dev.profiledrollout.RolloutLoad;
import dev.profiledrollout.RolloutResult;
import dev.profiledrollout.RolloutSession;
import dev.profiledrollout.simulator.EngineSimulator;
import dev.profiledrollout.simulator.SimulatorConfig;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An SGLang server with {@code --api-key} and {@code --admin-api-key}: the profile routes take only the admin key
 * ({@code profiledrollout.admin.api.key}), the load only the API key ({@code profiledrollout.api.key}).
 */
class AdminApiKeyExtensionTest {

    private static final String KEY = "sk-gen-1";
    private static final String ADMIN = "sk-admin-2";

    @TempDir
    Path output;

    @ProfiledRollout(numSteps = 2)
    @RolloutLoad(concurrency = 1, requests = 2, inputTokens = 16, outputTokens = 8, warmupRequests = 0)
    static class TwoKeysTestCase {
        static final AtomicReference<RolloutResult> RESULT = new AtomicReference<>();

        @Test
        void keys(RolloutSession session) {
            RESULT.set(session.awaitResult());
        }
    }

    @Test
    void both_keys_are_sent_where_each_is_accepted() throws Exception {
        try (EngineSimulator server = EngineSimulator.start(SimulatorConfig.builder().apiKey(KEY).adminApiKey(ADMIN)
                .build())) {
            attach(TwoKeysTestCase.class, output, server.baseUri(), "profiledrollout.api.key", KEY,
                    "profiledrollout.admin.api.key", ADMIN).testEvents()
                    .assertStatistics(stats -> stats.succeeded(1));

            RolloutResult result = TwoKeysTestCase.RESULT.get();
            assertThat(result.latency().completed()).isEqualTo(2);
            assertThat(result.traceFiles()).isNotEmpty();
        }
    }

    @Test
    void without_the_admin_key_the_start_is_refused_and_the_message_names_its_key() throws Exception {
        try (EngineSimulator server = EngineSimulator.start(SimulatorConfig.builder().apiKey(KEY).adminApiKey(ADMIN)
                .build())) {
            Throwable failure = failure(attach(TwoKeysTestCase.class, output, server.baseUri(),
                    "profiledrollout.api.key", KEY));

            assertThat(failure).hasMessageContaining("401").hasMessageContaining("profiledrollout.admin.api.key")
                    .hasMessageNotContaining(KEY);
        }
    }
}
