package dev.profiledrollout.load;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.profiledrollout.engine.SglangClient;
import dev.profiledrollout.metrics.ErrorKind;
import dev.profiledrollout.metrics.RequestRecord;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class LoadGeneratorTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    private MockWebServer server;
    private URI base;

    @BeforeEach
    void setUp() throws IOException {
        server = new MockWebServer();
        server.start();
        base = server.url("/").uri();
    }

    @AfterEach
    void tearDown() {
        server.close();
    }

    static String chunk(String text) {
        return "data: {\"id\":\"c1\",\"object\":\"text_completion\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,"
                + "\"text\":\"" + text + "\",\"logprobs\":null,\"finish_reason\":null}],\"usage\":null}\n\n";
    }

    static String usage(int prompt, int completion) {
        return "data: {\"id\":\"c1\",\"object\":\"text_completion\",\"created\":1,\"model\":\"m\",\"choices\":[],"
                + "\"usage\":{\"prompt_tokens\":" + prompt + ",\"completion_tokens\":" + completion
                + ",\"total_tokens\":" + (prompt + completion) + "}}\n\n";
    }

    static final String DONE = "data: [DONE]\n\n";

    private static MockResponse sse(String body) {
        return new MockResponse.Builder().code(200).addHeader("Content-Type", "text/event-stream").body(body).build();
    }

    private RequestRecord runOne(MockResponse response) throws Exception {
        server.enqueue(response);
        try (LoadGenerator load = new LoadGenerator(LoadTarget.of(base), "m", new LoadSpec(1, 1, 8, 4, 0.0, 0, 1L))) {
            List<RequestRecord> records = load.start().await(Duration.ofSeconds(30));
            assertThat(records).hasSize(1);
            return records.get(0);
        }
    }

    @Test
    void should_record_chunks_and_usage_of_a_successful_stream() throws Exception {
        // GIVEN 3 choices chunks (one carries 2 tokens), then the usage chunk and [DONE]
        RequestRecord record = runOne(sse(chunk("a") + chunk("b") + chunk("cd") + usage(8, 4) + DONE));
        // THEN
        assertThat(record.succeeded()).as(record.toString()).isTrue();
        assertThat(record.chunkNanos()).hasSize(3);
        assertThat(record.firstTokenNanos()).isEqualTo(record.chunkNanos()[0]).isGreaterThanOrEqualTo(record.startNanos());
        assertThat(record.endNanos()).isEqualTo(record.chunkNanos()[2]);
        assertThat(record.chunkNanos()).isSorted();
        assertThat(record.promptTokens()).isEqualTo(8);
        assertThat(record.completionTokens()).isEqualTo(4);
        assertThat(record.inputTokensRequested()).isEqualTo(8);
        assertThat(record.outputTokensRequested()).isEqualTo(4);
    }

    @Test
    void should_send_vllm_payload_to_v1_completions() throws Exception {
        runOne(sse(chunk("a") + usage(8, 1) + DONE));
        RecordedRequest recorded = server.takeRequest(5, TimeUnit.SECONDS);
        assertThat(recorded.getMethod()).isEqualTo("POST");
        assertThat(recorded.getUrl().encodedPath()).isEqualTo("/v1/completions");
        JsonNode body = JSON.readTree(recorded.getBody().utf8());
        assertThat(body.get("model").asText()).isEqualTo("m");
        assertThat(body.get("prompt").isArray()).isTrue();
        assertThat(body.get("prompt")).hasSize(8);
        assertThat(body.get("prompt").get(0).isInt()).isTrue();
        assertThat(body.get("max_tokens").asInt()).isEqualTo(4);
        assertThat(body.get("stream").asBoolean()).isTrue();
        assertThat(body.get("stream_options").get("include_usage").asBoolean()).isTrue();
        assertThat(body.get("ignore_eos").asBoolean()).isTrue();
        assertThat(body.get("temperature").asDouble()).isZero();
    }

    @Test
    void should_send_the_targets_headers_such_as_the_api_key() throws Exception {
        // GIVEN a target with the API key, as SglangClient / VllmClient with apiKey(…) give, and one more header
        LoadTarget target = LoadTarget.builder(base).bearerToken("sk-test").header("X-Tenant", "perf").build();
        server.enqueue(sse(chunk("a") + usage(8, 1) + DONE));
        server.enqueue(sse(chunk("a") + usage(8, 1) + DONE));
        // WHEN two requests go out on the load generator's own transport
        try (LoadGenerator load = new LoadGenerator(target, "m", new LoadSpec(1, 2, 8, 4, 0.0, 0, 1L))) {
            assertThat(load.start().await(Duration.ofSeconds(30))).allMatch(RequestRecord::succeeded);
        }
        // THEN both carry the key and the header, next to the transport's own JSON content type
        List<Integer> connections = new java.util.ArrayList<>();
        for (int i = 0; i < 2; i++) {
            RecordedRequest recorded = server.takeRequest(5, TimeUnit.SECONDS);
            assertThat(recorded.getHeaders().get("Authorization")).isEqualTo("Bearer sk-test");
            assertThat(recorded.getHeaders().values("X-Tenant")).containsExactly("perf");
            assertThat(recorded.getHeaders().values("Content-Type")).containsExactly("application/json");
            assertThat(recorded.getHeaders().values("User-Agent")).containsExactly("profiled-rollout");
            connections.add(recorded.getConnectionIndex());
        }
        // AND the closed loop's one keep-alive connection carried both
        assertThat(connections).containsExactly(0, 0);
    }

    @Test
    void should_send_the_engine_clients_api_key_through_its_load_target() throws Exception {
        // GIVEN the load target of an SGLang client built with an API key
        LoadTarget target;
        try (SglangClient sglang = SglangClient.builder(base).apiKey("sk-engine").build()) {
            target = sglang.loadTarget();
        }
        server.enqueue(sse(chunk("a") + usage(8, 1) + DONE));
        // WHEN
        try (LoadGenerator load = new LoadGenerator(target, "m", new LoadSpec(1, 1, 8, 4, 0.0, 0, 1L))) {
            assertThat(load.start().await(Duration.ofSeconds(30))).allMatch(RequestRecord::succeeded);
        }
        // THEN the load carries the key, and the target's description does not
        assertThat(server.takeRequest(5, TimeUnit.SECONDS).getHeaders().get("Authorization"))
                .isEqualTo("Bearer sk-engine");
        assertThat(target.toString()).contains("Authorization").doesNotContain("sk-engine");
    }

    @Test
    void should_refuse_headers_the_transport_writes_itself_and_invalid_ones_without_showing_the_value() {
        LoadTarget.Builder target = LoadTarget.builder(base);

        assertThatThrownBy(() -> target.header("Content-Type", "text/plain"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("Content-Type")
                .hasMessageContaining("writes the Content-Type header itself");
        assertThatThrownBy(() -> target.header("Authorization", "Bearer sk-secret\r\nX-Injected: 1"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'Authorization'")
                .hasMessageNotContaining("sk-secret");
        assertThatThrownBy(() -> LoadTarget.of(URI.create("ftp://127.0.0.1:21/")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not an http(s) base URL");
        assertThat(target.bearerToken(null).bearerToken(" ").build().headers()).isEmpty();
    }

    @Test
    void should_stream_over_https_trusting_the_targets_certificates_and_checking_the_host_name() throws Exception {
        // GIVEN an https server whose certificate only the target's trust manager trusts
        okhttp3.tls.HeldCertificate certificate = new okhttp3.tls.HeldCertificate.Builder()
                .addSubjectAlternativeName("localhost").build();
        okhttp3.tls.HandshakeCertificates serverSide = new okhttp3.tls.HandshakeCertificates.Builder()
                .heldCertificate(certificate).build();
        okhttp3.tls.HandshakeCertificates clientSide = new okhttp3.tls.HandshakeCertificates.Builder()
                .addTrustedCertificate(certificate.certificate()).build();
        try (MockWebServer tls = new MockWebServer()) {
            tls.useHttps(serverSide.sslSocketFactory());
            tls.start();
            tls.enqueue(sse(chunk("a") + chunk("b") + usage(8, 2) + DONE));
            URI httpsBase = tls.url("/").uri(); // https://localhost:port/
            LoadTarget trusting = LoadTarget.builder(httpsBase).trustManager(clientSide.trustManager()).build();
            // WHEN
            try (LoadGenerator load = new LoadGenerator(trusting, "m", new LoadSpec(1, 1, 8, 4, 0.0, 0, 1L))) {
                // THEN
                assertThat(load.start().await(Duration.ofSeconds(30))).singleElement()
                        .satisfies(r -> assertThat(r.succeeded()).as(String.valueOf(r)).isTrue())
                        .satisfies(r -> assertThat(r.chunkCount()).isEqualTo(2));
            }
            // AND a host name the certificate does not name is refused
            URI byAddress = URI.create("https://127.0.0.1:" + tls.getPort() + "/");
            tls.enqueue(sse(chunk("a") + usage(8, 1) + DONE));
            LoadTarget.Builder byAddressTarget = LoadTarget.builder(byAddress).trustManager(clientSide.trustManager());
            try (LoadGenerator load = new LoadGenerator(byAddressTarget.build(), "m",
                    new LoadSpec(1, 1, 8, 4, 0.0, 0, 1L))) {
                assertThat(load.start().await(Duration.ofSeconds(30))).singleElement()
                        .satisfies(r -> assertThat(r.error()).isEqualTo(ErrorKind.CONNECTION))
                        .satisfies(r -> assertThat(r.errorMessage()).contains("SSLHandshakeException"));
            }
            // AND it is accepted when the target turns the host name check off
            try (LoadGenerator load = new LoadGenerator(byAddressTarget.hostnameVerification(false).build(), "m",
                    new LoadSpec(1, 1, 8, 4, 0.0, 0, 1L))) {
                assertThat(load.start().await(Duration.ofSeconds(30))).singleElement()
                        .satisfies(r -> assertThat(r.succeeded()).as(String.valueOf(r)).isTrue());
            }
            // AND the JDK's default trust refuses the certificate
            try (LoadGenerator load = new LoadGenerator(LoadTarget.of(httpsBase), "m",
                    new LoadSpec(1, 1, 8, 4, 0.0, 0, 1L))) {
                assertThat(load.start().await(Duration.ofSeconds(30))).singleElement()
                        .satisfies(r -> assertThat(r.error()).isEqualTo(ErrorKind.CONNECTION))
                        .satisfies(r -> assertThat(r.errorMessage()).contains("SSLHandshakeException"));
            }
        }
    }

    /** Reads one HTTP request with a Content-Length body; false at end of stream. */
    private static boolean readRequest(java.io.InputStream in) throws IOException {
        StringBuilder head = new StringBuilder();
        int b;
        while (!head.toString().endsWith("\r\n\r\n")) {
            if ((b = in.read()) < 0) {
                return false;
            }
            head.append((char) b);
        }
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("(?i)content-length: *(\\d+)").matcher(head);
        in.readNBytes(m.find() ? Integer.parseInt(m.group(1)) : 0);
        return true;
    }

    @Test
    void should_resend_on_a_new_connection_when_the_server_closed_the_reused_one_without_answering() throws Exception {
        // GIVEN a server that answers the first request of a connection, then reads the next and closes, as a server
        // whose keep-alive timeout fires just as the client reuses the connection
        String body = chunk("a") + usage(8, 1) + DONE;
        byte[] response = ("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nContent-Length: "
                + body.getBytes(java.nio.charset.StandardCharsets.UTF_8).length + "\r\n\r\n" + body)
                .getBytes(java.nio.charset.StandardCharsets.UTF_8);
        java.util.concurrent.atomic.AtomicInteger connections = new java.util.concurrent.atomic.AtomicInteger();
        java.util.concurrent.atomic.AtomicInteger requests = new java.util.concurrent.atomic.AtomicInteger();
        java.net.ServerSocket listener = new java.net.ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress());
        Thread serverThread = new Thread(() -> {
            while (!listener.isClosed()) {
                try (java.net.Socket socket = listener.accept()) {
                    connections.incrementAndGet();
                    if (readRequest(socket.getInputStream())) {
                        requests.incrementAndGet();
                        socket.getOutputStream().write(response);
                        socket.getOutputStream().flush();
                        if (readRequest(socket.getInputStream())) {
                            requests.incrementAndGet(); // closed unanswered
                        }
                    }
                } catch (IOException e) {
                    return;
                }
            }
        });
        serverThread.start();
        try {
            URI plain = URI.create("http://127.0.0.1:" + listener.getLocalPort() + "/");
            // WHEN one lane sends three requests in turn
            try (LoadGenerator load = new LoadGenerator(LoadTarget.of(plain), "m",
                    new LoadSpec(1, 3, 8, 4, 0.0, 0, 1L))) {
                // THEN every request succeeds: each unanswered resend went out again on a fresh connection
                assertThat(load.start().await(Duration.ofSeconds(30))).hasSize(3).allMatch(RequestRecord::succeeded);
            }
            assertThat(connections.get()).isEqualTo(3);
            assertThat(requests.get()).isEqualTo(5);
        } finally {
            listener.close(); // ends the accept loop
            serverThread.join(5000);
        }
        serverThread.join(5000); // the closed listener ended its accept loop
    }

    @Test
    void should_classify_an_in_stream_error() throws Exception {
        RequestRecord nested = runOne(sse(chunk("a")
                + "data: {\"error\":{\"message\":\"CUDA out of memory\",\"type\":\"invalid_request_error\",\"code\":400}}\n\n"
                + DONE));
        assertThat(nested.error()).isEqualTo(ErrorKind.IN_STREAM_ERROR);
        assertThat(nested.errorMessage()).contains("CUDA out of memory");
        assertThat(nested.chunkNanos()).hasSize(1);

        RequestRecord flat = runOne(sse("data: {\"object\":\"error\",\"message\":\"boom\",\"type\":\"BadRequest\",\"code\":400}\n\n"));
        assertThat(flat.error()).isEqualTo(ErrorKind.IN_STREAM_ERROR);
        assertThat(flat.errorMessage()).contains("boom");
    }

    @Test
    void should_classify_malformed_json_without_crashing_the_run() throws Exception {
        server.enqueue(sse(chunk("a") + "data: {not json\n\n" + DONE));
        server.enqueue(sse(chunk("a") + chunk("b") + usage(8, 2) + DONE));
        try (LoadGenerator load = new LoadGenerator(LoadTarget.of(base), "m", new LoadSpec(1, 2, 8, 4, 0.0, 0, 1L))) {
            List<RequestRecord> records = load.start().await(Duration.ofSeconds(30));
            assertThat(records).extracting(RequestRecord::index).containsExactly(0, 1);
            assertThat(records.get(0).error()).isEqualTo(ErrorKind.MALFORMED_STREAM);
            assertThat(records.get(0).errorMessage()).contains("{not json");
            assertThat(records.get(1).succeeded()).isTrue();
        }
    }

    @Test
    void should_classify_a_non_200_status_with_a_body_snippet() throws Exception {
        RequestRecord record = runOne(new MockResponse.Builder().code(500)
                .body("{\"object\":\"error\",\"message\":\"scheduler died\"}").build());
        assertThat(record.error()).isEqualTo(ErrorKind.HTTP_STATUS);
        assertThat(record.errorMessage()).contains("500").contains("scheduler died");
        assertThat(record.firstTokenNanos()).isEqualTo(-1);
    }

    @Test
    void should_classify_a_stream_without_choices_chunks() throws Exception {
        RequestRecord record = runOne(sse(usage(8, 0) + DONE));
        assertThat(record.error()).isEqualTo(ErrorKind.NO_CHUNKS);
        assertThat(record.errorMessage()).contains("Never received a valid chunk");
        assertThat(record.promptTokens()).isEqualTo(8);
    }

    @Test
    void should_classify_a_non_sse_body_as_malformed() throws Exception {
        RequestRecord record = runOne(new MockResponse.Builder().code(200).addHeader("Content-Type", "application/json")
                .body("{\"choices\":[]}").build());
        assertThat(record.error()).isEqualTo(ErrorKind.MALFORMED_STREAM);
    }

    @Test
    void should_warm_up_with_distinct_negative_indices() throws Exception {
        for (int i = 0; i < 3; i++) {
            server.enqueue(sse(chunk("a") + usage(8, 1) + DONE));
        }
        try (LoadGenerator load = new LoadGenerator(LoadTarget.of(base), "m", new LoadSpec(2, 1, 8, 4, 0.0, 3, 1L))) {
            List<RequestRecord> warmup = load.warmup();
            assertThat(warmup).extracting(RequestRecord::index).containsExactly(-3, -2, -1);
            assertThat(warmup).allMatch(RequestRecord::succeeded);
        }
    }
}
