package dev.profiledrollout.cli;

import static org.apiguardian.api.API.Status.INTERNAL;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.profiledrollout.cli.internal.BenchRunDirectory;
import dev.profiledrollout.load.Endpoint;
import dev.profiledrollout.load.LoadTest;
import dev.profiledrollout.load.LoadTestResult;
import dev.profiledrollout.load.PromptWorkload;
import dev.profiledrollout.metrics.Slo;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.PrintWriter;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import org.apiguardian.api.API;

/**
 * {@code bench}: a serving benchmark with {@code vllm bench serve}'s flag names, summary table and result JSON
 * keys ({@code docs/METRICS.md} §2, §4, §5), plus schedule lag and latency from the intended send (§6). Exit code 0
 * when the run completed (failed requests are reported, not fatal), 1 when it could not run, 2 on bad flags.
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

    @Option(names = "--model", description = "The model field (default: the first id of GET /v1/models).")
    String model;

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

    @Option(names = "--random-input-len", defaultValue = "1024", description = "Default ${DEFAULT-VALUE}.")
    int randomInputLen;

    @Option(names = "--random-output-len", defaultValue = "128", description = "Default ${DEFAULT-VALUE}.")
    int randomOutputLen;

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

    @Option(names = "--scrape-metrics", description = "Scrape GET /metrics every second during the run.")
    boolean scrapeMetrics;

    @Option(names = "--lag-budget-ms", defaultValue = "10", description = "Flag the run when p99 schedule lag exceeds this (default ${DEFAULT-VALUE}).")
    double lagBudgetMs;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        URI base = URI.create(baseUrl != null ? baseUrl.replaceAll("/+$", "") : "http://" + host + ":" + port);
        Endpoint target = endpoint != null ? Endpoint.parse(endpoint) : switch (backend) {
            case "openai-chat" -> Endpoint.CHAT_COMPLETIONS;
            case "sglang-native" -> Endpoint.GENERATE;
            default -> Endpoint.COMPLETIONS;
        };
        OkHttpClient client = new OkHttpClient();
        try {
            String modelId = model != null ? model : firstModel(client, base);
            LoadTest.Builder test = LoadTest.builder().baseUri(base).model(modelId).backend(backend)
                    .endpoint(target).requests(numPrompts).seed(seed).warmupRequests(numWarmups)
                    .randomTokens(randomInputLen, randomOutputLen, randomRangeRatio).prefixTokens(randomPrefixLen)
                    .burstiness(number("--burstiness", burstiness))
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
            switch (datasetName) {
                case "random" -> { }
                case "sharegpt" -> test.workload(PromptWorkload.fromShareGpt(dataset(), sharegptOutputLen, seed));
                case "jsonl" -> test.workload(PromptWorkload.fromJsonl(dataset(), randomOutputLen));
                default -> throw new IllegalArgumentException(
                        "--dataset-name must be random, sharegpt or jsonl, was " + datasetName);
            }
            out.println("Benchmarking " + base + target.path() + " (" + modelId + "), " + numPrompts + " prompts, "
                    + test.build().spec().arrival());
            out.flush();
            LoadTestResult result = test.build().run();
            out.print(result.summary().toTable());
            if (!result.serverMetricsNote().isEmpty()) {
                out.println("server metrics: " + result.serverMetricsNote());
            }
            if (saveResult) {
                String name = resultFilename != null ? resultFilename : defaultFileName(modelId);
                Files.createDirectories(resultDir);
                Path json = resultDir.resolve(name);
                Files.writeString(json, result.summary().toJson().toPrettyString());
                Path details = resultDir.resolve(name.replaceAll("\\.json$", "") + "-details");
                result.writeTo(details);
                BenchRunDirectory.writeSummary(details, name, base, result);
                out.println("Saved " + json + " and " + details);
            }
            out.flush();
            return 0;
        } catch (IllegalArgumentException e) {
            PrintWriter err = spec.commandLine().getErr();
            err.println("bench: " + e.getMessage());
            err.flush();
            return 2;
        } finally {
            client.dispatcher().executorService().shutdown();
            client.connectionPool().evictAll();
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
