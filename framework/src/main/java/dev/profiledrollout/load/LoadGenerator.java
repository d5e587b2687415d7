package dev.profiledrollout.load;

import dev.profiledrollout.metrics.RequestRecord;
import okhttp3.Headers;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Protocol;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import okhttp3.ResponseBody;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Drives a load of streamed requests (closed or open loop, {@link LoadSpec#arrival()}) against one
 * {@link Endpoint} with a {@link Workload} (vLLM's random-token workload by default) and records the timing of
 * every request.
 *
 * <h2>Wire concurrency and threads</h2>
 * Requests go out on the generator's own HTTP/1.1 event-loop client ({@link StreamTransport}: Netty, keep-alive
 * connections, {@value #LOOP_THREADS_PROPERTY} threads, default {@code min(2, max(1, cores - 1))}), not on the OkHttp
 * client given, so that hundreds of concurrent streams cost one or two threads and the client adds microseconds, not
 * milliseconds, to TTFT. The default leaves at least one core to everything else on the machine (the engine or
 * simulator under test when it runs there): on two cores shared with the server, a second loop thread raised the
 * client-added TTFT p99 of a saturated 64-way loop from ~0.5 ms to 1–4 ms (bench/loadgen), and one thread already
 * sustains ~15,000 streamed requests/s. What the given client's interceptors add to a request (the API-key
 * {@code Authorization} header of {@code SglangClient} / {@code VllmClient}) is captured once, by running the
 * interceptors on a sample request that never reaches the network, and sent with every request. A closed loop
 * keeps {@code concurrency} connections, each sending its next request when the previous one ended, so exactly
 * {@code concurrency} requests are on the wire while the queue lasts, never more. The read timeout (default
 * {@value #DEFAULT_READ_TIMEOUT_MINUTES} min) bounds the silence on a stream, long prefills included.
 *
 * <h2>Lifecycle</h2>
 * {@link #warmup()} then {@link #start()} (possibly several times), then {@link #close()}, which cancels what is
 * in flight, closes the connections and joins the event loop and pacer threads. Thread-safe.
 */
public final class LoadGenerator implements AutoCloseable {

    /** Default vocabulary bound for token ids: fits every current Llama, Qwen and Mistral tokenizer. */
    public static final int DEFAULT_VOCAB_SIZE = 32_000;
    static final long DEFAULT_READ_TIMEOUT_MINUTES = 5;
    /** System property: event loop threads of the load generator's HTTP client (default {@code min(2, max(1, cores - 1))}). */
    public static final String LOOP_THREADS_PROPERTY = "profiledrollout.load.threads";
    /** Request headers the transport sets itself; an interceptor's value for them is not copied. */
    private static final Set<String> OWN_HEADERS = Set.of("host", "content-type", "content-length", "accept",
            "user-agent", "connection", "transfer-encoding", "accept-encoding");

    private final LoadSpec spec;
    private final Workload workload;
    private final StreamTransport transport;
    private final List<LoadRun> runs = new CopyOnWriteArrayList<>();
    private final AtomicInteger threadNumbers = new AtomicInteger();
    private volatile boolean closed;

    /**
     * With the default vocabulary bound ({@value #DEFAULT_VOCAB_SIZE}) and read timeout
     * ({@value #DEFAULT_READ_TIMEOUT_MINUTES} min).
     *
     * @param client  the client to derive from, e.g. {@code SglangClient.httpClient()}; not modified; not null
     * @param baseUri the server root; requests go to {@code {baseUri}/v1/completions}; not null
     * @param model   the {@code model} field, e.g. from {@code SglangClient.models()}; not null
     * @param spec    the load, not null
     */
    public LoadGenerator(OkHttpClient client, URI baseUri, String model, LoadSpec spec) {
        this(client, baseUri, model, spec, DEFAULT_VOCAB_SIZE, Duration.ofMinutes(DEFAULT_READ_TIMEOUT_MINUTES));
    }

    /**
     * @param vocabSize   token ids are drawn from [0, vocabSize)
     * @param readTimeout the longest silence allowed on a stream, including the wait for the first token of a
     *                    long prefill under load; a request exceeding it is recorded as {@code TIMEOUT}
     */
    public LoadGenerator(OkHttpClient client, URI baseUri, String model, LoadSpec spec, int vocabSize,
                         Duration readTimeout) {
        this(client, baseUri, model, spec, new RandomTokenWorkload(spec, vocabSize), spec.endpoint(), readTimeout);
    }

    /**
     * @param workload    the requests by index, not null
     * @param endpoint    where to send them and how to read the stream, not null
     * @param readTimeout the longest silence allowed on a stream; a request exceeding it is recorded as
     *                    {@code TIMEOUT}
     */
    public LoadGenerator(OkHttpClient client, URI baseUri, String model, LoadSpec spec, Workload workload,
                         Endpoint endpoint, Duration readTimeout) {
        Objects.requireNonNull(client, "client");
        Objects.requireNonNull(endpoint, "endpoint");
        Objects.requireNonNull(baseUri, "baseUri");
        Objects.requireNonNull(model, "model");
        Objects.requireNonNull(readTimeout, "readTimeout");
        this.spec = Objects.requireNonNull(spec, "spec");
        this.workload = Objects.requireNonNull(workload, "workload");
        String base = baseUri.toString();
        while (base.endsWith("/")) {
            base = base.substring(0, base.length() - 1);
        }
        URI url = URI.create(base + endpoint.path());
        this.transport = new StreamTransport(url, new CompletionCall(model, endpoint), interceptorHeaders(client, url),
                readTimeout, loopThreadCount(), threadNumbers, client.x509TrustManager());
    }

    /**
     * @return the event loop threads a generator created now uses: {@value #LOOP_THREADS_PROPERTY} when set, else
     *         {@code min(2, max(1, cores - 1))}
     * @throws IllegalArgumentException when the property is set to anything but an integer ≥ 1
     */
    public static int loopThreadCount() {
        String value = System.getProperty(LOOP_THREADS_PROPERTY);
        int fallback = Math.min(2, Math.max(1, Runtime.getRuntime().availableProcessors() - 1));
        if (value == null || value.isBlank()) {
            return fallback;
        }
        try {
            int n = Integer.parseInt(value.strip());
            if (n >= 1) {
                return n;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new IllegalArgumentException(LOOP_THREADS_PROPERTY + "=" + value + " is not a thread count: set it to"
                + " an integer ≥ 1 (default min(2, max(1, cores - 1)) = " + fallback + ")");
    }

    /**
     * The headers {@code client}'s interceptors add to a POST to {@code url}: the interceptors run on a sample
     * request and the chain is answered by a last interceptor of ours with an empty 204, so nothing is sent.
     */
    static List<Map.Entry<String, String>> interceptorHeaders(OkHttpClient client, URI url) {
        AtomicReference<Headers> seen = new AtomicReference<>(Headers.of());
        OkHttpClient probe = client.newBuilder().addInterceptor(chain -> {
            seen.set(chain.request().headers());
            return new Response.Builder().request(chain.request()).protocol(Protocol.HTTP_1_1).code(204)
                    .message("captured").body(ResponseBody.create("", null)).build();
        }).build();
        Request sample = new Request.Builder().url(url.toString())
                .post(RequestBody.create("{}", MediaType.get("application/json"))).build();
        try (Response ignored = probe.newCall(sample).execute()) {
            List<Map.Entry<String, String>> headers = new ArrayList<>();
            Headers added = seen.get();
            for (int i = 0; i < added.size(); i++) {
                if (!OWN_HEADERS.contains(added.name(i).toLowerCase(Locale.ROOT))) {
                    headers.add(Map.entry(added.name(i), added.value(i)));
                }
            }
            return headers;
        } catch (IOException e) {
            throw new UncheckedIOException("the HTTP client's interceptors failed on a sample load request to " + url
                    + ": " + e.getMessage(), e);
        }
    }

    /**
     * Sends {@code spec.warmupRequests()} requests (indices −1, −2, …, distinct from the run's) under the same
     * concurrency cap and waits for them. Call it before {@code /start_profile}: warm-up belongs in no profile
     * window and no metric.
     *
     * @return the warm-up records, ordered by index; meant to be checked for errors and then excluded
     */
    public List<RequestRecord> warmup() {
        int n = spec.warmupRequests();
        if (n == 0) {
            return List.of();
        }
        int workers = spec.concurrency() == 0 ? n : Math.min(spec.concurrency(), n);
        LoadRun run = launch(n, slot -> workload.request(-(slot + 1)), workers, null, null);
        return run.awaitUninterruptibly();
    }

    /**
     * Starts the measured run and returns immediately. Closed loop: exactly {@code concurrency} connections, each
     * sending the next index 0…{@code requests}−1 when its previous request ended, until all are issued. Open loop:
     * a pacer thread ({@code profiledrollout-load-N}, non-daemon) dispatching against the schedule
     * {@code spec.arrival().schedule(requests, seed)} (see {@link LoadRun}). Either stops issuing at {@code spec.maxDuration()}.
     *
     * @return the run, to await or cancel
     * @throws IllegalStateException after {@link #close()}
     */
    public LoadRun start() {
        ArrivalSchedule schedule = spec.arrival().isClosedLoop() ? null
                : spec.arrival().schedule(spec.requests(), spec.seed());
        return launch(spec.requests(), workload::request, spec.concurrency(), schedule, spec.maxDuration());
    }

    private synchronized LoadRun launch(int size, java.util.function.IntFunction<CompletionRequest> requests,
                                        int workers, ArrivalSchedule schedule, Duration maxDuration) {
        if (closed) {
            throw new IllegalStateException("LoadGenerator is closed");
        }
        LoadRun run = new LoadRun(size, requests, transport, workers, threadNumbers, schedule,
                spec.concurrency(), maxDuration);
        runs.removeIf(LoadRun::isDone); // a long-lived generator must not keep every finished run's records
        runs.add(run);
        run.startThreads();
        return run;
    }

    /** @return the workload whose requests this generator sends */
    public Workload workload() {
        return workload;
    }

    /**
     * Cancels in-flight requests (recorded as {@code CANCELLED}), joins the open-loop pacers, then closes every
     * connection and joins the event loop threads. Does not close the client passed in. Idempotent.
     */
    @Override
    public void close() {
        synchronized (this) {
            closed = true;
        }
        for (LoadRun run : runs) {
            run.cancelAndJoin();
        }
        transport.close();
    }
}
