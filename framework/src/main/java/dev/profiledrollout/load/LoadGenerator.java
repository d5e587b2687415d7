package dev.profiledrollout.load;

import dev.profiledrollout.metrics.RequestRecord;
import okhttp3.ConnectionPool;
import okhttp3.Dispatcher;
import okhttp3.OkHttpClient;

import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Drives a load of streamed requests (closed or open loop, {@link LoadSpec#arrival()}) against one
 * {@link Endpoint} with a {@link Workload} (vLLM's random-token workload by default) and records the timing of
 * every request.
 *
 * <h2>Wire concurrency</h2>
 * The generator derives its own client from the one given ({@link OkHttpClient#newBuilder()}, so interceptors
 * such as the API-key header are kept) with a {@link Dispatcher} allowing at least {@code concurrency} requests
 * per host, a {@link ConnectionPool} keeping at least {@code concurrency} idle connections, and a read timeout
 * long enough for long prefills (default {@value #DEFAULT_READ_TIMEOUT_MINUTES} min). Each of the
 * {@code concurrency} worker threads makes synchronous calls, so exactly {@code concurrency} requests are on the
 * wire while the queue lasts, never more.
 *
 * <h2>Lifecycle</h2>
 * {@link #warmup()} then {@link #start()} (possibly several times), then {@link #close()}, which cancels what is
 * in flight and joins every worker thread. Thread-safe.
 */
public final class LoadGenerator implements AutoCloseable {

    /** Default vocabulary bound for token ids: fits every current Llama, Qwen and Mistral tokenizer. */
    public static final int DEFAULT_VOCAB_SIZE = 32_000;
    static final long DEFAULT_READ_TIMEOUT_MINUTES = 5;
    /** Idle connections kept for an open loop without a concurrency cap. */
    static final int UNCAPPED_IDLE_CONNECTIONS = 256;

    private final LoadSpec spec;
    private final Workload workload;
    private final OkHttpClient http;
    private final CompletionCall completionCall;
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
        int connections = Math.max(spec.concurrency() == 0 ? UNCAPPED_IDLE_CONNECTIONS : spec.concurrency(), 5);
        Dispatcher dispatcher = new Dispatcher();
        dispatcher.setMaxRequests(Math.max(connections, 64));
        dispatcher.setMaxRequestsPerHost(connections);
        this.http = client.newBuilder()
                .dispatcher(dispatcher)
                .connectionPool(new ConnectionPool(connections, 5, TimeUnit.MINUTES))
                .readTimeout(readTimeout)
                .callTimeout(Duration.ZERO)
                .build();
        String base = baseUri.toString();
        while (base.endsWith("/")) {
            base = base.substring(0, base.length() - 1);
        }
        this.completionCall = new CompletionCall(http, base + endpoint.path(), model, endpoint);
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
     * Starts the measured run and returns immediately. Closed loop: exactly {@code concurrency} worker threads
     * named {@code profiledrollout-load-N} (non-daemon), each taking the next index 0…{@code requests}−1 until all
     * are issued. Open loop: a pacer dispatching against the schedule {@code spec.arrival().schedule(requests,
     * seed)} onto a pool (see {@link LoadRun}). Either stops issuing at {@code spec.maxDuration()}.
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
        LoadRun run = new LoadRun(size, requests, completionCall, workers, threadNumbers, schedule,
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

    /** @return the derived client (its dispatcher and pool are sized for the concurrency) */
    OkHttpClient httpClient() {
        return http;
    }

    /**
     * Cancels in-flight calls (recorded as {@code CANCELLED}), stops and joins every worker thread, then releases
     * this generator's connection pool. Does not close the client passed in. Idempotent.
     */
    @Override
    public void close() {
        synchronized (this) {
            closed = true;
        }
        for (LoadRun run : runs) {
            run.cancelAndJoin();
        }
        http.dispatcher().cancelAll();
        http.dispatcher().executorService().shutdown();
        http.connectionPool().evictAll();
    }
}
