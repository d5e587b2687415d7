package dev.profiledrollout.cli.bench;

import static org.apiguardian.api.API.Status.EXPERIMENTAL;

import dev.profiledrollout.load.ArrivalProcess;
import dev.profiledrollout.load.Endpoint;
import dev.profiledrollout.load.LoadGenerator;
import dev.profiledrollout.load.LoadRun;
import dev.profiledrollout.load.LoadSpec;
import dev.profiledrollout.load.LoadTarget;
import dev.profiledrollout.load.RandomTokenWorkload;
import dev.profiledrollout.load.RequestParameters;
import dev.profiledrollout.load.Workload;
import dev.profiledrollout.metrics.LatencyReport;
import dev.profiledrollout.metrics.RequestRecord;
import dev.profiledrollout.metrics.ScheduleReport;
import dev.profiledrollout.metrics.Slo;
import dev.profiledrollout.metrics.TimeSeries;
import okhttp3.OkHttpClient;

import java.io.PrintStream;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.TimeoutException;
import org.apiguardian.api.API;

/**
 * A complete load test without JUnit: warm-up, the measured run, optional {@code /metrics} scraping and a
 * progress line, then a {@link LoadTestResult}. Built with {@link #builder()}; {@link #run()} may be called more
 * than once. Defaults follow {@code vllm bench serve}: 1000 prompts, 1024 input and 128 output tokens,
 * {@code /v1/completions}, request rate inf, burstiness 1, seed 0.
 *
 * <pre>{@code
 * LoadTestResult result = LoadTest.builder().baseUri("http://127.0.0.1:30000").model("m")
 *         .requestRate(500).burstiness(1.0).maxConcurrency(256).requests(5000)
 *         .goodput(Slo.parse(List.of("ttft:200", "tpot:50"))).build().run();
 * System.out.println(result.summary().toTable());
 * }</pre>
 */
@API(status = EXPERIMENTAL, since = "0.1")
public final class LoadTest {

    private final Builder b;

    private LoadTest(Builder b) {
        this.b = b;
    }

    /** @return a builder with vLLM bench serve's defaults */
    public static Builder builder() {
        return new Builder();
    }

    /** @return the load shape this test sends */
    public LoadSpec spec() {
        ArrivalProcess arrival = b.rate == Double.POSITIVE_INFINITY ? ArrivalProcess.closedLoop()
                : new ArrivalProcess(b.rate, b.burstiness, b.rampEndRate, b.rampShape);
        // request rate inf without a cap releases everything at t0, as vLLM does
        int closedConcurrency = b.concurrency > 0 ? b.concurrency : b.requests;
        LoadSpec base = new LoadSpec(closedConcurrency, b.requests, b.inputTokens, b.outputTokens,
                b.rangeRatio, b.warmupRequests, b.seed);
        return base.withArrival(arrival, arrival.isClosedLoop() ? closedConcurrency : b.concurrency)
                .withPrefixTokens(b.prefixTokens).withMaxDuration(b.duration).withEndpoint(b.endpoint);
    }

    /**
     * Runs warm-up, then the measured run, and waits for it.
     *
     * @return the result (warm-up excluded from every metric)
     * @throws TimeoutException     when the run has not ended after the configured timeout (it is cancelled)
     * @throws InterruptedException when interrupted (the run is cancelled)
     */
    public LoadTestResult run() throws InterruptedException, TimeoutException {
        LoadSpec spec = spec();
        Workload workload = b.workload != null ? b.workload : new RandomTokenWorkload(spec, b.vocabSize);
        OkHttpClient client = b.scrapeInterval == null ? null : b.target.okHttpClient().build();
        try (LoadGenerator generator = new LoadGenerator(b.target, b.model, spec, workload, b.endpoint,
                b.readTimeout, b.parameters)) {
            List<RequestRecord> warmup = generator.warmup();
            MetricsScraper scraper = client == null ? null
                    : new MetricsScraper(client, b.target.baseUri(), b.scrapeInterval);
            LoadRun run;
            List<RequestRecord> records;
            try {
                if (b.beforeMeasuredRun != null) {
                    b.beforeMeasuredRun.run();
                }
                run = generator.start();
                records = await(run);
            } finally {
                if (scraper != null) {
                    scraper.close(); // joins its thread: a scrape still under way lands in points() and note()
                }
            }
            LatencyReport latency = LatencyReport.of(records);
            ScheduleReport schedule = ScheduleReport.of(records, b.lagBudget, b.delayedFraction);
            return new LoadTestResult(spec, b.endpoint, b.backend, b.model, warmup, latency, schedule,
                    TimeSeries.of(records, run.startNanos()), b.slo,
                    scraper == null ? List.of() : scraper.points(), scraper == null ? "" : scraper.note());
        } finally {
            if (client != null) {
                client.dispatcher().executorService().shutdown();
                client.connectionPool().evictAll();
            }
        }
    }

    private List<RequestRecord> await(LoadRun run) throws InterruptedException, TimeoutException {
        long deadline = System.nanoTime() + b.timeout.toNanos();
        long began = System.nanoTime();
        boolean printed = false;
        try {
            while (true) {
                long left = deadline - System.nanoTime();
                try {
                    List<RequestRecord> records = run.await(Duration.ofNanos(Math.max(0, Math.min(left, 1_000_000_000L))));
                    if (printed) {
                        progress(run, began);
                        b.progress.println();
                    }
                    return records;
                } catch (TimeoutException e) {
                    if (left <= 1_000_000_000L) {
                        run.cancel();
                        throw e;
                    }
                }
                if (b.progress != null && System.nanoTime() - began > 3_000_000_000L) {
                    progress(run, began);
                    printed = true;
                }
            }
        } catch (InterruptedException e) {
            run.cancel();
            throw e;
        }
    }

    private void progress(LoadRun run, long began) {
        double seconds = (System.nanoTime() - began) / 1e9;
        b.progress.printf(Locale.ROOT, "\r%d/%d requests done, %.1f req/s, %d in flight, %d errors", run.completedCount(),
                run.size(), run.completedCount() / seconds, run.inFlightCount(), run.failedCount());
        b.progress.flush();
    }

    /** Configuration of a {@link LoadTest}; not thread-safe. */
    public static final class Builder {
        private LoadTarget target;
        private String model = "default";
        private String backend = "openai";
        private Endpoint endpoint = Endpoint.COMPLETIONS;
        private RequestParameters parameters = RequestParameters.GREEDY_IGNORE_EOS;
        private Runnable beforeMeasuredRun;
        private double rate = Double.POSITIVE_INFINITY;
        private double burstiness = 1.0;
        private double rampEndRate = Double.NaN;
        private ArrivalProcess.RampShape rampShape = ArrivalProcess.RampShape.LINEAR;
        private int concurrency;
        private int requests = 1000;
        private Duration duration;
        private int inputTokens = 1024;
        private int outputTokens = 128;
        private double rangeRatio;
        private int prefixTokens;
        private int vocabSize = LoadGenerator.DEFAULT_VOCAB_SIZE;
        private int warmupRequests;
        private long seed;
        private Workload workload;
        private Slo slo = new Slo(null, null, null);
        private Duration lagBudget = Duration.ofMillis(ScheduleReport.DEFAULT_LAG_BUDGET_MS);
        private double delayedFraction = ScheduleReport.DEFAULT_DELAYED_FRACTION;
        private Duration scrapeInterval;
        private PrintStream progress;
        private Duration readTimeout = Duration.ofMinutes(LoadGenerator.DEFAULT_READ_TIMEOUT_MINUTES);
        private Duration timeout = Duration.ofHours(1);

        private Builder() {
        }

        /**
         * Where to send, with headers (e.g. the API key) and TLS trust; this or {@link #baseUri(URI)} is required. It
         * also serves {@code /metrics} scraping.
         */
        public Builder target(LoadTarget t) { this.target = Objects.requireNonNull(t); return this; }

        /**
         * The server root, e.g. {@code http://127.0.0.1:30000}: {@link #target(LoadTarget)} without headers.
         *
         * @throws IllegalArgumentException when it is not an http(s) URL with a host
         */
        public Builder baseUri(URI uri) { return target(LoadTarget.of(Objects.requireNonNull(uri))); }

        /** The server root as a string. */
        public Builder baseUri(String uri) { return baseUri(URI.create(uri)); }

        /** The {@code model} field. Default "default". */
        public Builder model(String m) { this.model = Objects.requireNonNull(m); return this; }

        /** A label for the result ({@code backend} key), e.g. sglang or vllm. Default "openai". */
        public Builder backend(String label) { this.backend = Objects.requireNonNull(label); return this; }

        /** Default {@link Endpoint#COMPLETIONS}. */
        public Builder endpoint(Endpoint e) { this.endpoint = Objects.requireNonNull(e); return this; }

        /**
         * {@code ignore_eos} and the sampling parameters of every request. Default
         * {@link RequestParameters#GREEDY_IGNORE_EOS}.
         */
        public Builder requestParameters(RequestParameters p) { this.parameters = Objects.requireNonNull(p); return this; }

        /** A closed loop: exactly {@code n} requests in flight (request rate inf). */
        public Builder closedLoop(int n) { this.rate = Double.POSITIVE_INFINITY; this.concurrency = n; return this; }

        /** An open loop at this mean rate, requests/s ({@code --request-rate}); +∞ for a closed loop. */
        public Builder requestRate(double perSecond) { this.rate = perSecond; return this; }

        /** Gamma shape of the gaps ({@code --burstiness}): 1 Poisson, +∞ constant. Default 1. */
        public Builder burstiness(double shape) { this.burstiness = shape; return this; }

        /** vLLM's linear ramp-up from {@code startRate} to {@code endRate} requests/s. */
        public Builder linearRamp(double startRate, double endRate) {
            this.rate = startRate;
            this.rampEndRate = endRate;
            this.rampShape = ArrivalProcess.RampShape.LINEAR;
            return this;
        }

        /** vLLM's exponential ramp-up from {@code startRate} to {@code endRate} requests/s. */
        public Builder exponentialRamp(double startRate, double endRate) {
            this.rate = startRate;
            this.rampEndRate = endRate;
            this.rampShape = ArrivalProcess.RampShape.EXPONENTIAL;
            return this;
        }

        /** Cap on requests in flight ({@code --max-concurrency}); for a closed loop, its concurrency. 0 = none. */
        public Builder maxConcurrency(int n) { this.concurrency = n; return this; }

        /** Requests in the measured run ({@code --num-prompts}). Default 1000. */
        public Builder requests(int n) { this.requests = n; return this; }

        /** Stop issuing after this long; null for no bound. */
        public Builder duration(Duration d) { this.duration = d; return this; }

        /** Random-token lengths ({@code --random-input-len}, {@code --random-output-len}, {@code --random-range-ratio}). */
        public Builder randomTokens(int input, int output, double ratio) {
            this.inputTokens = input;
            this.outputTokens = output;
            this.rangeRatio = ratio;
            return this;
        }

        /** Shared random prefix length ({@code --random-prefix-len}). Default 0. */
        public Builder prefixTokens(int n) { this.prefixTokens = n; return this; }

        /** Token ids are drawn below this. Default {@value LoadGenerator#DEFAULT_VOCAB_SIZE}. */
        public Builder vocabSize(int n) { this.vocabSize = n; return this; }

        /** Another workload (text prompts, ShareGPT) instead of random tokens. */
        public Builder workload(Workload w) { this.workload = w; return this; }

        /** Warm-up requests, excluded from every metric. Default 0 (vLLM's {@code --num-warmups}). */
        public Builder warmupRequests(int n) { this.warmupRequests = n; return this; }

        /** Seed of prompts, lengths and schedule. Default 0. */
        public Builder seed(long s) { this.seed = s; return this; }

        /** Goodput SLOs ({@code --goodput}). Default none. */
        public Builder goodput(Slo s) { this.slo = Objects.requireNonNull(s); return this; }

        /** When the run is flagged "client fell behind". Default 10 ms and 1 %. */
        public Builder lagBudget(Duration budget, double delayedFractionAllowed) {
            this.lagBudget = Objects.requireNonNull(budget);
            this.delayedFraction = delayedFractionAllowed;
            return this;
        }

        /** Scrape {@code /metrics} this often during the run; null (default) not at all. */
        public Builder scrapeMetrics(Duration interval) { this.scrapeInterval = interval; return this; }

        /**
         * Runs {@code hook} after the warm-up and before the measured run's first request (e.g. to start the
         * server's profiler, as {@code vllm bench serve --profile} does); an exception it throws ends {@link #run()}
         * before any measured request is sent. Default none.
         */
        public Builder beforeMeasuredRun(Runnable hook) { this.beforeMeasuredRun = Objects.requireNonNull(hook); return this; }

        /** Print a progress line here for runs longer than 3 s (e.g. System.err); null (default) for none. */
        public Builder progress(PrintStream out) { this.progress = out; return this; }

        /** Longest silence on one stream. Default 5 min. */
        public Builder readTimeout(Duration d) { this.readTimeout = Objects.requireNonNull(d); return this; }

        /** Longest the whole run may take before it is cancelled. Default 1 h. */
        public Builder timeout(Duration d) { this.timeout = Objects.requireNonNull(d); return this; }

        /**
         * @return the test
         * @throws IllegalStateException    without a target or base URI
         * @throws IllegalArgumentException when the shape is invalid (see {@link LoadSpec}, {@link ArrivalProcess})
         */
        public LoadTest build() {
            if (target == null) {
                throw new IllegalStateException("LoadTest needs target(…) or baseUri(…), e.g. http://127.0.0.1:30000");
            }
            LoadTest test = new LoadTest(this);
            test.spec();
            return test;
        }
    }
}
