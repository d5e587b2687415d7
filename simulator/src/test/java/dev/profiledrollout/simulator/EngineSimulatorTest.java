package dev.profiledrollout.simulator;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class EngineSimulatorTest {

    @TempDir
    Path dir;

    private static List<String> simulatorThreads() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.isAlive() && t.getName().startsWith("simulator-"))
                .map(Thread::getName).collect(Collectors.toList());
    }

    @Test
    void should_leave_no_simulator_threads_after_close() throws Exception {
        // GIVEN
        EngineSimulator sim = EngineSimulator.start(SimulatorConfig.builder().profilerDir(dir).build());
        SimClient client = new SimClient(sim);
        assertThat(client.get("/health").statusCode()).isEqualTo(200);
        assertThat(simulatorThreads()).isNotEmpty();
        // WHEN
        sim.close();
        sim.close();
        // THEN
        assertThat(simulatorThreads()).isEmpty();
    }

    @Test
    void should_count_the_warmup_and_health_checks_as_steps() throws Exception {
        try (EngineSimulator sim = EngineSimulator.start(SimulatorConfig.builder().profilerDir(dir).build())) {
            // the warm-up is one prefill plus seven decode steps
            assertThat(sim.forwardCount()).isEqualTo(8);
            HttpResponse<String> health = new SimClient(sim).get("/health");
            assertThat(health.statusCode()).isEqualTo(200);
            assertThat(health.body()).isEmpty();
            assertThat(sim.forwardCount()).isEqualTo(9);
            assertThat(new SimClient(sim).get("/health_generate").statusCode()).isEqualTo(200);
            assertThat(sim.forwardCount()).isEqualTo(10);
        }
    }

    @Test
    void should_count_the_requests_received_per_path_whatever_their_answer() throws Exception {
        try (EngineSimulator vllm = EngineSimulator.start(SimulatorConfig.builder().backend("vllm").build());
             EngineSimulator sglang = EngineSimulator.start(SimulatorConfig.builder().profilerDir(dir)
                     .apiKey("sk-count").build())) {
            assertThat(vllm.requestCount("/stop_profile")).as("the warm-up is no HTTP request").isZero();
            SimClient v = new SimClient(vllm);
            assertThat(v.post("/stop_profile", "").statusCode()).as("no --profiler-config").isEqualTo(404);
            assertThat(v.get("/stop_profile").statusCode()).isEqualTo(404);
            assertThat(vllm.requestCount("/stop_profile")).isEqualTo(2);
            assertThat(vllm.requestCount("/start_profile")).isZero();

            assertThat(new SimClient(sglang).post("/start_profile", "{}").statusCode()).as("no API key")
                    .isEqualTo(401);
            assertThat(sglang.requestCount("/start_profile")).isEqualTo(1);
        }
    }

    @Test
    void should_report_flat_server_info_with_simulator_marker() throws Exception {
        SimulatorConfig config = SimulatorConfig.builder().tpSize(2).maxRunningRequests(17).profilerDir(dir)
                .servedModelName("my-model").build();
        try (EngineSimulator sim = EngineSimulator.start(config)) {
            SimClient client = new SimClient(sim);
            for (String path : List.of("/server_info", "/get_server_info")) {
                JsonNode info = SimClient.EXACT.readTree(client.get(path).body());
                assertThat(info.get("tp_size").asInt()).isEqualTo(2);
                assertThat(info.get("dp_size").asInt()).isEqualTo(1);
                assertThat(info.get("pp_size").asInt()).isEqualTo(1);
                assertThat(info.get("ep_size").asInt()).isEqualTo(1);
                assertThat(info.get("enable_dp_attention").asBoolean()).isFalse();
                assertThat(info.get("base_gpu_id").asInt()).isZero();
                assertThat(info.get("served_model_name").asText()).isEqualTo("my-model");
                assertThat(info.get("max_running_requests").asInt()).isEqualTo(17);
                assertThat(info.get("engine").asText()).isEqualTo("simulator");
                assertThat(info.get("version").asText()).isNotBlank();
                assertThat(info.get("internal_states").isArray()).isTrue();
                assertThat(info.at("/internal_states/0/waiting_queue_size").isInt()).isTrue();
                assertThat(info.at("/internal_states/0/running_batch_size").isInt()).isTrue();
                assertThat(info.at("/internal_states/0/forward_ct").isIntegralNumber()).isTrue();
            }
            JsonNode models = SimClient.EXACT.readTree(client.get("/v1/models").body());
            assertThat(models.get("object").asText()).isEqualTo("list");
            assertThat(models.at("/data/0/id").asText()).isEqualTo("my-model");
            assertThat(models.at("/data/0/owned_by").asText()).isEqualTo("sglang");
            assertThat(models.at("/data/0/max_model_len").asInt()).isPositive();
            assertThat(client.get("/v1/models/other").statusCode()).isEqualTo(404);
            assertThat(client.get("/no_such_route").statusCode()).isEqualTo(404);
            assertThat(client.get("/flush_cache").statusCode()).isEqualTo(200);
            assertThat(sim.baseUri().toString()).isEqualTo("http://127.0.0.1:" + sim.port());
        }
    }

    @Test
    void should_reject_unknown_backend_naming_the_allowed_values() {
        assertThatThrownBy(() -> SimulatorConfig.builder().backend("tgi"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("sglang").hasMessageContaining("vllm").hasMessageContaining("trtllm");
        assertThatThrownBy(() -> SimulatorConfig.builder().tpSize(2).slowRank(2, 1.5).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("tpSize");
    }
}
