package dev.profiledrollout.simulator;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class VllmModeTest {

    @TempDir
    Path dir;

    private EngineSimulator start(int tp, String profilerConfig) throws Exception {
        return EngineSimulator.start(SimulatorConfig.builder().backend("vllm").tpSize(tp)
                .profilerConfig(profilerConfig).build());
    }

    private String torch(String extra) {
        return "{\"profiler\":\"torch\",\"torch_profiler_dir\":\"" + dir + "\"" + extra + "}";
    }

    private List<String> files() throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.map(p -> p.getFileName().toString()).filter(n -> !n.startsWith(".")).sorted()
                    .collect(Collectors.toList());
        }
    }

    @Test
    void should_answer_404_not_found_to_profile_routes_without_a_profiler_config() throws Exception {
        try (EngineSimulator sim = start(1, null)) {
            SimClient c = new SimClient(sim);
            HttpResponse<String> start = c.post("/start_profile", "");
            assertThat(start.statusCode()).isEqualTo(404);
            assertThat(start.body()).isEqualTo("{\"detail\":\"Not Found\"}");
            assertThat(c.post("/stop_profile", "").statusCode()).isEqualTo(404);
            assertThat(c.get("/health").statusCode()).isEqualTo(200);
            assertThat(c.get("/health").body()).isEmpty();
            assertThat(SimClient.EXACT.readTree(c.get("/version").body()).get("version").asText()).isNotBlank();
        }
    }

    @Test
    void should_answer_405_to_get_and_ignore_repeated_start_and_stop() throws Exception {
        try (EngineSimulator sim = start(1, torch(""))) {
            SimClient c = new SimClient(sim);
            HttpResponse<String> get = c.get("/start_profile");
            assertThat(get.statusCode()).isEqualTo(405);
            assertThat(get.body()).isEqualTo("{\"detail\":\"Method Not Allowed\"}");
            // stop while idle: ignored, 200, nothing written
            assertThat(c.post("/stop_profile", "").statusCode()).isEqualTo(200);
            assertThat(files()).isEmpty();
            HttpResponse<String> s1 = c.post("/start_profile", "{\"output_dir\":\"/ignored\"}");
            assertThat(s1.statusCode()).isEqualTo(200);
            assertThat(s1.body()).isEmpty();
            assertThat(sim.profiling()).isTrue();
            assertThat(c.post("/start_profile", "").statusCode()).isEqualTo(200);
            c.complete(3);
            HttpResponse<String> stop = c.post("/stop_profile", "");
            assertThat(stop.statusCode()).isEqualTo(200);
            assertThat(stop.body()).isEmpty();
            assertThat(sim.profiling()).isFalse();
            // one window: one worker file, one frontend file, one table
            assertThat(files()).hasSize(3);
            assertThat(c.post("/stop_profile", "").statusCode()).isEqualTo(200);
            assertThat(files()).hasSize(3);
        }
    }

    @Test
    void should_have_every_worker_frontend_and_table_file_when_stop_returns() throws Exception {
        try (EngineSimulator sim = start(2, torch(""))) {
            SimClient c = new SimClient(sim);
            assertThat(c.post("/start_profile", "").statusCode()).isEqualTo(200);
            c.complete(4);
            assertThat(c.post("/stop_profile", "").statusCode()).isEqualTo(200);
            // no polling: the files exist when 200 arrives
            List<String> names = files();
            assertThat(names).hasSize(5);
            assertThat(names).filteredOn(n -> n.matches("dp0_pp0_tp0_dcp0_ep0_rank0\\.\\d{19}\\.pt\\.trace\\.json\\.gz"))
                    .hasSize(1);
            assertThat(names).filteredOn(n -> n.matches("dp0_pp0_tp1_dcp0_ep0_rank1\\.\\d{19}\\.pt\\.trace\\.json\\.gz"))
                    .hasSize(1);
            assertThat(names).filteredOn(n -> n.matches("[A-Za-z0-9.-]+_\\d+\\.async_llm\\.\\d{19}\\.pt\\.trace\\.json\\.gz"))
                    .hasSize(1);
            assertThat(names).contains("profiler_out_0.txt", "profiler_out_1.txt");
            Path rank1 = dir.resolve(names.stream().filter(n -> n.contains("rank1.")).findFirst().orElseThrow());
            JsonNode trace = SimClient.readTrace(rank1);
            assertThat(trace.get("distributedInfo").get("rank").asInt()).isEqualTo(1);
            List<String> spans = SimClient.events(trace, "user_annotation").stream()
                    .map(e -> e.get("name").asText()).collect(Collectors.toList());
            // 1 prefill of 8 prompt tokens, then 3 decode steps of 1 request
            assertThat(spans).containsExactly("execute_context_1(8)_generation_0(0)",
                    "execute_context_0(0)_generation_1(1)", "execute_context_0(0)_generation_1(1)",
                    "execute_context_0(0)_generation_1(1)");
            assertThat(SimClient.events(trace, "kernel")).isNotEmpty();
            Path frontend = dir.resolve(names.stream().filter(n -> n.contains(".async_llm.")).findFirst().orElseThrow());
            assertThat(SimClient.events(SimClient.readTrace(frontend), "kernel")).isEmpty();
            String table = Files.readString(dir.resolve("profiler_out_0.txt"));
            assertThat(table).contains("Self CUDA").contains("# of Calls").containsPattern("Self CUDA time total: [0-9.]+(us|ms|s)");
        }
    }

    @Test
    void should_write_the_files_once_more_steps_than_max_iterations_would_be_profiled() throws Exception {
        try (EngineSimulator sim = start(1, torch(",\"max_iterations\":3,\"ignore_frontend\":true,"
                + "\"torch_profiler_dump_cuda_time_total\":false,\"torch_profiler_use_gzip\":false"))) {
            SimClient c = new SimClient(sim);
            long before = sim.forwardCount();
            c.post("/start_profile", "");
            c.complete(3);
            // exactly 3 steps ran: max_iterations is reached, not exceeded, so the capture is open and unwritten
            assertThat(sim.forwardCount()).isEqualTo(before + 3);
            assertThat(sim.profiling()).isTrue();
            assertThat(files()).isEmpty();
            c.complete(1);
            // the 4th step (the idle server ran none in between) wrote the file before it ran
            assertThat(sim.forwardCount()).isEqualTo(before + 4);
            assertThat(sim.profiling()).isFalse();
            List<String> names = files();
            assertThat(names).hasSize(1);
            assertThat(names.get(0)).matches("dp0_pp0_tp0_dcp0_ep0_rank0\\.\\d{19}\\.pt\\.trace\\.json");
            JsonNode trace = SimClient.EXACT.readTree(dir.resolve(names.get(0)).toFile());
            assertThat(SimClient.events(trace, "user_annotation")).hasSize(3);
            // the later stop finds the workers already stopped: ignored
            assertThat(c.post("/stop_profile", "").statusCode()).isEqualTo(200);
            assertThat(files()).hasSize(1);
        }
    }

    @Test
    void should_skip_delay_iterations_before_capturing() throws Exception {
        try (EngineSimulator sim = start(1, torch(",\"delay_iterations\":2,\"ignore_frontend\":true"))) {
            SimClient c = new SimClient(sim);
            c.post("/start_profile", "");
            c.complete(5);
            c.post("/stop_profile", "");
            Path trace = dir.resolve(files().stream().filter(n -> n.endsWith(".gz")).findFirst().orElseThrow());
            assertThat(SimClient.events(SimClient.readTrace(trace), "user_annotation")).hasSize(3);
        }
    }

    @Test
    void should_write_no_files_in_cuda_mode() throws Exception {
        try (EngineSimulator sim = start(1, "{\"profiler\":\"cuda\"}")) {
            SimClient c = new SimClient(sim);
            assertThat(c.post("/start_profile", "").statusCode()).isEqualTo(200);
            c.complete(2);
            assertThat(c.post("/stop_profile", "").statusCode()).isEqualTo(200);
            assertThat(files()).isEmpty();
        }
    }

    @Test
    void should_accept_a_proton_profiler_and_write_no_kineto_files() throws Exception {
        try (EngineSimulator sim = start(1, "{\"profiler\":\"proton\",\"proton_profiler_dir\":\""
                + dir.resolve("proton") + "\",\"proton_data\":\"trace\"}")) {
            SimClient c = new SimClient(sim);
            assertThat(c.post("/start_profile", "").statusCode()).isEqualTo(200);
            c.complete(2);
            assertThat(c.post("/stop_profile", "").statusCode()).isEqualTo(200);
            assertThat(files()).isEmpty();
        }
        assertThatThrownBy(() -> VllmProfilerConfig.parse("{\"profiler\":\"proton\",\"torch_profiler_dir\":\"/x\"}"))
                .hasMessageContaining("torch_profiler_dir is only applicable");
    }

    @ParameterizedTest
    @EnumSource(VllmNamingEra.class)
    void should_name_worker_files_as_the_era_did(VllmNamingEra era) throws Exception {
        SimulatorConfig config = SimulatorConfig.builder().backend("vllm").tpSize(2).vllmNamingEra(era)
                .profilerConfig(torch(",\"ignore_frontend\":true,\"torch_profiler_dump_cuda_time_total\":false"))
                .build();
        try (EngineSimulator sim = EngineSimulator.start(config)) {
            SimClient c = new SimClient(sim);
            c.post("/start_profile", "");
            c.complete(2);
            c.post("/stop_profile", "");
        }
        String pattern = switch (era) {
            case NEWEST -> "dp0_pp0_tp[01]_dcp0_ep0_rank[01]";
            case INSTANCE_RANK -> "[0-9a-f]{5}-rank-[01]";
            case HOST_PID -> "[A-Za-z0-9.-]+_\\d+";
        };
        assertThat(files()).hasSize(2).allMatch(n -> n.matches(pattern + "\\.\\d{19}\\.pt\\.trace\\.json\\.gz"), pattern);
    }

    @Test
    void should_reject_invalid_profiler_configs_naming_the_field() {
        assertThatThrownBy(() -> VllmProfilerConfig.parse("{\"profiler\":\"torch\"}"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("torch_profiler_dir");
        assertThatThrownBy(() -> VllmProfilerConfig.parse("{\"profiler\":\"cuda\",\"torch_profiler_dir\":\"/x\"}"))
                .hasMessageContaining("torch_profiler_dir");
        assertThatThrownBy(() -> VllmProfilerConfig.parse("{\"profiler\":\"torch\",\"torch_profiler_dir\":\"/x\","
                + "\"max_iterations\":-1}")).hasMessageContaining("max_iterations");
        assertThatThrownBy(() -> VllmProfilerConfig.parse("{\"profiler\":\"gpu\"}")).hasMessageContaining("profiler");
        assertThatThrownBy(() -> SimulatorConfig.builder().profilerConfig(torch("")).build())
                .hasMessageContaining("backend");
    }

    @Test
    void should_stream_completions_as_vllm_does() throws Exception {
        try (EngineSimulator sim = start(1, null)) {
            SimClient c = new SimClient(sim);
            HttpResponse<String> bad = c.post("/v1/completions",
                    "{\"prompt\":\"hi\",\"max_tokens\":2,\"stream_options\":{}}");
            assertThat(bad.statusCode()).isEqualTo(400);
            assertThat(SimClient.EXACT.readTree(bad.body()).path("error").path("code").asInt()).isEqualTo(400);
            // stream_options {} turns usage on
            String sse = c.post("/v1/completions", "{\"prompt\":\"hi\",\"max_tokens\":3,\"ignore_eos\":true,"
                    + "\"stream\":true,\"stream_options\":{}}").body();
            List<String> events = List.of(sse.split("\n\n"));
            assertThat(events).allMatch(e -> e.startsWith("data: "));
            assertThat(events).last().isEqualTo("data: [DONE]");
            JsonNode first = SimClient.EXACT.readTree(events.get(0).substring(6));
            assertThat(first.get("choices").get(0).has("stop_reason")).isTrue();
            assertThat(first.get("choices").get(0).has("matched_stop")).isFalse();
            JsonNode usage = SimClient.EXACT.readTree(events.get(events.size() - 2).substring(6));
            assertThat(usage.get("choices")).isEmpty();
            assertThat(usage.get("usage").get("completion_tokens").asInt()).isEqualTo(3);
            // without stream_options: no usage chunk
            String plain = c.post("/v1/completions", "{\"prompt\":\"hi\",\"max_tokens\":2,\"ignore_eos\":true,"
                    + "\"stream\":true}").body();
            assertThat(plain.split("\n\n")).hasSize(3);
            JsonNode models = SimClient.EXACT.readTree(c.get("/v1/models").body()).get("data").get(0);
            assertThat(models.get("owned_by").asText()).isEqualTo("vllm");
            assertThat(models.get("permission").isArray()).isTrue();
            JsonNode tok = SimClient.EXACT.readTree(c.post("/tokenize", "{\"prompt\":\"abcdefgh\"}").body());
            assertThat(tok.get("count").asInt()).isEqualTo(2);
            assertThat(SimClient.EXACT.readTree(c.post("/detokenize", "{\"tokens\":[1,2]}").body())
                    .get("prompt").asText()).isNotBlank();
        }
    }
}
