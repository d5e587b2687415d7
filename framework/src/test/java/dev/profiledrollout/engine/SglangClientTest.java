package dev.profiledrollout.engine;

import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static dev.profiledrollout.engine.MockResponses.status;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

class SglangClientTest {

    private static final String API_KEY = "sk-secret-123";

    private MockWebServer server;
    private SglangClient client;

    @BeforeEach
    void setUp() throws IOException {
        server = new MockWebServer();
        server.start();
        client = SglangClient.builder(server.url("/").uri()).apiKey(API_KEY)
                .healthPollInterval(Duration.ofMillis(10)).build();
    }

    @AfterEach
    void tearDown() {
        client.close();
        server.close();
    }


    @Test
    void should_post_the_profile_request_as_json_with_bearer_auth() throws Exception {
        // GIVEN
        server.enqueue(status(200, "Start profiling.\n"));
        // WHEN
        client.startProfile(ProfileRequest.builder().outputDir("/tmp/prof").numSteps(10).build());
        // THEN
        RecordedRequest recorded = server.takeRequest(5, TimeUnit.SECONDS);
        assertThat(recorded.getMethod()).isEqualTo("POST");
        assertThat(recorded.getUrl().encodedPath()).isEqualTo("/start_profile");
        assertThat(recorded.getHeaders().get("Authorization")).isEqualTo("Bearer " + API_KEY);
        assertThat(recorded.getHeaders().get("Content-Type")).startsWith("application/json");
        assertThat(recorded.getBody().utf8()).isEqualTo("{\"output_dir\":\"/tmp/prof\",\"num_steps\":10}");
    }

    @ParameterizedTest
    @CsvSource({
            "404, not SGLang",
            "500, already in progress",
            "401, profiledrollout.api.key",
            "403, profiledrollout.api.key",
            "400, bad type"})
    void should_fail_start_with_status_body_and_fix_but_never_the_key(int code, String fix) {
        // GIVEN
        server.enqueue(status(code, "detail-from-server"));
        // WHEN
        EngineException e = catchThrowableOfType(EngineException.class,
                () -> client.startProfile(ProfileRequest.builder().build()));
        // THEN
        assertThat(e.status()).isEqualTo(code);
        assertThat(e.responseBody()).isEqualTo("detail-from-server");
        assertThat(e.uri().getPath()).isEqualTo("/start_profile");
        assertThat(e.getMessage()).contains(String.valueOf(code)).contains("/start_profile").contains(fix)
                .contains("detail-from-server").doesNotContain(API_KEY);
    }

    @Test
    void should_report_stopped_on_200_and_not_in_progress_on_500() throws Exception {
        server.enqueue(status(200, "Stop profiling. This will take some time.\n"));
        server.enqueue(status(500, "Internal Server Error"));
        assertThat(client.stopProfile()).isEqualTo(StopOutcome.STOPPED);
        assertThat(client.stopProfile()).isEqualTo(StopOutcome.NOT_IN_PROGRESS);
        RecordedRequest recorded = server.takeRequest(5, TimeUnit.SECONDS);
        assertThat(recorded.getMethod()).isEqualTo("POST");
        assertThat(recorded.getUrl().encodedPath()).isEqualTo("/stop_profile");
        assertThat(recorded.getHeaders().get("Authorization")).isEqualTo("Bearer " + API_KEY);
    }

    @Test
    void should_fail_stop_on_other_statuses() {
        server.enqueue(status(401, ""));
        EngineException e = catchThrowableOfType(EngineException.class, client::stopProfile);
        assertThat(e.status()).isEqualTo(401);
        assertThat(e.getMessage()).contains("profiledrollout.api.key").doesNotContain(API_KEY);
    }

    @Test
    void should_wait_through_503_until_healthy() throws Exception {
        server.enqueue(status(503, ""));
        server.enqueue(status(503, ""));
        server.enqueue(status(200, ""));
        client.awaitHealthy(Duration.ofSeconds(10));
        assertThat(server.getRequestCount()).isEqualTo(3);
        assertThat(server.takeRequest(5, TimeUnit.SECONDS).getUrl().encodedPath()).isEqualTo("/health");
    }

    @Test
    void should_put_the_route_before_the_query_of_the_base_url_and_keep_credentials_out_of_messages() {
        // GIVEN a base URL with user info and a query token, on a server that never becomes healthy
        for (int i = 0; i < 200; i++) {
            server.enqueue(status(503, "warming up"));
        }
        URI base = URI.create("http://user:pw-secret@" + server.url("/").uri().getAuthority() + "/v0/?token=q-secret");
        try (SglangClient withSecrets = SglangClient.builder(base).healthPollInterval(Duration.ofMillis(10)).build()) {
            // WHEN
            EngineException e = catchThrowableOfType(EngineException.class,
                    () -> withSecrets.awaitHealthy(Duration.ofMillis(200)));
            // THEN /health goes after the base path and before the query, and the message names neither secret
            RecordedRequest recorded = server.takeRequest(5, TimeUnit.SECONDS);
            assertThat(recorded.getUrl().encodedPath()).isEqualTo("/v0/health");
            assertThat(recorded.getUrl().queryParameter("token")).isEqualTo("q-secret");
            assertThat(e).hasMessageContaining("/v0/health").hasMessageNotContaining("secret");
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void should_time_out_naming_the_url_and_last_status() {
        for (int i = 0; i < 200; i++) {
            server.enqueue(status(503, ""));
        }
        EngineException e = catchThrowableOfType(EngineException.class,
                () -> client.awaitHealthy(Duration.ofMillis(300)));
        assertThat(e.getMessage()).contains(server.url("/health").toString()).contains("503").contains("ms");
        assertThat(e.status()).isEqualTo(503);
    }

    @Test
    void should_time_out_with_status_minus_one_when_nothing_listens() throws IOException {
        int port;
        try (ServerSocket socket = new ServerSocket(0)) {
            port = socket.getLocalPort();
        }
        try (SglangClient dead = SglangClient.builder(URI.create("http://127.0.0.1:" + port))
                .healthPollInterval(Duration.ofMillis(20)).build()) {
            EngineException e = catchThrowableOfType(EngineException.class,
                    () -> dead.awaitHealthy(Duration.ofMillis(200)));
            assertThat(e.status()).isEqualTo(-1);
            assertThat(e.getMessage()).contains("http://127.0.0.1:" + port + "/health");
        }
    }

    // the health timeout is ten minutes: only the unreachable timeout can end the wait before the hang guard
    @Test
    @org.junit.jupiter.api.Timeout(value = 2, unit = TimeUnit.MINUTES)
    void should_give_up_after_the_unreachable_timeout_when_nothing_listens() throws IOException {
        int port;
        try (ServerSocket socket = new ServerSocket(0)) {
            port = socket.getLocalPort();
        }
        try (SglangClient dead = SglangClient.builder(URI.create("http://127.0.0.1:" + port))
                .healthPollInterval(Duration.ofMillis(20)).unreachableTimeout(Duration.ofMillis(300)).build()) {
            EngineException e = catchThrowableOfType(EngineException.class,
                    () -> dead.awaitHealthy(Duration.ofMinutes(10)));
            assertThat(e.status()).isEqualTo(-1);
            assertThat(e.getMessage()).contains("http://127.0.0.1:" + port + "/health").contains("Connection refused")
                    .contains("nothing accepts connections").contains("profiledrollout.connect.timeout");
        }
    }

    @Test
    void should_keep_polling_a_server_that_answers_past_the_unreachable_timeout() {
        // GIVEN a server that accepts at once but answers 503 for longer (4 x 400 ms) than the unreachable timeout
        for (int i = 0; i < 4; i++) {
            server.enqueue(new MockResponse.Builder().code(503).headersDelay(400, TimeUnit.MILLISECONDS).build());
        }
        server.enqueue(status(200, ""));
        try (SglangClient answering = SglangClient.builder(server.url("/").uri())
                .healthPollInterval(Duration.ofMillis(5)).unreachableTimeout(Duration.ofSeconds(1)).build()) {
            // WHEN / THEN the health timeout, not the unreachable one, bounds the wait once a connection was made
            answering.awaitHealthy(Duration.ofMinutes(1));
        }
        assertThat(server.getRequestCount()).isEqualTo(5);
    }

    @Test
    void should_name_the_health_timeout_key_when_the_server_never_becomes_healthy() {
        for (int i = 0; i < 200; i++) {
            server.enqueue(status(503, ""));
        }
        EngineException e = catchThrowableOfType(EngineException.class,
                () -> client.awaitHealthy(Duration.ofMillis(200)));
        assertThat(e.getMessage()).contains("was not healthy after").contains("profiledrollout.health.timeout");
    }

    @Test
    void should_read_server_info_and_models() {
        server.enqueue(status(200, "{\"tp_size\":2,\"dp_size\":1,\"pp_size\":1,\"ep_size\":1,"
                + "\"served_model_name\":\"meta-llama/Llama-3.1-8B\"}"));
        server.enqueue(status(200, "{\"object\":\"list\",\"data\":[{\"id\":\"a\",\"object\":\"model\"},{\"id\":\"b\"}]}"));
        ServerInfo info = client.serverInfo();
        assertThat(info.tpSize()).isEqualTo(2);
        assertThat(info.servedModelName()).isEqualTo("meta-llama/Llama-3.1-8B");
        assertThat(info.raw().path("tp_size").asInt()).isEqualTo(2);
        assertThat(client.models()).containsExactly("a", "b");
    }
}
