package dev.profiledrollout.engine;

import mockwebserver3.MockWebServer;
import okhttp3.OkHttpClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.URI;

import static dev.profiledrollout.engine.MockResponses.status;
import static org.assertj.core.api.Assertions.assertThat;

class RouterClientTest {

    private MockWebServer server;
    private RouterClient router;

    @BeforeEach
    void setUp() throws IOException {
        server = new MockWebServer();
        server.start();
        router = new RouterClient(server.url("/").uri(), new OkHttpClient());
    }

    @AfterEach
    void tearDown() {
        server.close();
    }

    @Test
    void should_read_the_gateway_shape_strip_dp_suffixes_and_merge() {
        // GIVEN sgl-model-gateway, DP-aware URLs
        server.enqueue(status(200, "{\"workers\":["
                + "{\"id\":\"a\",\"url\":\"http://10.0.0.5:30000@0\",\"model_id\":\"m\",\"worker_type\":\"regular\","
                + "\"is_healthy\":true,\"load\":2,\"connection_mode\":\"HTTP\"},"
                + "{\"id\":\"b\",\"url\":\"http://10.0.0.5:30000@1\",\"model_id\":\"m\",\"worker_type\":\"regular\","
                + "\"is_healthy\":true,\"load\":3,\"connection_mode\":\"HTTP\"},"
                + "{\"id\":\"c\",\"url\":\"http://10.0.0.6:30000\",\"model_id\":\"m\",\"worker_type\":\"decode\","
                + "\"is_healthy\":false,\"load\":0,\"connection_mode\":\"HTTP\"}],"
                + "\"total\":3,\"stats\":{\"prefill_count\":0,\"decode_count\":1,\"regular_count\":2}}"));
        // WHEN
        var workers = router.workers();
        // THEN
        assertThat(workers).containsExactly(
                new Worker(URI.create("http://10.0.0.5:30000"), "regular", true, 5, "m"),
                new Worker(URI.create("http://10.0.0.6:30000"), "decode", false, 0, "m"));
    }

    @Test
    void should_read_the_vllm_router_shape() {
        // GIVEN vllm-router: no id, connection_mode in Rust Debug form, bootstrap_port on prefill
        server.enqueue(status(200, "{\"workers\":["
                + "{\"url\":\"http://h1:8000\",\"model_id\":\"unknown\",\"worker_type\":\"prefill\",\"is_healthy\":true,"
                + "\"load\":0,\"connection_mode\":\"Http\",\"priority\":50,\"cost\":1.0,\"bootstrap_port\":8998},"
                + "{\"url\":\"http://h2:8000\",\"model_id\":\"unknown\",\"worker_type\":\"decode\",\"is_healthy\":true,"
                + "\"load\":1,\"connection_mode\":\"Grpc { port: 9000 }\",\"priority\":50,\"cost\":1.0}],"
                + "\"total\":2,\"stats\":{}}"));
        // WHEN / THEN
        assertThat(router.workers()).extracting(Worker::url, Worker::workerType).containsExactly(
                org.assertj.core.groups.Tuple.tuple(URI.create("http://h1:8000"), "prefill"),
                org.assertj.core.groups.Tuple.tuple(URI.create("http://h2:8000"), "decode"));
    }

    @Test
    void should_fall_back_to_legacy_list_workers_on_404() throws Exception {
        // GIVEN
        server.enqueue(status(404, ""));
        server.enqueue(status(200, "{\"urls\":[\"http://h1:30000\",\"http://h1:30000@1\",\"http://h2:30000/\"]}"));
        // WHEN
        var workers = router.workers();
        // THEN
        assertThat(workers).extracting(Worker::url)
                .containsExactly(URI.create("http://h1:30000"), URI.create("http://h2:30000"));
        assertThat(server.takeRequest().getUrl().encodedPath()).isEqualTo("/workers");
        assertThat(server.takeRequest().getUrl().encodedPath()).isEqualTo("/list_workers");
    }
}
