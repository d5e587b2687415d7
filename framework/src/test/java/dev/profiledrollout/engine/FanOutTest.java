package dev.profiledrollout.engine;

import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class FanOutTest {

    private final List<MockWebServer> servers = new ArrayList<>();

    @AfterEach
    void tearDown() {
        servers.forEach(MockWebServer::close);
    }

    private MockWebServer server(int... codes) throws IOException {
        MockWebServer s = new MockWebServer();
        for (int code : codes) {
            s.enqueue(new MockResponse.Builder().code(code).body(code == 200 ? "ok" : "").build());
        }
        s.start();
        servers.add(s);
        return s;
    }

    @Test
    void should_profile_the_rest_when_one_worker_is_unhealthy_and_one_fails_start() throws Exception {
        // GIVEN 4 workers: 0 and 3 fine, 1 unhealthy, 2 answers 500 to start
        MockWebServer w0 = server(200, 200);
        MockWebServer w1 = server();
        MockWebServer w2 = server(500);
        MockWebServer w3 = server(200, 200);
        List<Worker> workers = List.of(
                new Worker(w0.url("/").uri(), "regular", true, 0, null),
                new Worker(w1.url("/").uri(), "regular", false, 0, null),
                new Worker(w2.url("/").uri(), "regular", true, 0, null),
                new Worker(w3.url("/").uri(), "regular", true, 0, null));
        try (FanOut fanOut = new FanOut(workers, w -> SglangClient.builder(w.url()).build())) {
            // WHEN
            List<WorkerOutcome> started = fanOut.start(ProfileRequest.builder().numSteps(3).build());
            List<WorkerOutcome> stopped = fanOut.stop();
            // THEN
            assertThat(started).extracting(WorkerOutcome::state).containsExactly(WorkerOutcome.State.STARTED,
                    WorkerOutcome.State.SKIPPED_UNHEALTHY, WorkerOutcome.State.START_FAILED,
                    WorkerOutcome.State.STARTED);
            assertThat(stopped).extracting(WorkerOutcome::state).containsExactly(WorkerOutcome.State.PROFILED,
                    WorkerOutcome.State.SKIPPED_UNHEALTHY, WorkerOutcome.State.START_FAILED,
                    WorkerOutcome.State.PROFILED);
            assertThat(stopped.get(2).httpStatus()).isEqualTo(500);
            assertThat(stopped.get(2).describe()).contains("START_FAILED: HTTP 500");
            assertThat(w1.getRequestCount()).isZero();
            assertThat(w2.getRequestCount()).isEqualTo(1); // never stopped
            assertThat(w0.getRequestCount()).isEqualTo(2);
            assertThat(w3.getRequestCount()).isEqualTo(2);
            assertThat(fanOut.anyStarted()).isTrue();
        }
    }
}
