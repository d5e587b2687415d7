package dev.profiledrollout.metrics;

import static org.apiguardian.api.API.Status.EXPERIMENTAL;

import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramLogWriter;

import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import org.apiguardian.api.API;

/**
 * Latency and throughput of one load run, computed from its {@link RequestRecord}s with the definitions of
 * {@code vllm bench serve} ({@code calculate_metrics}, {@code docs/METRICS.md} §1–§2). Immutable.
 *
 * <ul>
 *   <li><b>TTFT</b>: first chunk with non-empty {@code choices} − send.</li>
 *   <li><b>ITL</b>: every gap between consecutive choices chunks, pooled over all requests: chunk-weighted,
 *       so multi-token chunks make it larger than TPOT. When a record carries per-chunk token counts (SGLang
 *       {@code /generate}), each gap is split per token as SGLang's {@code bench_serving} does:
 *       {@code gap / n} repeated {@code n} times.</li>
 *   <li><b>TPOT</b>: (E2E − TTFT) / (completion tokens − 1), only for requests with more than one completion
 *       token reported by the server.</li>
 *   <li><b>E2E</b>: last choices chunk (usage chunk excluded) − send.</li>
 *   <li><b>Duration</b>: earliest {@code startNanos} → latest {@code endNanos} over all records, failures included.</li>
 * </ul>
 * Only successful records enter the latency distributions and the token sums; failures are counted per
 * {@link ErrorKind}. Output tokens come from the server's {@code usage.completion_tokens} and are never assumed
 * from {@code max_tokens}: a success without usage adds no output tokens and no TPOT sample (see
 * {@link #requestsWithoutUsage()}).
 *
 * <p>With a goodput {@link Slo} ({@link #of(List, Slo)}), a request is <em>good</em> when it succeeded and meets
 * every bound given (vLLM's {@code --goodput} AND semantics, {@code docs/METRICS.md} §2) and {@link #requestGoodput()}
 * is good requests per second of {@link #duration()} (DistServe's goodput, vLLM's {@code request_goodput}).
 */
@API(status = EXPERIMENTAL, since = "0.1")
public final class LatencyReport {

    static final String TTFT_DEFINITION = "TTFT per vLLM bench serve: first SSE chunk with non-empty choices"
            + " − request send, successful requests";
    static final String ITL_DEFINITION = "ITL per vLLM bench serve: gap between consecutive non-empty-choices chunks,"
            + " pooled over all successful requests (per chunk, not per token); for SGLang /generate, SGLang"
            + " bench_serving's per-token split: gap / n repeated n times, n = meta_info.completion_tokens delta";
    static final String TPOT_DEFINITION = "TPOT per vLLM bench serve: (E2E − TTFT) / (output tokens − 1),"
            + " requests with > 1 output token (server usage.completion_tokens)";
    static final String E2E_DEFINITION = "E2E latency per vLLM bench serve: last non-empty-choices chunk"
            + " (usage chunk excluded) − request send, successful requests";

    private final List<RequestRecord> records;
    private final LatencyDistribution ttft;
    private final LatencyDistribution itl;
    private final LatencyDistribution tpot;
    private final LatencyDistribution e2e;
    private final int completed;
    private final int failed;
    private final int withoutUsage;
    private final Map<ErrorKind, Long> errors;
    private final Duration duration;
    private final long inputTokens;
    private final long outputTokens;
    private final Slo slo;
    private final long goodRequests;
    private final String scope;

    private LatencyReport(List<RequestRecord> records, Slo slo, String scope) {
        this.scope = scope;
        this.records = List.copyOf(records);
        this.slo = slo;
        this.goodRequests = slo.goodCount(this.records);
        List<Long> ttfts = new ArrayList<>();
        List<Long> itls = new ArrayList<>();
        List<Long> tpots = new ArrayList<>();
        List<Long> e2es = new ArrayList<>();
        EnumMap<ErrorKind, Long> errorCounts = new EnumMap<>(ErrorKind.class);
        long firstStart = Long.MAX_VALUE;
        long lastEnd = Long.MIN_VALUE;
        int ok = 0;
        int noUsage = 0;
        long in = 0;
        long out = 0;
        for (RequestRecord r : this.records) {
            firstStart = Math.min(firstStart, r.startNanos());
            lastEnd = Math.max(lastEnd, r.endNanos());
            if (!r.succeeded()) {
                errorCounts.merge(r.error(), 1L, Long::sum);
                continue;
            }
            ok++;
            long[] chunks = r.chunkNanos();
            long ttftNs = chunks[0] - r.startNanos();
            long e2eNs = chunks[chunks.length - 1] - r.startNanos();
            ttfts.add(ttftNs);
            e2es.add(e2eNs);
            int[] tokens = r.chunkTokens();
            for (int i = 1; i < chunks.length; i++) {
                long gap = chunks[i] - chunks[i - 1];
                int n = tokens.length == 0 ? 1 : Math.max(1, tokens[i]);
                for (int k = 0; k < n; k++) {
                    itls.add(gap / n);
                }
            }
            if (r.completionTokens() > 1) {
                tpots.add(Math.round((double) (e2eNs - ttftNs) / (r.completionTokens() - 1)));
            }
            if (r.completionTokens() >= 0) {
                out += r.completionTokens();
            } else {
                noUsage++;
            }
            in += r.promptTokens() >= 0 ? r.promptTokens() : Math.max(0, r.inputTokensRequested());
        }
        this.ttft = LatencyDistribution.of(TTFT_DEFINITION, toArray(ttfts));
        this.itl = LatencyDistribution.of(ITL_DEFINITION, toArray(itls));
        this.tpot = LatencyDistribution.of(TPOT_DEFINITION, toArray(tpots));
        this.e2e = LatencyDistribution.of(E2E_DEFINITION, toArray(e2es));
        this.completed = ok;
        this.failed = this.records.size() - ok;
        this.withoutUsage = noUsage;
        this.errors = Collections.unmodifiableMap(errorCounts);
        this.duration = this.records.isEmpty() ? Duration.ZERO : Duration.ofNanos(Math.max(0, lastEnd - firstStart));
        this.inputTokens = in;
        this.outputTokens = out;
    }

    /**
     * @param records every record of the run, successes and failures (warm-up excluded), not null
     * @return the report
     */
    public static LatencyReport of(List<RequestRecord> records) {
        return of(records, Slo.none());
    }

    /**
     * @param records every record of the run, successes and failures (warm-up excluded), not null
     * @param slo     the goodput SLO the requests are judged against ({@link Slo#none()} for none), not null
     * @return the report, with {@link #goodRequests()} and {@link #requestGoodput()} judged against {@code slo}
     */
    public static LatencyReport of(List<RequestRecord> records, Slo slo) {
        Objects.requireNonNull(records, "records");
        Objects.requireNonNull(slo, "slo");
        return new LatencyReport(records, slo, "");
    }

    /**
     * As {@link #of(List, Slo)} followed by {@link #withScope(String)}, computed once.
     *
     * @param scope see {@link #scope()}, not null
     */
    public static LatencyReport of(List<RequestRecord> records, Slo slo, String scope) {
        Objects.requireNonNull(records, "records");
        Objects.requireNonNull(slo, "slo");
        Objects.requireNonNull(scope, "scope");
        return new LatencyReport(records, slo, scope);
    }

    /**
     * @return where these requests belong, for assertion messages and verdicts: {@code ""} for a whole run, else e.g.
     *         the phase name {@code "PREFILL"} of a phased test
     */
    public String scope() { return scope; }

    /**
     * @param newScope see {@link #scope()}, not null
     * @return the same requests and figures under {@code newScope}
     */
    public LatencyReport withScope(String newScope) {
        Objects.requireNonNull(newScope, "newScope");
        return newScope.equals(scope) ? this : new LatencyReport(records, slo, newScope);
    }

    /** @return the goodput SLO of this report; {@link Slo#isEmpty() empty} when none was set */
    public Slo slo() { return slo; }

    /**
     * @return requests that succeeded and met every bound of {@link #slo()} (with an empty SLO: every successful
     *         request); service latencies, measured from the actual send
     */
    public long goodRequests() { return goodRequests; }

    /**
     * @return good requests per second of {@link #duration()} (vLLM's {@code request_goodput}, req/s); 0 when the
     *         duration is 0. Without an SLO it equals {@link #requestThroughput()}: check {@link #slo()} first
     */
    public double requestGoodput() { return perSecond(goodRequests); }

    /** @return TTFT of successful requests */
    public LatencyDistribution ttft() { return ttft; }

    /** @return ITL: every chunk gap of successful requests, pooled */
    public LatencyDistribution itl() { return itl; }

    /** @return TPOT of successful requests with more than one completion token */
    public LatencyDistribution tpot() { return tpot; }

    /** @return E2E latency of successful requests */
    public LatencyDistribution e2e() { return e2e; }

    /** @return the number of successful requests */
    public int completed() { return completed; }

    /** @return the number of failed requests */
    public int failed() { return failed; }

    /** @return failed requests per kind; unmodifiable, kinds with no failure absent */
    public Map<ErrorKind, Long> errors() { return errors; }

    /** @return successful requests whose stream carried no {@code usage} (so no output tokens were counted) */
    public int requestsWithoutUsage() { return withoutUsage; }

    /** @return the benchmark duration: earliest send → latest end (vLLM's {@code duration}) */
    public Duration duration() { return duration; }

    /** @return completed requests per second of {@link #duration()}; 0 when the duration is 0 */
    public double requestThroughput() { return perSecond(completed); }

    /** @return output tokens per second of {@link #duration()} */
    public double outputTokenThroughput() { return perSecond(outputTokens); }

    /** @return input plus output tokens per second of {@link #duration()} */
    public double totalTokenThroughput() { return perSecond(inputTokens + outputTokens); }

    /**
     * @return Σ prompt tokens of successful requests: {@code usage.prompt_tokens} where the server sent it, else
     *         the requested prompt length
     */
    public long inputTokens() { return inputTokens; }

    /** @return Σ {@code usage.completion_tokens} of successful requests */
    public long outputTokens() { return outputTokens; }

    /** @return every record, in the order given to {@link #of(List)}; unmodifiable */
    public List<RequestRecord> records() { return records; }

    /**
     * Writes an HdrHistogram log ({@link HistogramLogWriter}): a legend, then one interval histogram per metric,
     * tagged {@code TTFT}, {@code ITL}, {@code TPOT} and {@code E2E}, spanning 0 → {@link #duration()}. Values are
     * nanoseconds; the log's max column is in milliseconds. Read back with {@code HistogramLogReader}. The
     * stream is flushed, not closed.
     *
     * @param out the destination, not null
     */
    public void writeHistogramLog(OutputStream out) {
        PrintStream print = new PrintStream(out, false, StandardCharsets.UTF_8);
        HistogramLogWriter writer = new HistogramLogWriter(print);
        writer.outputComment("Profiled Rollout latency log; values in ns; percentiles are HdrHistogram recorded values");
        writer.outputLogFormatVersion();
        writer.outputLegend();
        write(writer, "TTFT", ttft);
        write(writer, "ITL", itl);
        write(writer, "TPOT", tpot);
        write(writer, "E2E", e2e);
        print.flush();
    }

    private void write(HistogramLogWriter writer, String tag, LatencyDistribution distribution) {
        Histogram histogram = distribution.histogram();
        histogram.setTag(tag);
        histogram.setStartTimeStamp(0);
        histogram.setEndTimeStamp(duration.toMillis());
        writer.outputIntervalHistogram(histogram);
    }

    /**
     * @return a console table: one row per metric (count, mean, p50, p90, p99, max in milliseconds; percentiles
     *         are HdrHistogram recorded values; {@code none} in place of each statistic of a metric without samples,
     *         e.g. ITL and TPOT when every request had one output token), then a throughput line and an errors line
     */
    public String toTable() {
        StringBuilder sb = new StringBuilder();
        sb.append(String.format(Locale.ROOT, "%-6s | %7s | %10s | %10s | %10s | %10s | %10s%n",
                "metric", "count", "mean ms", "p50 ms", "p90 ms", "p99 ms", "max ms"));
        row(sb, "TTFT", ttft);
        row(sb, "ITL", itl);
        row(sb, "TPOT", tpot);
        row(sb, "E2E", e2e);
        sb.append(String.format(Locale.ROOT,
                "requests: %d completed, %d failed in %.3f s; throughput %.2f req/s, output %.1f tok/s, total %.1f tok/s"
                        + " (input %d tok, output %d tok)%n",
                completed, failed, duration.toNanos() / 1e9, requestThroughput(), outputTokenThroughput(),
                totalTokenThroughput(), inputTokens, outputTokens));
        if (!slo.isEmpty()) {
            sb.append(String.format(Locale.ROOT, "goodput: %.2f req/s, %d of %d requests met every SLO (%s)%n",
                    requestGoodput(), goodRequests, records.size(), String.join(" ", slo.toPairs())));
        }
        if (errors.isEmpty()) {
            sb.append("errors: none");
        } else {
            sb.append("errors: ");
            StringBuilder kinds = new StringBuilder();
            errors.forEach((kind, n) -> kinds.append(kinds.length() == 0 ? "" : ", ").append(kind).append('=').append(n));
            sb.append(kinds);
            records.stream().filter(r -> !r.succeeded()).findFirst()
                    .ifPresent(r -> sb.append("; first: #").append(r.index()).append(' ').append(r.errorMessage()));
        }
        if (withoutUsage > 0) {
            sb.append(String.format(Locale.ROOT, "%nwarning: %d successful requests had no usage chunk; their output"
                    + " tokens are not counted and they have no TPOT", withoutUsage));
        }
        return sb.toString();
    }

    private static void row(StringBuilder sb, String name, LatencyDistribution d) {
        if (d.count() == 0) {
            // 0.000 would read as a measured zero; a 1-token output simply has no ITL or TPOT
            sb.append(String.format(Locale.ROOT, "%-6s | %7d | %10s | %10s | %10s | %10s | %10s%n", name, 0,
                    "none", "none", "none", "none", "none"));
            return;
        }
        sb.append(String.format(Locale.ROOT, "%-6s | %7d | %10.3f | %10.3f | %10.3f | %10.3f | %10.3f%n", name, d.count(),
                ms(d.mean()), ms(d.percentile(50)), ms(d.percentile(90)), ms(d.percentile(99)), ms(d.max())));
    }

    private static double ms(Duration d) {
        return d.toNanos() / 1e6;
    }

    private double perSecond(double amount) {
        long ns = duration.toNanos();
        return ns == 0 ? 0.0 : amount * 1e9 / ns;
    }

    private static long[] toArray(List<Long> values) {
        long[] array = new long[values.size()];
        for (int i = 0; i < array.length; i++) {
            array[i] = values.get(i);
        }
        return array;
    }

    @Override
    public String toString() {
        return toTable();
    }
}
