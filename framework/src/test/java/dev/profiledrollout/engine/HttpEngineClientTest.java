package dev.profiledrollout.engine;

import static dev.profiledrollout.engine.MockResponses.status;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.io.IOException;
import java.net.URI;
import java.util.concurrent.TimeUnit;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What {@link VllmClient} and {@link TrtllmClient} share through {@link HttpEngineClient}: the bearer key, model
 * discovery, {@code /version}, and each engine's own words when a {@code GET} fails.
 */
class HttpEngineClientTest {

    private MockWebServer server;

    @BeforeEach
    void setUp() throws IOException {
        server = new MockWebServer();
        server.start();
    }

    @AfterEach
    void tearDown() {
        server.close();
    }

    @Test
    void both_clients_send_the_key_and_read_models_and_version() throws Exception {
        for (HttpEngineClient client : new HttpEngineClient[] {
                VllmClient.builder(server.url("/").uri()).apiKey("k1").build(),
                TrtllmClient.builder(server.url("/").uri()).apiKey("k1").build()}) {
            try (client) {
                // GIVEN
                server.enqueue(status(200, "{\"data\":[{\"id\":\"m1\"},{\"id\":\"m2\"}]}"));
                server.enqueue(status(200, "{\"version\":\"1.2.0\"}"));
                server.enqueue(status(404, "{\"detail\":\"Not Found\"}"));
                // WHEN / THEN
                assertThat(client.models()).as(client.engineName()).containsExactly("m1", "m2");
                assertThat(client.version()).contains("1.2.0");
                assertThat(client.version()).as("no /version route").isEmpty();
                RecordedRequest models = server.takeRequest(5, TimeUnit.SECONDS);
                assertThat(models.getUrl().encodedPath()).isEqualTo("/v1/models");
                assertThat(models.getHeaders().get("Authorization")).isEqualTo("Bearer k1");
                assertThat(client.loadTarget().baseUri()).isEqualTo(client.baseUri());
                server.takeRequest(5, TimeUnit.SECONDS);
                server.takeRequest(5, TimeUnit.SECONDS);
            }
        }
    }

    @Test
    void a_failed_get_is_told_in_each_engines_words() {
        server.enqueue(status(401, "{\"error\":\"Unauthorized\"}"));
        server.enqueue(status(500, "boom"));
        server.enqueue(status(200, "<html>not json</html>"));
        try (VllmClient vllm = VllmClient.builder(server.url("/").uri()).build();
                TrtllmClient trtllm = TrtllmClient.builder(server.url("/").uri()).build()) {
            EngineException unauthorized = catchThrowableOfType(EngineException.class, vllm::models);
            assertThat(unauthorized.getMessage()).contains("vLLM at ").contains("answered 401 to GET /v1/models: set ")
                    .contains("API key");
            EngineException failed = catchThrowableOfType(EngineException.class, trtllm::models);
            assertThat(failed.getMessage()).contains("TensorRT-LLM at ")
                    .contains("answered 500 to GET /v1/models; see the server log");
            EngineException notJson = catchThrowableOfType(EngineException.class, trtllm::models);
            assertThat(notJson.getMessage()).contains("is not JSON; is this trtllm-serve?");
        }
    }

    @Test
    void a_base_uri_without_scheme_or_host_is_refused() {
        assertThatThrownBy(() -> TrtllmClient.builder(URI.create("localhost:8000")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("must be absolute");
        assertThatThrownBy(() -> VllmClient.builder(URI.create("/v1")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("e.g. http://localhost:8000");
    }
}
