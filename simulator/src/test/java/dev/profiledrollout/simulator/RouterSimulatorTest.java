package dev.profiledrollout.simulator;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
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
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
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
    void should_list_a_prefill_decode_pair_and_run_the_prefill_on_the_prefill_worker_then_decode() throws Exception {
        try (SimulatedCluster pd = SimulatedCluster.prefillDecode(SimulatorConfig.builder().build(),
                RouterShape.SGL_MODEL_GATEWAY)) {
            JsonNode body = workers(pd.router());
            Set<String> types = new java.util.HashSet<>();
            body.get("workers").forEach(w -> types.add(w.get("worker_type").asText()));
            assertThat(types).containsExactlyInAnyOrder("prefill", "decode");
            assertThat(body.get("stats").get("prefill_count").asInt()).isEqualTo(1);
            long prefillBefore = pd.engines().get(0).forwardCount();
            long decodeBefore = pd.engines().get(1).forwardCount();
            assertThat(post(pd.router().baseUri().resolve("/generate"),
                    "{\"text\":\"x\",\"sampling_params\":{\"max_new_tokens\":2}}").statusCode()).isEqualTo(200);
            // one EXTEND step on the prefill worker (one output token), then the decode worker's own steps
            assertThat(pd.engines().get(0).forwardCount()).isEqualTo(prefillBefore + 1);
            assertThat(pd.engines().get(1).forwardCount()).isGreaterThanOrEqualTo(decodeBefore + 2);
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

    @Test
    void should_send_a_request_again_when_the_worker_connection_fails_before_any_response_byte() throws Exception {
        // GIVEN a worker whose first connection is reset unanswered (a pooled connection the worker had closed)
        try (ServerSocket worker = new ServerSocket(0, 8, InetAddress.getLoopbackAddress());
             RouterSimulator router = RouterSimulator.builder().workers(0)
                     .workerUrl(URI.create("http://127.0.0.1:" + worker.getLocalPort()), "regular").start()) {
            CompletableFuture<Void> served = CompletableFuture.runAsync(() -> {
                try {
                    try (Socket first = worker.accept()) {
                        first.setSoLinger(true, 0);
                    }
                    try (Socket second = worker.accept()) {
                        InputStream in = second.getInputStream();
                        byte[] head = new byte[4096];
                        int read = 0;
                        while (!new String(head, 0, read, StandardCharsets.ISO_8859_1).contains("\r\n\r\n")) {
                            read += in.read(head, read, head.length - read);
                        }
                        OutputStream out = second.getOutputStream();
                        out.write(("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 11\r\n"
                                + "Connection: close\r\n\r\n{\"ok\":true}").getBytes(StandardCharsets.US_ASCII));
                        out.flush();
                    }
                } catch (java.io.IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            });

            // WHEN a completion goes through the router
            HttpResponse<String> r = post(router.baseUri().resolve("/v1/completions"), "{}");

            // THEN the router sent it again on a new connection instead of answering 502
            assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
            assertThat(r.body()).isEqualTo("{\"ok\":true}");
            served.get(30, TimeUnit.SECONDS);
        }
    }

    @Test
    void should_answer_connection_close_when_the_request_asked_for_it() throws Exception {
        try (RouterSimulator router = RouterSimulator.builder().workers(1)
                .workerConfig(SimulatorConfig.builder().profilerDir(dir).build()).start()) {
            for (URI base : List.of(router.baseUri(), router.workerUrls().get(0))) {
                assertThat(rawGetHeaders(base, "close")).as(base.toString()).containsIgnoringCase("\r\nConnection: close");
                assertThat(rawGetHeaders(base, "keep-alive")).as(base.toString()).doesNotContainIgnoringCase("Connection: close");
            }
        }
    }

    /** The response head of {@code GET /health} sent with the given {@code Connection} header, over a plain socket. */
    private static String rawGetHeaders(URI base, String connection) throws Exception {
        try (Socket socket = new Socket(base.getHost(), base.getPort())) {
            socket.getOutputStream().write(("GET /health HTTP/1.1\r\nHost: " + base.getHost() + "\r\nConnection: "
                    + connection + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            BufferedReader in = new BufferedReader(new InputStreamReader(socket.getInputStream(),
                    StandardCharsets.ISO_8859_1));
            StringBuilder head = new StringBuilder();
            for (String line = in.readLine(); line != null && !line.isEmpty(); line = in.readLine()) {
                head.append(line).append("\r\n");
            }
            return head.toString();
        }
    }
}
