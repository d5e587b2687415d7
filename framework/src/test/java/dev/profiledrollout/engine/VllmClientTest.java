package dev.profiledrollout.engine;

import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static dev.profiledrollout.engine.MockResponses.status;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

class VllmClientTest {

    private MockWebServer server;
    private VllmClient client;

    @BeforeEach
    void setUp() throws IOException {
        server = new MockWebServer();
        server.start();
        client = VllmClient.builder(server.url("/").uri()).healthPollInterval(Duration.ofMillis(10)).build();
    }

    @AfterEach
    void tearDown() {
        client.close();
        server.close();
    }


    @Test
    void should_post_start_and_stop_with_an_empty_body_never_sglang_fields() throws Exception {
        // GIVEN
        server.enqueue(status(200, ""));
        server.enqueue(status(200, ""));
        // WHEN
        client.startProfile(ProfileRequest.builder().outputDir("/tmp/prof").numSteps(10).build());
        StopOutcome stop = client.stopProfile();
        // THEN
        RecordedRequest start = server.takeRequest(5, TimeUnit.SECONDS);
        assertThat(start.getMethod()).isEqualTo("POST");
        assertThat(start.getUrl().encodedPath()).isEqualTo("/start_profile");
        assertThat(start.getBody().size()).isZero();
        RecordedRequest stopRequest = server.takeRequest(5, TimeUnit.SECONDS);
        assertThat(stopRequest.getUrl().encodedPath()).isEqualTo("/stop_profile");
        assertThat(stopRequest.getBody().size()).isZero();
        assertThat(stop).isEqualTo(StopOutcome.STOPPED);
    }

    @Test
    void should_fail_a_404_start_with_the_profiler_config_flag_to_add() {
        // GIVEN
        server.enqueue(status(404, "{\"detail\":\"Not Found\"}"));
        // WHEN
        EngineException e = catchThrowableOfType(EngineException.class,
                () -> client.startProfile(ProfileRequest.builder().build()));
        // THEN
        assertThat(e.status()).isEqualTo(404);
        assertThat(e.getMessage())
                .contains("answered 404 to POST /start_profile")
                .contains("started without --profiler-config")
                .contains("--profiler-config '{\"profiler\":\"torch\",\"torch_profiler_dir\":\"/abs/dir\"}'")
                .contains("VLLM_TORCH_PROFILER_DIR=/abs/dir in its environment (vLLM before 0.13");
    }

    @Test
    void should_time_out_a_slow_stop_naming_the_key_to_raise() {
        // GIVEN
        server.enqueue(new MockResponse.Builder().code(200).headersDelay(2, TimeUnit.SECONDS).build());
        try (VllmClient impatient = VllmClient.builder(server.url("/").uri())
                .stopProfileTimeout(Duration.ofMillis(200)).build()) {
            // WHEN
            EngineException e = catchThrowableOfType(EngineException.class, impatient::stopProfile);
            // THEN
            assertThat(e.status()).isEqualTo(-1);
            assertThat(e.getMessage()).contains("profiledrollout.stop.timeout");
        }
    }

    @Test
    void should_default_the_stop_timeout_to_thirty_minutes_and_read_models() {
        // GIVEN
        server.enqueue(status(200, "{\"object\":\"list\",\"data\":[{\"id\":\"Qwen/Qwen3-0.6B\",\"owned_by\":\"vllm\"}]}"));
        // WHEN / THEN
        assertThat(client.models()).containsExactly("Qwen/Qwen3-0.6B");
        assertThat(client.engineName()).isEqualTo("vLLM");
    }
}
