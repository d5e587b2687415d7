package dev.profiledrollout.simulator;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@code --api-key}: which routes demand it, per engine, and how a refusal looks. */
class ApiKeyTest {

    private static final String KEY = "sk-sim-7f3a";
    private static final String UNAUTHORIZED = "{\"error\":\"Unauthorized\"}";

    @TempDir
    Path dir;

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

    private HttpResponse<String> call(URI base, String method, String path, String... headers)
            throws IOException, InterruptedException {
        HttpRequest.Builder b = HttpRequest.newBuilder(base.resolve(path)).timeout(Duration.ofSeconds(60))
                .method(method, method.equals("POST") ? HttpRequest.BodyPublishers.ofString("{}")
                        : HttpRequest.BodyPublishers.noBody());
        if (method.equals("POST")) {
            b.header("Content-Type", "application/json");
        }
        for (int i = 0; i < headers.length; i += 2) {
            b.header(headers[i], headers[i + 1]);
        }
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void sglang_demands_the_key_everywhere_but_health() throws Exception {
        try (EngineSimulator sim = EngineSimulator.start(SimulatorConfig.builder().apiKey(KEY)
                .profilerDir(dir).build())) {
            URI base = sim.baseUri();

            assertThat(call(base, "GET", "/health").statusCode()).isEqualTo(200);
            assertThat(call(base, "GET", "/health_generate").statusCode()).isEqualTo(200);
            for (String[] route : new String[][] {{"GET", "/v1/models"}, {"GET", "/server_info"},
                    {"POST", "/start_profile"}, {"POST", "/stop_profile"}, {"POST", "/flush_cache"},
                    {"POST", "/v1/completions"}, {"GET", "/no_such_route"}}) {
                HttpResponse<String> refused = call(base, route[0], route[1]);
                assertThat(refused.statusCode()).as(route[1]).isEqualTo(401);
                assertThat(refused.body()).as(route[1]).isEqualTo(UNAUTHORIZED);
            }
            assertThat(call(base, "GET", "/v1/models", "Authorization", "Bearer wrong").statusCode()).isEqualTo(401);

            assertThat(call(base, "GET", "/v1/models", "Authorization", "Bearer " + KEY).statusCode()).isEqualTo(200);
            assertThat(call(base, "GET", "/server_info", "Authorization", "bearer " + KEY).statusCode())
                    .as("the scheme is case-insensitive").isEqualTo(200);
            assertThat(call(base, "GET", "/v1/models", "x-api-key", KEY).statusCode())
                    .as("SGLang also takes the key as x-api-key").isEqualTo(200);
        }
    }

    @Test
    void vllm_demands_the_key_under_v1_only() throws Exception {
        try (EngineSimulator sim = EngineSimulator.start(SimulatorConfig.builder().backend("vllm").apiKey(KEY)
                .profilerConfig("{\"profiler\":\"torch\",\"torch_profiler_dir\":\"" + dir + "\"}").build())) {
            URI base = sim.baseUri();

            HttpResponse<String> refused = call(base, "GET", "/v1/models");
            assertThat(refused.statusCode()).isEqualTo(401);
            assertThat(refused.body()).isEqualTo(UNAUTHORIZED);
            assertThat(call(base, "POST", "/v1/completions").statusCode()).isEqualTo(401);
            assertThat(call(base, "GET", "/v1/models", "x-api-key", KEY).statusCode())
                    .as("vLLM reads the Authorization header only").isEqualTo(401);

            assertThat(call(base, "GET", "/health").statusCode()).isEqualTo(200);
            assertThat(call(base, "GET", "/version").statusCode()).isEqualTo(200);
            assertThat(call(base, "POST", "/start_profile").statusCode()).isEqualTo(200);
            assertThat(call(base, "POST", "/stop_profile").statusCode()).isEqualTo(200);

            assertThat(call(base, "GET", "/v1/models", "Authorization", "Bearer " + KEY).statusCode()).isEqualTo(200);
        }
    }

    @Test
    void a_blank_key_is_refused_with_the_fix() {
        assertThatThrownBy(() -> SimulatorConfig.builder().apiKey(" "))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("pass null");
    }
}
