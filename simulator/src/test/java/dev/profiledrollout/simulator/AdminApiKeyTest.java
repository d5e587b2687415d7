package dev.profiledrollout.simulator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * SGLang with {@code --api-key} and {@code --admin-api-key} (sgl-project/sglang {@code python/sglang/srt/utils/auth.py},
 * {@code decide_request_auth}): the admin-optional routes take only the admin key, every other route only the API key.
 */
class AdminApiKeyTest {

    private static final String KEY = "sk-gen-1";
    private static final String ADMIN = "sk-admin-2";

    @TempDir
    Path dir;

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

    private int post(URI base, String path, String key) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(base.resolve(path)).timeout(Duration.ofSeconds(60))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(path.equals("/v1/completions")
                        ? "{\"prompt\":\"hi\",\"max_tokens\":2}" : "{}"));
        if (key != null) {
            b.header("Authorization", "Bearer " + key);
        }
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString()).statusCode();
    }

    @Test
    void profile_routes_take_only_the_admin_key_and_generation_only_the_api_key() throws Exception {
        try (EngineSimulator sim = EngineSimulator.start(SimulatorConfig.builder().apiKey(KEY).adminApiKey(ADMIN)
                .profilerDir(dir).build())) {
            URI base = sim.baseUri();

            assertThat(post(base, "/start_profile", KEY)).isEqualTo(401);
            assertThat(post(base, "/start_profile", null)).isEqualTo(401);
            assertThat(post(base, "/flush_cache", KEY)).isEqualTo(401);
            assertThat(post(base, "/v1/completions", ADMIN)).isEqualTo(401);

            assertThat(post(base, "/v1/completions", KEY)).isEqualTo(200);
            assertThat(post(base, "/start_profile", ADMIN)).isEqualTo(200);
            assertThat(post(base, "/stop_profile", ADMIN)).isIn(200, 500);
        }
    }

    @Test
    void with_only_the_admin_key_generation_is_open_and_profiling_is_guarded() throws Exception {
        try (EngineSimulator sim = EngineSimulator.start(SimulatorConfig.builder().adminApiKey(ADMIN)
                .profilerDir(dir).build())) {
            URI base = sim.baseUri();

            assertThat(post(base, "/v1/completions", null)).isEqualTo(200);
            assertThat(post(base, "/start_profile", null)).isEqualTo(401);
            assertThat(post(base, "/start_profile", ADMIN)).isEqualTo(200);
        }
    }

    @Test
    void the_admin_key_is_sglangs_only() {
        assertThatThrownBy(() -> SimulatorConfig.builder().backend("vllm").adminApiKey(ADMIN).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("--admin-api-key");
    }
}
