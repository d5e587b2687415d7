package dev.profiledrollout.cli;

import dev.profiledrollout.Backend;
import dev.profiledrollout.backend.BackendSupport;
import static org.apiguardian.api.API.Status.INTERNAL;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.profiledrollout.cli.internal.BenchRunDirectory;
import dev.profiledrollout.engine.EngineClient;
import dev.profiledrollout.engine.EngineException;
import dev.profiledrollout.engine.ProfileRequest;
import dev.profiledrollout.engine.SglangClient;
import dev.profiledrollout.engine.StopOutcome;
import dev.profiledrollout.engine.VllmClient;
import dev.profiledrollout.load.Endpoint;
import dev.profiledrollout.cli.bench.LoadTest;
import dev.profiledrollout.cli.bench.LoadTestResult;
import dev.profiledrollout.load.LoadTarget;
import dev.profiledrollout.load.PromptWorkload;
import dev.profiledrollout.load.RequestParameters;
import dev.profiledrollout.cli.bench.BenchmarkSummary;
import dev.profiledrollout.metrics.Slo;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.io.PrintWriter;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apiguardian.api.API;

/**
 * {@code bench}: a serving benchmark with {@code vllm bench serve}'s flag names, summary table and result JSON
 * keys ({@code docs/METRICS.md} §2, §4, §5), plus schedule lag and latency from the intended send (§6).
 *
 * <p>The flags {@code vllm bench serve} users reach for keep vLLM's names, defaults and semantics
 * (vllm-project/vllm {@code vllm/benchmarks/serve.py}, {@code add_cli_args} and {@code main_async}):
 * {@code --percentile-metrics} (default {@code ttft,tpot,itl}) and {@code --metric-percentiles} (default
 * {@code 99}) choose the reported sections and rows; {@code --save-detailed} adds the per-request lists;
 * {@code --header KEY=VALUE} (repeatable) goes on every request; {@code --ignore-eos} sends {@code ignore_eos}, which
 * the random dataset always sends; {@code --temperature}, {@code --top-p}, {@code --top-k}, {@code --min-p},
 * {@code --frequency-penalty}, {@code --presence-penalty} and {@code --repetition-penalty} are sent only when given
 * (vLLM no longer sends {@code temperature 0} by default); {@code --profile} brackets the measured run with the
 * server's {@code POST /start_profile} and {@code /stop_profile} through the framework's engine clients
 * ({@link SglangClient} for the {@code sglang} backends, {@link VllmClient} otherwise), the stop also on failure and
 * on Ctrl-C.
 *
 * <p>Exit code 0 when the run completed (failed requests are reported, not fatal), 1 when it could not run or the
 * profiler could not be started or stopped, 2 on bad flags.
 */
@Command(name = "bench", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Benchmark a serving endpoint like `vllm bench serve`: open or closed loop, random/ShareGPT/JSONL"
                + " prompts, goodput, schedule lag.")
@API(status = INTERNAL, since = "0.1")
public final class BenchCommand implements Callable<Integer> {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Option(names = "--base-url", description = "Server root, e.g. http://127.0.0.1:30000 (else http://HOST:PORT).")
    String baseUrl;

    @Option(names = "--host", defaultValue = "127.0.0.1", description = "Host when --base-url is absent (default ${DEFAULT-VALUE}).")
    String host;

    @Option(names = "--port", defaultValue = "8000", description = "Port when --base-url is absent (default ${DEFAULT-VALUE}).")
    int port;

    @Option(names = "--endpoint", description = "/v1/completions (default), /v1/chat/completions or /generate (SGLang native).")
    String endpoint;

    @Option(names = "--backend", defaultValue = "vllm", description = "Label for the result: vllm, sglang, openai,"
            + " openai-chat (implies /v1/chat/completions), sglang-native (implies /generate). Default ${DEFAULT-VALUE}.")
    String backend;

    @Option(names = "--num-prompts", defaultValue = "1000", description = "Requests in the run (default ${DEFAULT-VALUE}).")
    int numPrompts;

    @Option(names = "--request-rate", defaultValue = "inf", description = "Requests/s, or inf: all at t0 (default ${DEFAULT-VALUE}).")
    String requestRate;

    @Option(names = "--burstiness", defaultValue = "1.0", description = "Gamma shape of the gaps: 1 Poisson, inf constant (default ${DEFAULT-VALUE}).")
    String burstiness;

    @Option(names = "--max-concurrency", description = "Cap on requests in flight (default: none).")
    Integer maxConcurrency;

    @Option(names = "--ramp-up-strategy", description = "linear or exponential (rates from --ramp-up-start-rps to"
            + " --ramp-up-end-rps).")
    String rampUpStrategy;

    @Option(names = "--ramp-up-start-rps", description = "Ramp start rate, requests/s.")
    Double rampUpStart;

    @Option(names = "--ramp-up-end-rps", description = "Ramp end rate, requests/s.")
    Double rampUpEnd;

    @Option(names = "--duration", description = "Stop issuing requests after this many seconds (default: no bound).")
    Double durationSeconds;

    @Option(names = "--dataset-name", defaultValue = "random", description = "random (default), sharegpt or jsonl.")
    String datasetName;

    @Option(names = "--dataset-path", description = "ShareGPT JSON or JSONL prompts file.")
    Path datasetPath;

    @Option(names = "--sharegpt-output-len", defaultValue = "0", description = "max_tokens for ShareGPT prompts (0: estimated from the reply).")
    int sharegptOutputLen;

    @Mixin
    LoadOptions load = new LoadOptions();

    @Option(names = "--random-range-ratio", defaultValue = "0.0", description = "Symmetric spread in [0, 1) (default ${DEFAULT-VALUE}).")
    double randomRangeRatio;

    @Option(names = "--random-prefix-len", defaultValue = "0", description = "Shared prefix tokens (default ${DEFAULT-VALUE}).")
    int randomPrefixLen;

    @Option(names = "--goodput", arity = "1..*", description = "SLOs in ms, all must hold: ttft:MS tpot:MS e2el:MS.")
    List<String> goodput;

    @Option(names = "--num-warmups", defaultValue = "0", description = "Warm-up requests, excluded (default ${DEFAULT-VALUE}).")
    int numWarmups;

    @Option(names = "--seed", defaultValue = "0", description = "Seed of prompts, lengths and schedule (default ${DEFAULT-VALUE}).")
    long seed;

    @Option(names = "--save-result", description = "Write the result JSON and the per-request files.")
    boolean saveResult;

    @Option(names = "--result-dir", defaultValue = ".", description = "Where --save-result writes (default: the current directory).")
    Path resultDir;

    @Option(names = "--result-filename", description = "Result JSON name (default vLLM's {backend}-{rate}qps[-concurrency{c}]-{model}-{date}.json).")
    String resultFilename;

    @Option(names = "--sweep", paramLabel = "concurrency=N,…|rate=R,…", description = "Run --num-prompts requests per"
            + " stage, stages back to back: closed loops at each concurrency or open loops at each rate; one result"
            + " JSON per stage plus sweep-summary.json with --save-result.")
    String sweep;

    @Option(names = "--scrape-metrics", description = "Scrape GET /metrics every second during the run.")
    boolean scrapeMetrics;

    @Option(names = "--lag-budget-ms", defaultValue = "10", description = "Flag the run when p99 schedule lag exceeds this (default ${DEFAULT-VALUE}).")
    double lagBudgetMs;

    @Option(names = "--save-detailed", description = "With --save-result: add vLLM's per-request lists (input_lens,"
            + " output_lens, ttfts, itls, latencies, start_times, errors) to the result JSON.")
    boolean saveDetailed;

    @Option(names = "--percentile-metrics", description = "Comma-separated metrics to report: ttft, tpot, itl, e2el"
            + " (default ttft,tpot,itl, as vLLM). Schedule lag and corrected latencies are always reported.")
    String percentileMetrics;

    @Option(names = "--metric-percentiles", defaultValue = "99", description = "Comma-separated percentiles of every"
            + " reported metric, e.g. 25,50,99.9 (default ${DEFAULT-VALUE}, as vLLM).")
    String metricPercentiles;

    @Option(names = "--header", arity = "1..*", paramLabel = "KEY=VALUE", description = "Headers for every request,"
            + " as vLLM's: --header A=1 B=2, or the flag repeated (e.g. --header 'Authorization=Bearer KEY'); an"
            + " Authorization header replaces PROFILEDROLLOUT_API_KEY's and also goes to --profile's calls.")
    List<String> headers;

    @Option(names = "--profile", description = "POST /start_profile to the server after the warm-up and /stop_profile"
            + " after the run (also when it fails or is interrupted); the server's profiler settings apply.")
    boolean profile;

    @Option(names = "--ignore-eos", description = "Send ignore_eos: generate max_tokens tokens. Always sent with"
            + " --dataset-name random, as vLLM does.")
    boolean ignoreEos;

    @Option(names = "--temperature", description = "Sampling temperature (default: not sent, the server's default).")
    Double temperature;

    @Option(names = "--top-p", description = "Sampling top_p (default: not sent).")
    Double topP;

    @Option(names = "--top-k", description = "Sampling top_k (default: not sent).")
    Integer topK;

    @Option(names = "--min-p", description = "Sampling min_p (default: not sent).")
    Double minP;

    @Option(names = "--frequency-penalty", description = "Sampling frequency_penalty (default: not sent).")
    Double frequencyPenalty;

    @Option(names = "--presence-penalty", description = "Sampling presence_penalty (default: not sent).")
    Double presencePenalty;

    @Option(names = "--repetition-penalty", description = "Sampling repetition_penalty (default: not sent).")
    Double repetitionPenalty;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        URI base = URI.create(baseUrl != null ? baseUrl.replaceAll("/+$", "") : "http://" + host + ":" + port);
        Endpoint target = endpoint != null ? Endpoint.parse(endpoint) : switch (backend) {
            case "openai-chat" -> Endpoint.CHAT_COMPLETIONS;
            case "sglang-native" -> Endpoint.GENERATE;
            default -> Endpoint.COMPLETIONS;
        };
        LoadTarget loadTarget;
        List<String> metrics;
        List<Double> percentiles;
        try {
            loadTarget = loadTarget(base);
            metrics = percentileMetrics();
            percentiles = metricPercentiles();
        } catch (IllegalArgumentException e) {
            err.println("bench: " + e.getMessage());
            err.flush();
            return 2;
        }
        OkHttpClient client = modelsClient(loadTarget);
        ProfilerWindow profiler = profile ? new ProfilerWindow(profilerClient(base, loadTarget), out) : null;
        try {
            String modelId = load.model != null ? load.model : firstModel(client, base);
            RequestParameters parameters = requestParameters();
            if (sweep != null) {
                BenchSweep.Plan plan = BenchSweep.Plan.parse(sweep);
                if (!"inf".equalsIgnoreCase(requestRate) || rampUpStrategy != null || profile || scrapeMetrics
                        || !"random".equals(datasetName) || plan.closed() && maxConcurrency != null) {
                    throw new IllegalArgumentException("--sweep sets each stage's load: leave out --request-rate,"
                            + " the ramp, --profile, --scrape-metrics, a dataset other than random, and"
                            + " --max-concurrency with concurrency stages");
                }
                dev.profiledrollout.load.LoadSpec shape = new dev.profiledrollout.load.LoadSpec(1, numPrompts,
                        load.randomInputLen, load.randomOutputLen, randomRangeRatio, numWarmups, seed,
                        dev.profiledrollout.load.ArrivalProcess.closedLoop(), randomPrefixLen,
                        durationSeconds == null ? null : Duration.ofNanos(Math.round(durationSeconds * 1e9)), target);
                return BenchSweep.run(out, plan, loadTarget, modelId, backend, target, parameters, shape,
                        number("--burstiness", burstiness), maxConcurrency == null ? 0 : maxConcurrency,
                        goodput == null ? Slo.none() : Slo.parse(goodput), metrics, percentiles,
                        Duration.ofNanos(Math.round(lagBudgetMs * 1e6)), saveResult ? resultDir : null);
            }
            LoadTest.Builder test = LoadTest.builder().target(loadTarget).model(modelId).backend(backend)
                    .endpoint(target).requests(numPrompts).seed(seed).warmupRequests(numWarmups)
                    .randomTokens(load.randomInputLen, load.randomOutputLen, randomRangeRatio).prefixTokens(randomPrefixLen)
                    .burstiness(number("--burstiness", burstiness)).requestParameters(parameters)
                    .lagBudget(Duration.ofNanos(Math.round(lagBudgetMs * 1e6)), 0.01).progress(System.err);
            double rate = number("--request-rate", requestRate);
            if (rampUpStrategy != null) {
                boolean linear = "linear".equals(rampUpStrategy);
                if (!(linear || "exponential".equals(rampUpStrategy)) || rampUpStart == null || rampUpEnd == null) {
                    throw new IllegalArgumentException("--ramp-up-strategy supports linear and exponential,"
                            + " with --ramp-up-start-rps and --ramp-up-end-rps");
                }
                if (linear) {
                    test.linearRamp(rampUpStart, rampUpEnd);
                } else {
                    test.exponentialRamp(rampUpStart, rampUpEnd);
                }
            } else {
                test.requestRate(rate);
            }
            if (maxConcurrency != null) {
                test.maxConcurrency(maxConcurrency);
            }
            if (durationSeconds != null) {
                test.duration(Duration.ofNanos(Math.round(durationSeconds * 1e9)));
            }
            if (goodput != null) {
                test.goodput(Slo.parse(goodput));
            }
            if (scrapeMetrics) {
                test.scrapeMetrics(Duration.ofSeconds(1));
            }
            if (profiler != null) {
                test.beforeMeasuredRun(profiler::start);
            }
            switch (datasetName) {
                case "random" -> { }
                case "sharegpt" -> test.workload(PromptWorkload.fromShareGpt(dataset(), sharegptOutputLen, seed));
                case "jsonl" -> test.workload(PromptWorkload.fromJsonl(dataset(), load.randomOutputLen));
                default -> throw new IllegalArgumentException(
                        "--dataset-name must be random, sharegpt or jsonl, was " + datasetName);
            }
            out.println("Benchmarking " + base + target.path() + " (" + modelId + "), " + numPrompts + " prompts, "
                    + test.build().spec().arrival());
            out.println("Request parameters: " + describe(parameters));
            out.flush();
            LoadTestResult result = test.build().run();
            BenchmarkSummary summary = result.summary().withPercentiles(metrics, percentiles);
            out.print(summary.toTable());
            if (!result.serverMetricsNote().isEmpty()) {
                out.println("server metrics: " + result.serverMetricsNote());
            }
            boolean stopped = profiler == null || profiler.stop();
            if (saveResult) {
                String name = resultFilename != null ? resultFilename : defaultFileName(modelId);
                Files.createDirectories(resultDir);
                Path json = resultDir.resolve(name);
                Files.writeString(json, summary.toJson(saveDetailed).toPrettyString());
                Path details = resultDir.resolve(name.replaceAll("\\.json$", "") + "-details");
                result.writeTo(details);
                BenchRunDirectory.writeSummary(details, name, base, result);
                out.println("Saved " + json + " and " + details);
            }
            out.flush();
            return stopped ? 0 : 1;
        } catch (IllegalArgumentException e) {
            err.println("bench: " + e.getMessage());
            err.flush();
            return 2;
        } catch (EngineException e) {
            err.println("bench: " + e.getMessage());
            err.flush();
            return 1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            err.println("bench: interrupted; the requests in flight were cancelled and no result was written");
            err.flush();
            return 1;
        } finally {
            if (profiler != null) {
                profiler.close();
            }
            out.flush();
            client.dispatcher().executorService().shutdown();
            client.connectionPool().evictAll();
        }
    }

    /** The target with {@code --header}s, and the environment's bearer token unless a header sets Authorization. */
    private LoadTarget loadTarget(URI base) {
        LoadTarget.Builder b = LoadTarget.builder(base);
        boolean authorization = false;
        for (String h : headers == null ? List.<String>of() : headers) {
            int eq = h.indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException("--header must be KEY=VALUE (e.g. --header X-Tenant=a), was '"
                        + h + "'");
            }
            String name = h.substring(0, eq).strip();
            authorization |= name.equalsIgnoreCase("Authorization");
            b.header(name, h.substring(eq + 1).strip());
        }
        if (!authorization) {
            b.bearerToken(CliHttp.apiKey());
        }
        return b.build();
    }

    /** @return a client for {@code GET /v1/models} that sends the target's headers, as vLLM's model lookup does */
    private static OkHttpClient modelsClient(LoadTarget target) {
        return new OkHttpClient.Builder().addInterceptor(chain -> {
            Request.Builder request = chain.request().newBuilder();
            target.headers().forEach(h -> request.addHeader(h.getKey(), h.getValue()));
            return chain.proceed(request.build());
        }).build();
    }

    /** vLLM's rule: the given --percentile-metrics, else ttft,tpot,itl. */
    private List<String> percentileMetrics() {
        if (percentileMetrics == null) {
            return BenchmarkSummary.VLLM_DEFAULT_METRICS;
        }
        List<String> names = Arrays.stream(percentileMetrics.split(",")).map(String::strip).toList();
        for (String n : names) {
            if (!BenchmarkSummary.METRICS.contains(n)) {
                throw new IllegalArgumentException("--percentile-metrics takes a comma-separated list of "
                        + String.join(", ", BenchmarkSummary.METRICS) + "; '" + n + "' is not one"
                        + (n.startsWith("client_queue") || n.startsWith("e2el_including")
                        ? " (schedule lag, always reported, is the client-side wait)" : ""));
            }
        }
        return names;
    }

    private List<Double> metricPercentiles() {
        List<Double> values = new ArrayList<>();
        for (String p : metricPercentiles.split(",")) {
            try {
                double v = Double.parseDouble(p.strip());
                if (v >= 0 && v <= 100) {
                    values.add(v);
                    continue;
                }
            } catch (NumberFormatException e) {
                // reported below
            }
            throw new IllegalArgumentException("--metric-percentiles takes comma-separated numbers in [0, 100], e.g."
                    + " 50,90,99; '" + p.strip() + "' is not one");
        }
        return values;
    }

    /**
     * vLLM's rules ({@code vllm/benchmarks/serve.py}): {@code ignore_eos} when asked or with the random dataset;
     * only the sampling parameters given are sent, so the server's defaults apply to the others (temperature too).
     */
    private RequestParameters requestParameters() {
        Map<String, Number> sampling = new LinkedHashMap<>();
        put(sampling, "temperature", temperature);
        put(sampling, "top_p", topP);
        put(sampling, "top_k", topK);
        put(sampling, "min_p", minP);
        put(sampling, "frequency_penalty", frequencyPenalty);
        put(sampling, "presence_penalty", presencePenalty);
        put(sampling, "repetition_penalty", repetitionPenalty);
        return new RequestParameters(ignoreEos || "random".equals(datasetName), sampling);
    }

    private static void put(Map<String, Number> sampling, String name, Number value) {
        if (value != null) {
            sampling.put(name, value);
        }
    }

    private static String describe(RequestParameters p) {
        StringBuilder sb = new StringBuilder("ignore_eos ").append(p.ignoreEos() ? "true" : "not sent");
        p.sampling().forEach((k, v) -> sb.append(", ").append(k).append(' ').append(v));
        if (!p.sampling().containsKey("temperature")) {
            sb.append("; temperature not sent: the server's default applies (--temperature 0 for greedy)");
        }
        return sb.toString();
    }

    /** The framework's engine client for the profile routes: SGLang's for the sglang backends, else vLLM's. */
    private EngineClient profilerClient(URI base, LoadTarget target) {
        String bearer = target.headers().stream().filter(h -> h.getKey().equalsIgnoreCase("Authorization"))
                .map(Map.Entry::getValue).filter(v -> v.regionMatches(true, 0, "Bearer ", 0, 7))
                .map(v -> v.substring(7).strip()).findFirst().orElse(null);
        // sglang and sglang-native are SGLang's; the OpenAI labels (vllm, openai, openai-chat) have vLLM's profile routes.
        BackendSupport support = BackendSupport.named(backend.split("-")[0]).orElse(BackendSupport.of(Backend.VLLM));
        return support.client(base, new BackendSupport.ClientOptions(bearer, null, null, null));
    }

    /**
     * The server's profiler around the measured run, as {@code vllm bench serve --profile} brackets it with
     * {@code POST /start_profile} and {@code /stop_profile} ({@code vllm/benchmarks/serve.py}, {@code benchmark});
     * unlike vLLM's, the stop is also sent when the run fails, and on Ctrl-C (a shutdown hook).
     */
    private static final class ProfilerWindow implements AutoCloseable {

        private final EngineClient engine;
        private final PrintWriter out;
        private final AtomicBoolean running = new AtomicBoolean();
        private final Thread hook;

        ProfilerWindow(EngineClient engine, PrintWriter out) {
            this.engine = engine;
            this.out = out;
            this.hook = new Thread(this::stopQuietly, "bench-profiler-stop");
        }

        /** Starts the profiler; an {@link EngineException} names the server's answer and ends the run. */
        void start() {
            Runtime.getRuntime().addShutdownHook(hook);
            engine.startProfile(ProfileRequest.builder().build());
            running.set(true);
            out.println("Profiler started on " + engine.baseUri() + " (" + engine.engineName() + ")");
            out.flush();
        }

        /** @return whether the stop succeeded (or nothing was running) */
        boolean stop() {
            if (!running.getAndSet(false)) {
                return true;
            }
            // an interrupted run (Ctrl-C, a cancelled caller) must still reach the server: OkHttp refuses to call
            // from an interrupted thread, so the flag is set aside for the stop and restored after
            boolean interrupted = Thread.interrupted();
            try {
                StopOutcome outcome = engine.stopProfile();
                out.println("Profiler stopped on " + engine.baseUri() + ": " + outcome);
                return true;
            } catch (EngineException e) {
                out.println("Profiler stop failed on " + engine.baseUri() + ": " + e.getMessage());
                return false;
            } finally {
                out.flush();
                if (interrupted) {
                    Thread.currentThread().interrupt();
                }
            }
        }

        private void stopQuietly() {
            stop();
        }

        @Override
        public void close() {
            stop();
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException | IllegalArgumentException e) {
                // shutting down already (the hook stops it), or never added
            }
            engine.close();
        }
    }

    private Path dataset() {
        if (datasetPath == null) {
            throw new IllegalArgumentException("--dataset-name " + datasetName
                    + " needs --dataset-path");
        }
        return datasetPath;
    }

    private double number(String flag, String value) {
        if ("inf".equalsIgnoreCase(value)) {
            return Double.POSITIVE_INFINITY;
        }
        try {
            return Double.parseDouble(value);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(flag + " must be a number or inf, was " + value);
        }
    }

    /** vLLM's default name: {@code {label}-{rate}qps[-concurrency{c}]-{model}-{YYYYmmdd-HHMMSS}.json}. */
    private String defaultFileName(String modelId) {
        String rate = "inf".equalsIgnoreCase(requestRate) ? "inf" : requestRate;
        String concurrency = maxConcurrency != null ? "-concurrency" + maxConcurrency : "";
        String modelPart = modelId.substring(modelId.lastIndexOf('/') + 1);
        return backend + "-" + rate + "qps" + concurrency + "-" + modelPart + "-"
                + LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss", Locale.ROOT)) + ".json";
    }

    /** @return the first model id of {@code GET /v1/models}, or {@code default} when there is none */
    static String firstModel(OkHttpClient client, URI base) {
        try (Response response = client.newCall(new Request.Builder().url(base + "/v1/models").get().build()).execute()) {
            if (response.code() == 200) {
                JsonNode data = new ObjectMapper().readTree(response.body().string()).path("data");
                if (data.isArray() && !data.isEmpty()) {
                    return data.get(0).path("id").asText("default");
                }
            }
        } catch (java.io.IOException e) {
            // the run itself reports an unreachable server per request
        }
        return "default";
    }
}
