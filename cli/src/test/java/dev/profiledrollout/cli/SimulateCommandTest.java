package dev.profiledrollout.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.profiledrollout.simulator.EngineSimulator;
import dev.profiledrollout.simulator.RouterSimulator;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class SimulateCommandTest {

    @TempDir
    Path dir;

    private final HttpClient http = HttpClient.newHttpClient();

    private static SimulateCommand parse(String... args) {
        SimulateCommand cmd = new SimulateCommand();
        new CommandLine(cmd).parseArgs(args);
        return cmd;
    }

    private static URI firstUrl(String printed) {
        Matcher m = Pattern.compile("listening on (http://\\S+)").matcher(printed);
        assertThat(m.find()).as(printed).isTrue();
        return URI.create(m.group(1));
    }

    @Test
    void should_start_a_router_with_three_workers_that_answers_workers() throws Exception {
        SimulateCommand cmd = parse("--router", "--workers", "3", "--port", "0", "--tp", "2",
                "--profiler-dir", dir.toString());
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        try (AutoCloseable servers = cmd.start(new PrintStream(buf, true, StandardCharsets.UTF_8))) {
            String printed = buf.toString(StandardCharsets.UTF_8);
            assertThat(printed).contains("worker 0").contains("worker 2").doesNotContain("worker 3");
            assertThat(servers).isInstanceOfSatisfying(RouterSimulator.class, r -> {
                assertThat(firstUrl(printed)).isEqualTo(r.baseUri());
                assertThat(r.engines()).hasSize(3).allSatisfy(e -> assertThat(e.config().tpSize()).isEqualTo(2));
            });
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(firstUrl(printed).resolve("/workers")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(r.statusCode()).isEqualTo(200);
            JsonNode body = new ObjectMapper().readTree(r.body());
            assertThat(body.get("total").asInt()).isEqualTo(3);
            assertThat(body.get("workers").get(0).get("connection_mode").asText()).isEqualTo("HTTP");
        }
    }

    @Test
    void should_start_a_vllm_server_with_a_profiler_config() throws Exception {
        SimulateCommand cmd = parse("--backend", "vllm", "--port", "0", "--profiler-config",
                "{\"profiler\":\"torch\",\"torch_profiler_dir\":\"" + dir + "\"}");
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        try (AutoCloseable server = cmd.start(new PrintStream(buf, true, StandardCharsets.UTF_8))) {
            URI base = firstUrl(buf.toString(StandardCharsets.UTF_8));
            assertThat(server).isInstanceOfSatisfying(EngineSimulator.class,
                    e -> assertThat(e.config().backend()).isEqualTo("vllm"));
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(base.resolve("/start_profile"))
                    .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(r.statusCode()).isEqualTo(200);
            assertThat(buf.toString(StandardCharsets.UTF_8)).contains(dir.toString());
        }
    }

    @Test
    void should_reject_a_bad_router_shape_and_profiler_config() {
        assertThatThrownBy(() -> parse("--router", "--router-shape", "nginx", "--port", "0").start(System.out))
                .hasMessageContaining("--router-shape");
        assertThatThrownBy(() -> parse("--backend", "vllm", "--profiler-config", "{\"profiler\":\"torch\"}")
                .start(System.out)).hasMessageContaining("torch_profiler_dir");
    }

    @Test
    void should_demand_the_api_key_on_the_engines_routes_and_pass_it_through_the_router() throws Exception {
        SimulateCommand cmd = parse("--router", "--workers", "1", "--port", "0", "--api-key", "sk-cli",
                "--profiler-dir", dir.toString());
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        try (AutoCloseable servers = cmd.start(new PrintStream(buf, true, StandardCharsets.UTF_8))) {
            String printed = buf.toString(StandardCharsets.UTF_8);
            assertThat(printed).contains("API key required").doesNotContain("sk-cli");
            assertThat(servers).isInstanceOfSatisfying(RouterSimulator.class, r -> assertThat(r.engines()).hasSize(1));
            URI worker = URI.create(printed.replaceAll("(?s).*worker 0 \\([^)]*\\): (http://\\S+).*", "$1"));
            URI router = firstUrl(printed);

            assertThat(status(worker, "/health", null)).isEqualTo(200);
            assertThat(status(worker, "/v1/models", null)).isEqualTo(401);
            assertThat(status(worker, "/v1/models", "sk-cli")).isEqualTo(200);
            assertThat(status(router, "/v1/models", null)).isEqualTo(401);
            assertThat(status(router, "/v1/models", "sk-cli")).isEqualTo(200);
        }
    }

    @Test
    void should_run_every_dp_rank_behind_one_sglang_server_with_dp_size() throws Exception {
        SimulateCommand cmd = parse("--port", "0", "--dp-size", "2", "--profiler-dir", dir.toString());
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        try (AutoCloseable server = cmd.start(new PrintStream(buf, true, StandardCharsets.UTF_8))) {
            URI base = firstUrl(buf.toString(StandardCharsets.UTF_8));
            assertThat(server).isInstanceOfSatisfying(EngineSimulator.class,
                    e -> assertThat(e.config().dpController()).isTrue());
            JsonNode info = new ObjectMapper().readTree(http.send(HttpRequest.newBuilder(base.resolve("/server_info"))
                    .build(), HttpResponse.BodyHandlers.ofString()).body());
            assertThat(info.get("dp_size").asInt()).isEqualTo(2);
            assertThat(info.has("dp_rank")).isFalse();
        }
        assertThatThrownBy(() -> parse("--backend", "vllm", "--dp-size", "2", "--port", "0").start(System.out))
                .hasMessageContaining("--dp-size").hasMessageContaining("sglang");
    }

    @Test
    void should_inject_slowdowns_and_gpu_noise_and_say_so_in_the_banner_and_server_info() throws Exception {
        SimulateCommand cmd = parse("--port", "0", "--slow-kernel", "BatchDecode", "--slow-kernel-factor", "3",
                "--slow-host", "2", "--kernel-jitter", "--clock-spread", "0.05", "--noise-seed", "42");
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        try (AutoCloseable server = cmd.start(new PrintStream(buf, true, StandardCharsets.UTF_8))) {
            String printed = buf.toString(StandardCharsets.UTF_8);
            assertThat(printed).contains("FAULT: kernels /BatchDecode/ x3.0", "FAULT: host time x2.0",
                    "jitter 0.03", "clock spread 0.05", "noise seed 42");
            assertThat(server).isInstanceOfSatisfying(EngineSimulator.class, e -> {
                assertThat(e.config().kernelSlowdowns()).containsEntry("BatchDecode", 3.0);
                assertThat(e.config().hostSlowdown()).isEqualTo(2.0);
                assertThat(e.config().kernelJitter()).isEqualTo(0.03);
                assertThat(e.config().noiseSeed()).isEqualTo(42);
            });
            JsonNode info = new ObjectMapper().readTree(http.send(HttpRequest.newBuilder(
                    firstUrl(printed).resolve("/server_info")).build(), HttpResponse.BodyHandlers.ofString()).body());
            assertThat(info.path("simulated_faults").path("injected").asBoolean()).isTrue();
            assertThat(info.path("simulated_faults").path("slow_kernels").path("BatchDecode").asDouble()).isEqualTo(3.0);
            assertThat(info.path("simulated_gpu_noise").path("noise_seed").asLong()).isEqualTo(42);
        }
        assertThatThrownBy(() -> parse("--port", "0", "--slow-host", "0.5").start(System.out))
                .hasMessageContaining("--slow-host");
    }

    private int status(URI base, String path, String key) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(base.resolve(path));
        if (key != null) {
            request.header("Authorization", "Bearer " + key);
        }
        return http.send(request.build(), HttpResponse.BodyHandlers.discarding()).statusCode();
    }
}
