package dev.profiledrollout.cli.bench;

import static org.apiguardian.api.API.Status.INTERNAL;

import dev.profiledrollout.metrics.LatencyDistribution;
import dev.profiledrollout.metrics.LatencyReport;
import dev.profiledrollout.metrics.RequestRecord;
import dev.profiledrollout.metrics.ScheduleReport;
import dev.profiledrollout.metrics.Slo;
import dev.profiledrollout.metrics.TimeSeries;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import org.apiguardian.api.API;

/**
 * A run summarised the way {@code vllm bench serve} prints and saves it ({@code docs/METRICS.md} §2): the
 * "Serving Benchmark Result" table with vLLM's row labels, and the result JSON with vLLM's keys, plus this
 * project's additions (schedule lag, schedule-corrected latency, the client-fell-behind flag, errors by kind,
 * ISL mismatch). Percentiles and means are over the raw samples with numpy's linear interpolation and
 * population standard deviation, as vLLM computes them; values in milliseconds. Immutable.
 *
 * @param backend        e.g. {@code sglang}, {@code vllm}, {@code openai-chat}; not null
 * @param model          the {@code model_id}; not null
 * @param numPrompts     requests asked for
 * @param requestRate    requests/s asked for, +∞ for {@code inf}
 * @param burstiness     vLLM's {@code --burstiness}
 * @param maxConcurrency the cap, 0 for none
 * @param latency        service-time metrics, not null
 * @param schedule       the coordinated-omission view, not null
 * @param series         the per-second series, not null
 * <p><b>Which metrics and percentiles.</b> As {@code vllm bench serve}'s {@code --percentile-metrics} and
 * {@code --metric-percentiles} ({@code vllm/benchmarks/serve.py}, {@code process_one_metric}): only the selected
 * service metrics ({@code ttft}, {@code tpot}, {@code itl}, {@code e2el}) get a section in the table and their
 * {@code mean_/median_/std_/pNN_/max_<metric>_ms} keys in the JSON; each section has Mean, Median, one row per
 * selected percentile (vLLM's {@code p_word}: {@code 99}, {@code 99.9}) and this project's Max row. This project's
 * additions (schedule lag, schedule-corrected TTFT and E2EL) are always reported, with the same percentiles.
 *
 * @param backend           e.g. {@code sglang}, {@code vllm}, {@code openai-chat}; not null
 * @param model             the {@code model_id}; not null
 * @param numPrompts        requests asked for
 * @param requestRate       requests/s asked for, +∞ for {@code inf}
 * @param burstiness        vLLM's {@code --burstiness}
 * @param maxConcurrency    the cap, 0 for none
 * @param latency           service-time metrics, not null
 * @param schedule          the coordinated-omission view, not null
 * @param series            the per-second series, not null
 * @param slo               the goodput SLO; {@code request_goodput} is null when empty; not null
 * @param percentileMetrics the service metrics reported, a non-empty subset of {@link #METRICS}; reported in vLLM's
 *                          order (ttft, tpot, itl, e2el) whatever the order given
 * @param metricPercentiles the percentiles reported for each, each in [0, 100], not empty
 */
@API(status = INTERNAL, since = "0.1")
public record BenchmarkSummary(String backend, String model, int numPrompts, double requestRate, double burstiness,
                               int maxConcurrency, LatencyReport latency, ScheduleReport schedule, TimeSeries series,
                               Slo slo, List<String> percentileMetrics, List<Double> metricPercentiles) {

    /** The percentiles a summary reports unless {@link #withPercentiles} selects others: 50, 90, 95, 99, 99.9. */
    public static final List<Double> PERCENTILES = List.of(50.0, 90.0, 95.0, 99.0, 99.9);

    /** The service metrics that can be selected, in vLLM's report order. */
    public static final List<String> METRICS = List.of("ttft", "tpot", "itl", "e2el");

    /** {@code vllm bench serve}'s default {@code --percentile-metrics} for generative models. */
    public static final List<String> VLLM_DEFAULT_METRICS = List.of("ttft", "tpot", "itl");

    /** {@code vllm bench serve}'s default {@code --metric-percentiles}. */
    public static final List<Double> VLLM_DEFAULT_PERCENTILES = List.of(99.0);

    private static final ObjectMapper JSON = new ObjectMapper();

    public BenchmarkSummary {
        Objects.requireNonNull(backend, "backend");
        Objects.requireNonNull(model, "model");
        Objects.requireNonNull(latency, "latency");
        Objects.requireNonNull(schedule, "schedule");
        Objects.requireNonNull(series, "series");
        Objects.requireNonNull(slo, "slo");
        percentileMetrics = List.copyOf(percentileMetrics);
        metricPercentiles = List.copyOf(metricPercentiles);
        if (percentileMetrics.isEmpty() || !METRICS.containsAll(percentileMetrics)) {
            throw new IllegalArgumentException("percentile metrics must be some of " + String.join(",", METRICS)
                    + ", was " + String.join(",", percentileMetrics));
        }
        if (metricPercentiles.isEmpty() || metricPercentiles.stream().anyMatch(p -> !(p >= 0 && p <= 100))) {
            throw new IllegalArgumentException("metric percentiles must be numbers in [0, 100], was "
                    + metricPercentiles);
        }
    }

    /** Every service metric, at {@link #PERCENTILES}. */
    public BenchmarkSummary(String backend, String model, int numPrompts, double requestRate, double burstiness,
                            int maxConcurrency, LatencyReport latency, ScheduleReport schedule, TimeSeries series,
                            Slo slo) {
        this(backend, model, numPrompts, requestRate, burstiness, maxConcurrency, latency, schedule, series, slo,
                METRICS, PERCENTILES);
    }

    /**
     * @param metrics     the service metrics to report (vLLM's {@code --percentile-metrics}), some of {@link #METRICS}
     * @param percentiles the percentiles to report (vLLM's {@code --metric-percentiles}), each in [0, 100]
     * @return this summary reporting those
     * @throws IllegalArgumentException naming the allowed values when either is empty or has one outside them
     */
    public BenchmarkSummary withPercentiles(List<String> metrics, List<Double> percentiles) {
        return new BenchmarkSummary(backend, model, numPrompts, requestRate, burstiness, maxConcurrency, latency,
                schedule, series, slo, metrics, percentiles);
    }

    /** @return good requests per second, or null without an SLO (vLLM's {@code request_goodput}) */
    public Double requestGoodput() {
        return slo.isEmpty() ? null : slo.requestGoodput(latency.records(), latency.duration());
    }

    /** @return successful requests whose server-reported prompt tokens differ from the requested prompt length */
    public long islMismatches() {
        return latency.records().stream().filter(r -> r.succeeded() && r.promptTokens() >= 0
                && r.inputTokensRequested() >= 0 && r.promptTokens() != r.inputTokensRequested()).count();
    }

    /** @return vLLM's console table, then the schedule-lag section and any warning */
    public String toTable() {
        StringBuilder sb = new StringBuilder();
        sb.append(center(" Serving Benchmark Result ", '=')).append('\n');
        row(sb, "Successful requests:", latency.completed());
        row(sb, "Failed requests:", latency.failed());
        if (maxConcurrency > 0) {
            row(sb, "Maximum request concurrency:", maxConcurrency);
        }
        rowText(sb, "Request rate configured (RPS):", rate(requestRate));
        row(sb, "Benchmark duration (s):", latency.duration().toNanos() / 1e9);
        row(sb, "Total input tokens:", latency.inputTokens());
        row(sb, "Total generated tokens:", latency.outputTokens());
        row(sb, "Request throughput (req/s):", latency.requestThroughput());
        if (requestGoodput() != null) {
            row(sb, "Request goodput (req/s):", requestGoodput());
        }
        row(sb, "Output token throughput (tok/s):", latency.outputTokenThroughput());
        row(sb, "Peak output token throughput (tok/s):", (double) series.maxOutputTokensPerSecond());
        row(sb, "Peak concurrent requests:", series.maxConcurrentRequests());
        row(sb, "Total Token throughput (tok/s):", latency.totalTokenThroughput());
        for (String metric : reported()) {
            switch (metric) {
                case "ttft" -> section(sb, "Time to First Token", "TTFT", latency.ttft());
                case "tpot" -> section(sb, "Time per Output Token (excl. 1st token)", "TPOT", latency.tpot());
                case "itl" -> section(sb, "Inter-token Latency", "ITL", latency.itl());
                default -> section(sb, "End-to-end Latency", "E2EL", latency.e2e());
            }
        }
        section(sb, "Schedule Lag (actual - intended send)", "lag", schedule.lag());
        section(sb, "TTFT from intended send", "corrected TTFT", schedule.correctedTtft());
        section(sb, "E2EL from intended send", "corrected E2EL", schedule.correctedE2e());
        sb.append("=".repeat(50)).append('\n');
        if (!latency.errors().isEmpty()) {
            sb.append("errors: ").append(latency.errors()).append('\n');
        }
        if (islMismatches() > 0) {
            sb.append(String.format(Locale.ROOT, "warning: %d requests: server prompt_tokens differ from the requested"
                    + " input length (vLLM/SGLang report the client-side length)%n", islMismatches()));
        }
        if (latency.requestsWithoutUsage() > 0) {
            sb.append(latency.requestsWithoutUsage()).append(" successful requests had no usage; their output tokens"
                    + " are not counted\n");
        }
        sb.append(schedule.verdict()).append('\n');
        return sb.toString();
    }

    /** @return vLLM's {@code --save-result} keys, plus {@code schedule_lag}, corrected latencies and errors */
    public ObjectNode toJson() {
        return toJson(false);
    }

    /**
     * @param detailed whether to add the per-request lists {@code vllm bench serve --save-detailed} keeps, in request
     *                 order and vLLM's units (seconds, tokens): {@code input_lens}, {@code output_lens} (0 for a
     *                 failed request), {@code ttfts}, {@code itls} (the chunk gaps of each request), {@code latencies},
     *                 {@code start_times} (seconds from the first request's send; vLLM's are
     *                 {@code time.perf_counter()} readings) and {@code errors} ({@code ""} for a success). vLLM's
     *                 {@code generated_texts} is absent: the load generator does not keep the text
     * @return vLLM's {@code --save-result} keys, plus {@code schedule_lag}, corrected latencies and errors
     */
    public ObjectNode toJson(boolean detailed) {
        ObjectNode n = JSON.createObjectNode();
        n.put("date", LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")));
        n.put("backend", backend);
        n.put("model_id", model);
        n.put("num_prompts", numPrompts);
        if (Double.isInfinite(requestRate)) {
            n.put("request_rate", "inf");
        } else {
            n.put("request_rate", requestRate);
        }
        n.put("burstiness", burstiness);
        if (maxConcurrency > 0) {
            n.put("max_concurrency", maxConcurrency);
        } else {
            n.putNull("max_concurrency");
        }
        n.put("duration", latency.duration().toNanos() / 1e9);
        n.put("completed", latency.completed());
        n.put("failed", latency.failed());
        n.put("total_input_tokens", latency.inputTokens());
        n.put("total_output_tokens", latency.outputTokens());
        n.put("request_throughput", latency.requestThroughput());
        if (requestGoodput() == null) {
            n.putNull("request_goodput");
        } else {
            n.put("request_goodput", requestGoodput());
        }
        n.put("output_throughput", latency.outputTokenThroughput());
        n.put("total_token_throughput", latency.totalTokenThroughput());
        n.put("max_output_tokens_per_s", (double) series.maxOutputTokensPerSecond());
        n.put("max_concurrent_requests", series.maxConcurrentRequests());
        for (String metric : reported()) {
            stats(n, metric, switch (metric) {
                case "ttft" -> latency.ttft();
                case "tpot" -> latency.tpot();
                case "itl" -> latency.itl();
                default -> latency.e2e();
            });
        }
        stats(n, "schedule_lag", schedule.lag());
        stats(n, "corrected_ttft", schedule.correctedTtft());
        stats(n, "corrected_e2el", schedule.correctedE2e());
        n.put("client_fell_behind", schedule.clientFellBehind());
        n.put("isl_mismatches", islMismatches());
        ObjectNode errors = n.putObject("errors_by_kind");
        latency.errors().forEach((k, v) -> errors.put(k.name(), v));
        if (detailed) {
            details(n);
        }
        return n;
    }

    /** @return the selected metrics in vLLM's report order (ttft, tpot, itl, e2el), whatever the order given */
    private List<String> reported() {
        return METRICS.stream().filter(percentileMetrics::contains).toList();
    }

    private void details(ObjectNode n) {
        List<RequestRecord> records = latency.records().stream()
                .sorted(Comparator.comparingInt(RequestRecord::index)).toList();
        long first = records.stream().mapToLong(RequestRecord::startNanos).min().orElse(0);
        ArrayNode inputLens = n.putArray("input_lens");
        ArrayNode outputLens = n.putArray("output_lens");
        ArrayNode ttfts = n.putArray("ttfts");
        ArrayNode itls = n.putArray("itls");
        ArrayNode latencies = n.putArray("latencies");
        ArrayNode startTimes = n.putArray("start_times");
        ArrayNode errors = n.putArray("errors");
        for (RequestRecord r : records) {
            inputLens.add(r.inputTokensRequested() >= 0 ? r.inputTokensRequested() : Math.max(0, r.promptTokens()));
            boolean ok = r.succeeded();
            outputLens.add(ok ? Math.max(0, r.completionTokens()) : 0);
            ttfts.add(ok ? (r.firstTokenNanos() - r.startNanos()) / 1e9 : 0.0);
            ArrayNode gaps = itls.addArray();
            long[] chunks = r.chunkNanos();
            for (int i = 1; ok && i < chunks.length; i++) {
                gaps.add((chunks[i] - chunks[i - 1]) / 1e9);
            }
            latencies.add(ok ? (r.endNanos() - r.startNanos()) / 1e9 : 0.0);
            startTimes.add((r.startNanos() - first) / 1e9);
            errors.add(ok ? "" : r.errorMessage());
        }
    }

    private void stats(ObjectNode n, String metric, LatencyDistribution d) {
        n.put("mean_" + metric + "_ms", ms(d.mean().toNanos()));
        n.put("median_" + metric + "_ms", ms(d.interpolatedPercentile(50).toNanos()));
        n.put("std_" + metric + "_ms", std(d));
        for (double p : metricPercentiles) {
            n.put("p" + label(p) + "_" + metric + "_ms", ms(d.interpolatedPercentile(p).toNanos()));
        }
        n.put("max_" + metric + "_ms", ms(d.max().toNanos()));
    }

    /** @return the population standard deviation (numpy's default, ddof = 0) in milliseconds; 0 if empty */
    static double std(LatencyDistribution d) {
        long[] v = d.valuesNanos();
        if (v.length == 0) {
            return 0;
        }
        double mean = 0;
        for (long x : v) {
            mean += x;
        }
        mean /= v.length;
        double sq = 0;
        for (long x : v) {
            sq += (x - mean) * (x - mean);
        }
        return Math.sqrt(sq / v.length) / 1e6;
    }

    private void section(StringBuilder sb, String title, String name, LatencyDistribution d) {
        sb.append(center(title, '-')).append('\n');
        row(sb, "Mean " + name + " (ms):", ms(d.mean().toNanos()));
        row(sb, "Median " + name + " (ms):", ms(d.interpolatedPercentile(50).toNanos()));
        for (double p : metricPercentiles) {
            row(sb, "P" + label(p) + " " + name + " (ms):", ms(d.interpolatedPercentile(p).toNanos()));
        }
        row(sb, "Max " + name + " (ms):", ms(d.max().toNanos()));
    }

    private static String center(String s, char c) {
        int pad = Math.max(0, 50 - s.length());
        return String.valueOf(c).repeat(pad / 2) + s + String.valueOf(c).repeat(pad - pad / 2);
    }

    private static void row(StringBuilder sb, String label, long value) {
        sb.append(String.format(Locale.ROOT, "%-40s %-10d%n", label, value));
    }

    private static void row(StringBuilder sb, String label, double value) {
        sb.append(String.format(Locale.ROOT, "%-40s %-10.2f%n", label, value));
    }

    private static void rowText(StringBuilder sb, String label, String value) {
        sb.append(String.format(Locale.ROOT, "%-40s %-10s%n", label, value));
    }

    private static String rate(double r) {
        return Double.isInfinite(r) ? "inf" : String.format(Locale.ROOT, "%.2f", r);
    }

    /** vLLM prints an integral percentile as an int: p99, p99.9. */
    static String label(double p) {
        return p == Math.rint(p) ? String.valueOf((long) p) : String.valueOf(p);
    }

    private static double ms(long nanos) {
        return nanos / 1e6;
    }
}
