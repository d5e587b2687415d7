package dev.profiledrollout.load;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.profiledrollout.metrics.ErrorKind;
import dev.profiledrollout.metrics.RequestRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** Wire-level behaviour: concurrency as seen by the server, cancellation and thread hygiene. */
class LoadConcurrencyTest {

    private static final String STREAM = LoadGeneratorTest.chunk("a") + LoadGeneratorTest.chunk("b")
            + LoadGeneratorTest.usage(8, 2) + LoadGeneratorTest.DONE;

    private HttpServer server;
    private ExecutorService serverThreads;
    private final AtomicInteger inFlight = new AtomicInteger();
    private final AtomicInteger maxInFlight = new AtomicInteger();
    private final AtomicInteger requestsSeen = new AtomicInteger();
    private final CountDownLatch releaseStalled = new CountDownLatch(1);

    @BeforeEach
    void setUp() throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 128);
        serverThreads = Executors.newCachedThreadPool();
        server.setExecutor(serverThreads);
    }

    @AfterEach
    void tearDown() throws InterruptedException {
        releaseStalled.countDown();
        server.stop(0);
        serverThreads.shutdownNow();
        serverThreads.awaitTermination(10, TimeUnit.SECONDS);
    }

    private URI start() {
        server.start();
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
    }

    /** Every completion gets a stream that sends {@code head}, counts as in flight, then stalls until the test ends. */
    private void serveStalledStreams(String head) {
        server.createContext("/v1/completions", exchange -> {
            exchange.getRequestBody().readAllBytes();
            exchange.getResponseHeaders().set("Content-Type", "text/event-stream");
            exchange.sendResponseHeaders(200, 0);
            OutputStream out = exchange.getResponseBody();
            out.write(head.getBytes(StandardCharsets.UTF_8));
            out.flush();
            inFlight.incrementAndGet();
            try {
                releaseStalled.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            exchange.close();
        });
    }

    private static void respond(HttpExchange exchange, String body) throws IOException {
        exchange.getRequestBody().readAllBytes();
        exchange.getResponseHeaders().set("Content-Type", "text/event-stream");
        exchange.sendResponseHeaders(200, 0);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(body.getBytes(StandardCharsets.UTF_8));
        }
    }

    @Test
    void should_put_exactly_the_requested_concurrency_on_the_wire() throws Exception {
        // GIVEN a server that holds the first wave until 16 requests are in flight at once
        int concurrency = 16;
        CountDownLatch firstWave = new CountDownLatch(concurrency);
        server.createContext("/v1/completions", exchange -> {
            requestsSeen.incrementAndGet();
            int now = inFlight.incrementAndGet();
            maxInFlight.accumulateAndGet(now, Math::max);
            firstWave.countDown();
            try {
                firstWave.await(20, TimeUnit.SECONDS);
                Thread.sleep(5);   // keep requests overlapping after the first wave
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            // leave the in-flight count before the client can see the end of this response
            inFlight.decrementAndGet();
            respond(exchange, STREAM);
        });
        URI base = start();
        // WHEN
        List<RequestRecord> records;
        try (LoadGenerator load = new LoadGenerator(LoadTarget.of(base), "m",
                new LoadSpec(concurrency, 64, 8, 2, 0.0, 0, 1L))) {
            records = load.start().await(Duration.ofSeconds(60));
        }
        // THEN
        assertThat(firstWave.getCount()).as("requests never reached %d in flight at once", concurrency).isZero();
        assertThat(maxInFlight.get()).isEqualTo(concurrency);
        assertThat(requestsSeen.get()).isEqualTo(64);
        assertThat(records).hasSize(64).allMatch(RequestRecord::succeeded);
        assertThat(records).extracting(RequestRecord::index).isSorted().doesNotHaveDuplicates();
        assertThat(records).allSatisfy(r -> assertThat(r.completionTokens()).isEqualTo(2));
    }

    @Test
    void should_cancel_in_flight_requests_and_leave_no_worker_thread_behind() throws Exception {
        // GIVEN a server that sends one chunk, then stalls
        serveStalledStreams(LoadGeneratorTest.chunk("a"));
        URI base = start();
        LoadGenerator load = new LoadGenerator(LoadTarget.of(base), "m", new LoadSpec(4, 8, 8, 2, 0.0, 0, 1L));
        LoadRun run = load.start();
        await().atMost(Duration.ofSeconds(20)).until(() -> inFlight.get() >= 4);
        assertThat(inFlight.get()).isEqualTo(4);
        assertThat(run.inFlightCount()).isEqualTo(4);
        // the four streams share the event loop: no thread per request
        assertThat(workerThreads()).hasSizeBetween(1, 2);
        // WHEN
        run.cancel();
        List<RequestRecord> records = run.await(Duration.ofSeconds(20));
        load.close();
        // THEN
        assertThat(run.isDone()).isTrue();
        assertThat(records).hasSize(4).allSatisfy(r -> {
            assertThat(r.error()).isEqualTo(ErrorKind.CANCELLED);
            assertThat(r.chunkNanos()).hasSizeLessThanOrEqualTo(1);   // the chunk may still be in transit at cancel
        });
        assertThat(workerThreads()).isEmpty();
    }

    @Test
    void should_record_a_timeout_when_the_stream_stalls_past_the_read_timeout() throws Exception {
        serveStalledStreams("");
        URI base = start();
        try (LoadGenerator load = new LoadGenerator(LoadTarget.of(base), "m", new LoadSpec(1, 1, 8, 2, 0.0, 0, 1L),
                LoadGenerator.DEFAULT_VOCAB_SIZE, Duration.ofMillis(300))) {
            List<RequestRecord> records = load.start().await(Duration.ofSeconds(20));
            assertThat(records).singleElement().satisfies(r -> assertThat(r.error()).isEqualTo(ErrorKind.TIMEOUT));
        }
    }

    private static List<Thread> workerThreads() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().startsWith("profiledrollout-load-") && t.isAlive())
                .peek(t -> assertThat(t.isDaemon()).isFalse())
                .toList();
    }
}
