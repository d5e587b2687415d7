package dev.profiledrollout.load;

import static org.apiguardian.api.API.Status.EXPERIMENTAL;

import dev.profiledrollout.ProfiledRolloutKeys;
import dev.profiledrollout.metrics.RequestRecord;
import org.apiguardian.api.API;

import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Drives a load of streamed requests (closed or open loop, {@link LoadSpec#arrival()}) against one
 * {@link Endpoint} of a {@link LoadTarget} with a {@link Workload} (vLLM's random-token workload by default) and
 * records the timing of every request.
 *
 * <h2>Wire concurrency and threads</h2>
 * Requests go out on the generator's own HTTP/1.1 event-loop client ({@link StreamTransport}: Netty, keep-alive
 * connections, {@value ProfiledRolloutKeys#LOAD_THREADS} threads, default {@code min(2, max(1, cores - 1))}), so that
 * hundreds of concurrent streams cost one or two threads and the client adds microseconds, not milliseconds, to TTFT.
 * The default leaves at least one core to everything else on the machine (the engine or simulator under test when it
 * runs there): on two cores shared with the server, a second loop thread raised the client-added TTFT p99 of a
 * saturated 64-way loop from ~0.5 ms to 1–4 ms (bench/loadgen), and one thread already sustains ~15,000 streamed
 * requests/s. Every request carries the target's headers (the API key's {@code Authorization}, for one). A closed loop
 * keeps {@code concurrency} connections, each sending its next request when the previous one ended, so exactly
 * {@code concurrency} requests are on the wire while the queue lasts, never more. The read timeout (default
 * {@value #DEFAULT_READ_TIMEOUT_MINUTES} min) bounds the silence on a stream, long prefills included.
 *
 * <h2>Lifecycle</h2>
 * {@link #warmup()} then {@link #start()} (possibly several times), then {@link #close()}, which cancels what is
 * in flight, closes the connections and joins the event loop and pacer threads. Thread-safe.
 */
@API(status = EXPERIMENTAL, since = "0.1")
public final class LoadGenerator implements AutoCloseable {

    /** Default vocabulary bound for token ids: fits every current Llama, Qwen and Mistral tokenizer. */
    public static final int DEFAULT_VOCAB_SIZE = 32_000;
    /** Default read timeout in minutes: the longest silence on one stream, long prefills included. */
    public static final long DEFAULT_READ_TIMEOUT_MINUTES = 5;

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
     * @param target where to send: requests go to {@code {target.baseUri()}/v1/completions} (or
     *               {@code spec.endpoint()}'s path); not null
     * @param model  the {@code model} field, e.g. from {@code SglangClient.models()}; not null
     * @param spec   the load, not null
     */
    public LoadGenerator(LoadTarget target, String model, LoadSpec spec) {
        this(target, model, spec, DEFAULT_VOCAB_SIZE, Duration.ofMinutes(DEFAULT_READ_TIMEOUT_MINUTES));
    }

    /**
     * @param vocabSize   token ids are drawn from [0, vocabSize)
     * @param readTimeout the longest silence allowed on a stream, including the wait for the first token of a
     *                    long prefill under load; a request exceeding it is recorded as {@code TIMEOUT}
     */
    public LoadGenerator(LoadTarget target, String model, LoadSpec spec, int vocabSize, Duration readTimeout) {
        this(target, model, spec, new RandomTokenWorkload(spec, vocabSize), spec.endpoint(), readTimeout);
    }

    /**
     * @param workload    the requests by index, not null
     * @param endpoint    which route to send them to and how to read the stream, not null
     * @param readTimeout the longest silence allowed on a stream; a request exceeding it is recorded as
     *                    {@code TIMEOUT}
     * @throws IllegalArgumentException when {@value ProfiledRolloutKeys#LOAD_THREADS} is set to anything but an
     *                                  integer ≥ 1
     */
    public LoadGenerator(LoadTarget target, String model, LoadSpec spec, Workload workload, Endpoint endpoint,
                         Duration readTimeout) {
        this(target, model, spec, workload, endpoint, readTimeout, RequestParameters.GREEDY_IGNORE_EOS);
    }

    /**
     * @param parameters {@code ignore_eos} and the sampling parameters every request carries, not null (the other
     *                   constructors send {@link RequestParameters#GREEDY_IGNORE_EOS})
     * @throws IllegalArgumentException when {@value ProfiledRolloutKeys#LOAD_THREADS} is set to anything but an
     *                                  integer ≥ 1
     */
    public LoadGenerator(LoadTarget target, String model, LoadSpec spec, Workload workload, Endpoint endpoint,
                         Duration readTimeout, RequestParameters parameters) {
        Objects.requireNonNull(target, "target");
        Objects.requireNonNull(parameters, "parameters");
        Objects.requireNonNull(endpoint, "endpoint");
        Objects.requireNonNull(model, "model");
        Objects.requireNonNull(readTimeout, "readTimeout");
        this.spec = Objects.requireNonNull(spec, "spec");
        this.workload = Objects.requireNonNull(workload, "workload");
        String base = target.baseUri().toString();
        while (base.endsWith("/")) {
            base = base.substring(0, base.length() - 1);
        }
        URI url = URI.create(base + endpoint.path());
        this.transport = new StreamTransport(url, new CompletionCall(model, endpoint, parameters),
                target.headers(), readTimeout,
                loopThreadCount(), threadNumbers, target.trustManager().orElse(null), target.hostnameVerification());
    }

    /**
     * @return the event loop threads a generator created now uses: {@value ProfiledRolloutKeys#LOAD_THREADS} when set,
     *         else {@code min(2, max(1, cores - 1))}
     * @throws IllegalArgumentException when the property is set to anything but an integer ≥ 1
     */
    public static int loopThreadCount() {
        String value = System.getProperty(ProfiledRolloutKeys.LOAD_THREADS);
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
        throw new IllegalArgumentException(ProfiledRolloutKeys.LOAD_THREADS + "=" + value + " is not a thread count:"
                + " set it to an integer ≥ 1 (default min(2, max(1, cores - 1)) = " + fallback + ")");
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
        int workers = spec.maxInFlight() == 0 ? n : Math.min(spec.maxInFlight(), n);
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
        return launch(spec.requests(), workload::request, spec.lanes(), schedule, spec.maxDuration());
    }

    /**
     * Starts one stage of a staged load ({@link StageRunner}) on this generator's connections and event loop, and
     * returns immediately: {@code stage.requests()} requests at workload indices {@code firstIndex},
     * {@code firstIndex + 1}, …, so that no two stages send the same prompt (a prompt sent twice would hit the prefix
     * cache). Closed loop: {@code stage.lanes()} lanes; open loop: the stage's own schedule, capped at
     * {@code stage.maxInFlight()}; either stops issuing at {@code stage.maxDuration()}.
     *
     * @param stage      the stage's load; its token lengths, prefix, seed and endpoint must be this generator's
     * @param firstIndex the workload index of the stage's first request, ≥ 0
     * @return the run, to await or cancel
     * @throws IllegalArgumentException when the stage's request shape differs from the generator's (build the stage
     *                                  from the generator's spec, e.g. {@link LoadStage#closedLoop(LoadSpec, int)})
     * @throws IllegalStateException    after {@link #close()}
     */
    public LoadRun startStage(LoadSpec stage, int firstIndex) {
        LoadRun run = prepareStage(stage, firstIndex);
        run.startThreads();
        return run;
    }

    /**
     * {@link #startStage} without the start: the run is registered (closed with this generator) and started later,
     * by {@link LoadRun#startNextWhenDone} on the thread that ends the previous stage.
     */
    LoadRun prepareStage(LoadSpec stage, int firstIndex) {
        Objects.requireNonNull(stage, "stage");
        if (stage.inputTokens() != spec.inputTokens() || stage.outputTokens() != spec.outputTokens()
                || stage.rangeRatio() != spec.rangeRatio() || stage.prefixTokens() != spec.prefixTokens()
                || stage.seed() != spec.seed() || stage.endpoint() != spec.endpoint()) {
            throw new IllegalArgumentException("a stage must send the generator's requests (input " + spec.inputTokens()
                    + ", output " + spec.outputTokens() + ", range " + spec.rangeRatio() + ", prefix "
                    + spec.prefixTokens() + ", seed " + spec.seed() + ", " + spec.endpoint() + "), but it has input "
                    + stage.inputTokens() + ", output " + stage.outputTokens() + ", range " + stage.rangeRatio()
                    + ", prefix " + stage.prefixTokens() + ", seed " + stage.seed() + ", " + stage.endpoint()
                    + ": derive the stage from the generator's spec (LoadStage.closedLoop / LoadStage.atRate)");
        }
        if (firstIndex < 0) {
            throw new IllegalArgumentException("firstIndex must be ≥ 0, was " + firstIndex);
        }
        ArrivalSchedule schedule = stage.arrival().isClosedLoop() ? null
                : stage.arrival().schedule(stage.requests(), stage.seed() + firstIndex);
        return register(stage.requests(), slot -> workload.request(firstIndex + slot), stage.lanes(), schedule,
                stage.maxInFlight(), stage.maxDuration());
    }

    /**
     * Sends {@code stage.warmupRequests()} warm-up requests of a stage in a closed loop of at most
     * {@code stage.maxInFlight()} lanes (all at once when 0), at indices −1 − {@code firstIndex}, −2 −
     * {@code firstIndex}, …, and waits for them; their records belong in no metric.
     *
     * @return the warm-up records, ordered by index
     */
    public List<RequestRecord> warmupStage(LoadSpec stage, int firstIndex) {
        int n = stage.warmupRequests();
        if (n == 0) {
            return List.of();
        }
        int workers = stage.maxInFlight() == 0 ? n : Math.min(stage.maxInFlight(), n);
        return launch(n, slot -> workload.request(-(firstIndex + slot + 1)), workers, null, 0, null)
                .awaitUninterruptibly();
    }

    /**
     * {@link #warmupStage} without the start or the wait: the warm-up run is registered and started later, by
     * {@link LoadRun#startNextWhenDone} on the thread that ends the previous stage; null when the stage has no
     * warm-up.
     */
    LoadRun prepareWarmup(LoadSpec stage, int firstIndex) {
        int n = stage.warmupRequests();
        if (n == 0) {
            return null;
        }
        int workers = stage.maxInFlight() == 0 ? n : Math.min(stage.maxInFlight(), n);
        return register(n, slot -> workload.request(-(firstIndex + slot + 1)), workers, null, 0, null);
    }

    private LoadRun launch(int size, java.util.function.IntFunction<CompletionRequest> requests,
                           int workers, ArrivalSchedule schedule, Duration maxDuration) {
        return launch(size, requests, workers, schedule, spec.maxInFlight(), maxDuration);
    }

    private synchronized LoadRun launch(int size, java.util.function.IntFunction<CompletionRequest> requests,
                                        int workers, ArrivalSchedule schedule, int maxInFlight,
                                        Duration maxDuration) {
        LoadRun run = register(size, requests, workers, schedule, maxInFlight, maxDuration);
        run.startThreads();
        return run;
    }

    /** A run, not started, that {@link #close()} will cancel. */
    private synchronized LoadRun register(int size, java.util.function.IntFunction<CompletionRequest> requests,
                                          int workers, ArrivalSchedule schedule, int maxInFlight,
                                          Duration maxDuration) {
        if (closed) {
            throw new IllegalStateException("LoadGenerator is closed");
        }
        LoadRun run = new LoadRun(size, requests, transport, workers, threadNumbers, schedule,
                maxInFlight, maxDuration);
        runs.removeIf(LoadRun::isDone); // a long-lived generator must not keep every finished run's records
        runs.add(run);
        return run;
    }

    /** @return the workload whose requests this generator sends */
    public Workload workload() {
        return workload;
    }

    /**
     * Cancels in-flight requests (recorded as {@code CANCELLED}), joins the open-loop pacers, then closes every
     * connection and joins the event loop threads. Idempotent.
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
