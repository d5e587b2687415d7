package dev.profiledrollout.simulator;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

class RouterSimulatorTest {

    @TempDir
    Path dir;

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

    private HttpResponse<String> get(URI uri) throws Exception {
        return http.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(60)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private HttpResponse<String> post(URI uri, String json) throws Exception {
        return http.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(60))
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(json)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private JsonNode workers(RouterSimulator router) throws Exception {
        HttpResponse<String> r = get(router.baseUri().resolve("/workers"));
        assertThat(r.statusCode()).isEqualTo(200);
        return SimClient.EXACT.readTree(r.body());
    }

    @Test
    void should_list_workers_in_the_sgl_model_gateway_shape_with_health_and_faults() throws Exception {
        SimulatorConfig template = SimulatorConfig.builder().profilerDir(dir).build();
        try (RouterSimulator router = RouterSimulator.builder().workers(4).workerConfig(template)
                .unhealthy(2).failStartProfile(3, 500).start()) {
            JsonNode body = workers(router);
            assertThat(body.get("total").asInt()).isEqualTo(4);
            assertThat(body.get("stats").get("regular_count").asInt()).isEqualTo(4);
            assertThat(body.get("stats").get("prefill_count").asInt()).isZero();
            JsonNode w0 = body.get("workers").get(0);
            assertThat(w0.get("id").asText()).matches("[0-9a-f-]{36}");
            assertThat(w0.get("url").asText()).isEqualTo(router.engines().get(0).baseUri().toString());
            assertThat(w0.get("priority").asInt()).isEqualTo(50);
            assertThat(w0.get("connection_mode").asText()).isEqualTo("HTTP");
            assertThat(w0.get("disable_health_check").asBoolean()).isFalse();
            List<Boolean> healthy = new ArrayList<>();
            body.get("workers").forEach(w -> healthy.add(w.get("is_healthy").asBoolean()));
            assertThat(healthy).containsExactly(true, true, false, true);
            // routers never broadcast profiling
            HttpResponse<String> viaRouter = post(router.baseUri().resolve("/start_profile"), "{}");
            assertThat(viaRouter.statusCode()).isEqualTo(404);
            // the fault is on the worker itself
            URI w3 = router.engines().get(3).baseUri();
            assertThat(post(w3.resolve("/start_profile"), "{}").statusCode()).isEqualTo(500);
            URI w1 = router.engines().get(1).baseUri();
            assertThat(post(w1.resolve("/start_profile"), "{}").statusCode()).isEqualTo(200);
            assertThat(post(w1.resolve("/stop_profile"), "{}").statusCode()).isEqualTo(200);
            assertThat(SimClient.traceFiles(dir.resolve("worker-1"))).hasSize(1);
            assertThat(get(router.baseUri().resolve("/health")).body()).isEqualTo("OK");
        }
    }

    @Test
    void should_list_dp_aware_workers_in_the_vllm_router_shape() throws Exception {
        try (RouterSimulator router = RouterSimulator.builder().workers(2).shape(RouterShape.VLLM_ROUTER)
                .workerConfig(SimulatorConfig.builder().backend("vllm").build()).dpAware(2).start()) {
            JsonNode body = workers(router);
            assertThat(body.get("total").asInt()).isEqualTo(4);
            List<String> urls = new ArrayList<>();
            body.get("workers").forEach(w -> urls.add(w.get("url").asText()));
            String u0 = router.engines().get(0).baseUri().toString();
            String u1 = router.engines().get(1).baseUri().toString();
            assertThat(urls).containsExactly(u0 + "@0", u0 + "@1", u1 + "@0", u1 + "@1");
            JsonNode w = body.get("workers").get(0);
            assertThat(w.has("id")).isFalse();
            assertThat(w.get("model_id").asText()).isEqualTo("unknown");
            assertThat(w.get("connection_mode").asText()).isEqualTo("Http");
            assertThat(router.workerUrls()).hasSize(2);
        }
    }

    @Test
    void should_stream_a_completion_through_the_router_and_skip_unhealthy_workers() throws Exception {
        try (RouterSimulator router = RouterSimulator.builder().workers(2).unhealthy(0).start()) {
            long before = router.engines().get(0).forwardCount();
            HttpRequest req = HttpRequest.newBuilder(router.baseUri().resolve("/v1/completions"))
                    .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(
                            "{\"prompt\":\"hello\",\"max_tokens\":4,\"ignore_eos\":true,\"stream\":true}")).build();
            for (int i = 0; i < 3; i++) {
                HttpResponse<InputStream> r = http.send(req, HttpResponse.BodyHandlers.ofInputStream());
                assertThat(r.statusCode()).isEqualTo(200);
                assertThat(r.headers().firstValue("Content-Type").orElse("")).startsWith("text/event-stream");
                List<String> data = new ArrayList<>();
                try (BufferedReader in = new BufferedReader(new InputStreamReader(r.body(), StandardCharsets.UTF_8))) {
                    String line;
                    while ((line = in.readLine()) != null) {
                        if (line.startsWith("data: ")) {
                            data.add(line);
                        }
                    }
                }
                assertThat(data).hasSize(5).last().isEqualTo("data: [DONE]");
            }
            // every request went to worker 1: worker 0 ran no step
            assertThat(router.engines().get(0).forwardCount()).isEqualTo(before);
            assertThat(SimClient.EXACT.readTree(get(router.baseUri().resolve("/v1/models")).body())
                    .get("data").get(0).get("id").asText()).isNotBlank();
        }
    }

    @Test
    void should_add_and_remove_workers() throws Exception {
        try (EngineSimulator extra = EngineSimulator.start(SimulatorConfig.builder().build());
             RouterSimulator router = RouterSimulator.builder().start()) {
            assertThat(post(router.baseUri().resolve("/v1/completions"), "{\"prompt\":\"x\"}").statusCode())
                    .isEqualTo(503);
            HttpResponse<String> added = post(router.baseUri().resolve("/workers"),
                    "{\"url\":\"" + extra.baseUri() + "\",\"worker_type\":\"decode\"}");
            assertThat(added.statusCode()).isEqualTo(202);
            String location = added.headers().firstValue("Location").orElseThrow();
            assertThat(location).startsWith("/workers/");
            assertThat(workers(router).get("stats").get("decode_count").asInt()).isEqualTo(1);
            assertThat(post(router.baseUri().resolve("/v1/completions"), "{\"prompt\":\"x\",\"max_tokens\":2}")
                    .statusCode()).isEqualTo(200);
            HttpResponse<String> deleted = http.send(HttpRequest.newBuilder(router.baseUri().resolve(location))
                    .DELETE().build(), HttpResponse.BodyHandlers.ofString());
            assertThat(deleted.statusCode()).isEqualTo(202);
            assertThat(workers(router).get("total").asInt()).isZero();
        }
    }

    @Test
    void should_name_dp_replica_traces_with_their_dp_rank() throws Exception {
        SimulatorConfig template = SimulatorConfig.builder().tpSize(2).profilerDir(dir).build();
        try (SimulatedCluster cluster = SimulatedCluster.dataParallel(2, template, RouterShape.SGL_MODEL_GATEWAY)) {
            for (int d = 0; d < 2; d++) {
                URI base = cluster.engines().get(d).baseUri();
                JsonNode info = SimClient.EXACT.readTree(get(base.resolve("/server_info")).body());
                assertThat(info.get("dp_size").asInt()).isEqualTo(2);
                assertThat(post(base.resolve("/start_profile"), "{\"profile_id\":\"p\"}").statusCode()).isEqualTo(200);
                post(base.resolve("/v1/completions"), "{\"prompt\":\"x\",\"max_tokens\":2}");
                assertThat(post(base.resolve("/stop_profile"), "{}").statusCode()).isEqualTo(200);
                assertThat(SimClient.names(SimClient.traceFiles(dir.resolve("worker-" + d))))
                        .containsExactly("p-TP-0-DP-" + d + ".trace.json.gz", "p-TP-1-DP-" + d + ".trace.json.gz");
            }
        }
    }

    @Test
    void should_list_a_prefill_decode_pair_and_route_to_decode() throws Exception {
        try (SimulatedCluster pd = SimulatedCluster.prefillDecode(SimulatorConfig.builder().build(),
                RouterShape.SGL_MODEL_GATEWAY)) {
            JsonNode body = workers(pd.router());
            Set<String> types = new java.util.HashSet<>();
            body.get("workers").forEach(w -> types.add(w.get("worker_type").asText()));
            assertThat(types).containsExactlyInAnyOrder("prefill", "decode");
            assertThat(body.get("stats").get("prefill_count").asInt()).isEqualTo(1);
            long prefillBefore = pd.engines().get(0).forwardCount();
            assertThat(post(pd.router().baseUri().resolve("/generate"),
                    "{\"text\":\"x\",\"sampling_params\":{\"max_new_tokens\":2}}").statusCode()).isEqualTo(200);
            assertThat(pd.engines().get(0).forwardCount()).isEqualTo(prefillBefore);
            assertThat(pd.engines().stream().map(e -> e.config().profilerDir().getFileName().toString())
                    .collect(Collectors.toList())).containsExactly("worker-0", "worker-1");
        }
    }

    @Test
    void should_leave_no_router_or_worker_thread_after_close() throws Exception {
        try (RouterSimulator router = RouterSimulator.builder().workers(2)
                .workerConfig(SimulatorConfig.builder().backend("vllm").profilerConfig(
                        "{\"profiler\":\"torch\",\"torch_profiler_dir\":\"" + dir + "\"}").build()).start()) {
            post(router.baseUri().resolve("/v1/completions"), "{\"prompt\":\"x\",\"max_tokens\":2}");
        }
        assertThat(Thread.getAllStackTraces().keySet().stream().filter(Thread::isAlive).map(Thread::getName)
                .filter(n -> n.startsWith("router-http") || n.startsWith("simulator-"))
                .collect(Collectors.toList())).isEmpty();
    }
}
