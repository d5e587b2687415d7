package dev.profiledrollout.simulator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.InputStream;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The simulator's {@code trtllm} mode ({@code docs/PROTOCOLS.md} §6): {@code trtllm-serve}'s routes without any profile
 * route, and the launch-time span {@code TLLM_PROFILE_START_STOP} with one torch trace per rank at
 * {@code TLLM_TORCH_PROFILE_TRACE} with {@code -rank-<r>} before its extension.
 */
class TrtllmModeTest {

    @TempDir
    Path dir;

    private EngineSimulator start(int tp, String span, String traceName) throws Exception {
        return EngineSimulator.start(SimulatorConfig.builder().backend("trtllm").tpSize(tp)
                .trtllmEnvironment(TrtllmEnvironment.of(Map.of("TLLM_PROFILE_START_STOP", span,
                        "TLLM_TORCH_PROFILE_TRACE", dir.resolve(traceName).toString()))).build());
    }

    @Test
    void serves_trtllm_routes_and_answers_404_to_profile_routes_as_fastapi_does() throws Exception {
        try (EngineSimulator sim = start(1, "0-2", "t.json")) {
            SimClient c = new SimClient(sim);
            HttpResponse<String> startProfile = c.post("/start_profile", "{}");
            assertThat(startProfile.statusCode()).isEqualTo(404);
            assertThat(startProfile.body()).isEqualTo("{\"detail\":\"Not Found\"}");
            assertThat(c.get("/health").statusCode()).isEqualTo(200);
            assertThat(c.get("/health_generate").statusCode()).isEqualTo(200);
            assertThat(SimClient.EXACT.readTree(c.get("/version").body()).path("version").asText()).isNotBlank();
            assertThat(SimClient.EXACT.readTree(c.get("/v1/models").body()).path("data").get(0).path("owned_by")
                    .asText()).isEqualTo("tensorrt_llm");
            assertThat(SimClient.EXACT.readTree(c.get("/metrics").body()).isArray()).isTrue();
        }
    }

    @Test
    void captures_the_span_after_the_warm_up_and_writes_one_gzipped_trace_per_rank_without_step_spans()
            throws Exception {
        // GIVEN a TP 2 server launched with the span 1-3 and a .json.gz trace path
        try (EngineSimulator sim = start(2, "1-3", "t.json.gz")) {
            SimClient c = new SimClient(sim);
            assertThat(sim.profiling()).isFalse();

            // WHEN 4 iterations run (1 prefill + 3 decode); the span starts at the top of iteration 1, stops at 3's
            c.complete(4);

            // THEN each rank wrote its trace, named as splitext would insert the rank, gzip as export_chrome_trace
            // writes a .gz path, with CPU operators and kernels but no step annotation
            for (int rank = 0; rank < 2; rank++) {
                Path file = dir.resolve("t.json-rank-" + rank + ".gz");
                await().atMost(Duration.ofSeconds(20)).until(() -> Files.exists(file));
                JsonNode trace = read(file);
                assertThat(trace.path("distributedInfo").path("rank").asInt()).isEqualTo(rank);
                assertThat(SimClient.events(trace, "kernel")).isNotEmpty();
                assertThat(SimClient.events(trace, "user_annotation")).isEmpty();
                assertThat(SimClient.events(trace, "gpu_user_annotation")).isEmpty();
            }
            assertThat(sim.profiling()).isFalse();
        }
    }

    @Test
    void writes_nothing_when_the_load_ends_before_the_span() throws Exception {
        try (EngineSimulator sim = start(1, "50-60", "t.json")) {
            new SimClient(sim).complete(4);
            assertThat(sim.profiling()).isFalse();
        }
        try (var files = Files.list(dir)) {
            assertThat(files).isEmpty();
        }
    }

    @Test
    void refuses_a_malformed_span_and_other_backends_ignore_the_environment() {
        assertThatThrownBy(() -> TrtllmEnvironment.of(Map.of("TLLM_PROFILE_START_STOP", "10-x")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("TLLM_PROFILE_START_STOP='10-x'");
        // another backend ignores the variables, as SGLang workers do when srt-slurm sets them on every worker
        assertThat(SimulatorConfig.builder().backend("sglang").trtllmEnvironment(new TrtllmEnvironment("1-2", null))
                .build().backend()).isEqualTo("sglang");
        assertThat(new TrtllmEnvironment("10-20,30", null).starts()).containsExactly(10L, 30L);
        assertThat(new TrtllmEnvironment("10-20,30", null).stops()).containsExactly(20L, 30L);
    }

    private static JsonNode read(Path file) throws Exception {
        try (InputStream in = new GZIPInputStream(Files.newInputStream(file))) {
            return SimClient.EXACT.readTree(in);
        }
    }
}
