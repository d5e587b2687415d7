package dev.profiledrollout.history;

import dev.profiledrollout.history.stats.Direction;
import dev.profiledrollout.history.stats.Measure;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apiguardian.api.API;

/**
 * The metric names a run is recorded under, with their display names, units and which way is better.
 *
 * <table>
 *   <caption>Metric names</caption>
 *   <tr><th>name</th><th>unit</th><th>better</th><th>what</th></tr>
 *   <tr><td>{@code ttft|itl|tpot|e2e.p50|p90|p99|mean|max}</td><td>ms</td><td>lower</td>
 *       <td>latency percentiles of the run's requests (docs/METRICS.md §1)</td></tr>
 *   <tr><td>{@code throughput.requests}</td><td>req/s</td><td>higher</td><td>completed requests per second</td></tr>
 *   <tr><td>{@code throughput.output_tokens}</td><td>tok/s</td><td>higher</td><td>output tokens per second</td></tr>
 *   <tr><td>{@code goodput.requests}</td><td>req/s</td><td>higher</td><td>requests meeting the SLO per second</td></tr>
 *   <tr><td>{@code errors.fraction}</td><td></td><td>lower</td><td>failed / sent requests</td></tr>
 *   <tr><td>{@code trace.kernel_ms}</td><td>ms</td><td>lower</td><td>kernel time summed over ranks</td></tr>
 *   <tr><td>{@code trace.gpu_busy_fraction}</td><td></td><td>higher</td><td>GPU busy time / trace span</td></tr>
 *   <tr><td>{@code trace.rank_imbalance}</td><td></td><td>lower</td><td>slowest / mean rank busy time</td></tr>
 *   <tr><td>{@code kernel.category.<CATEGORY>.ms}</td><td>ms</td><td>lower</td><td>kernel time of a category</td></tr>
 *   <tr><td>{@code kernel.<STEP KIND>.ms_per_step}</td><td>ms</td><td>lower</td>
 *       <td>kernel time per engine step of one kind ({@code extend}, {@code decode}, {@code mixed})</td></tr>
 *   <tr><td>{@code kernel.decode.ms_per_step.bs<lo>-<hi>}</td><td>ms</td><td>lower</td>
 *       <td>kernel time per DECODE step of a batch size in {@code [lo, hi]} ({@link #batchBucket})</td></tr>
 *   <tr><td>{@code step.decode.interval_ms.bs<lo>-<hi>}</td><td>ms</td><td>lower</td>
 *       <td>median start-to-start interval from a DECODE step of a batch size in {@code [lo, hi]} to the next step
 *       on the same rank, from the trace's step annotations: the step's host and GPU time and the host time before
 *       the next ({@link #decodeIntervalMetric})</td></tr>
 *   <tr><td>{@code kernel.extend.us_per_token.at1k}</td><td>µs</td><td>lower</td>
 *       <td>GPU time per token of a 1,024-token prefill step, from a line fitted through the run's prefill steps
 *       ({@link #PREFILL_US_PER_TOKEN_FIT})</td></tr>
 *   <tr><td>{@code kernel.extend.us_per_token}</td><td>µs</td><td>lower</td>
 *       <td>kernel time of the prefill steps per prompt token</td></tr>
 *   <tr><td>{@code kernel.K<8 hex digits>.ms}</td><td>ms</td><td>lower</td><td>one of the top kernels' time: the id
 *       is {@link #kernelMetric} of the kernel's name, the store keeps the names
 *       ({@link HistoryStore#kernelNames()}); stores written before 0.1 named it {@code kernel.top.<kernel name>.ms}
 *       and are migrated when opened</td></tr>
 * </table>
 */
@API(status = API.Status.EXPERIMENTAL)
public final class HistoryMetrics {

    /** The latency distributions whose histograms are stored. */
    public static final List<String> DISTRIBUTIONS = List.of("ttft", "itl", "tpot", "e2e");

    /** The metrics a regression check looks at when none are named: the tail latencies and the throughput. */
    public static final List<String> KEY_METRICS = List.of("ttft.p99", "itl.p99", "tpot.p99", "e2e.p99",
            "throughput.output_tokens");

    /**
     * The metrics a {@code @RegressionCheck} checks when none are named, chosen by the detection study (bench/README.md,
     * "History: detection study"; {@code bench/history-study} and its {@code replay}): mean TPOT and mean E2E latency
     * (the client's view, by the relative floor alone by default, {@link HistoryThreshold#FLOOR_ONLY}), and, when the run
     * has a trace, the GPU time per decode step in each batch-size bucket ({@link #DECODE_BUCKETS}), the GPU time per
     * prefill token in a 1,024-token step ({@link #PREFILL_US_PER_TOKEN_FIT}) and the engine's decode step interval in
     * each bucket ({@link #DECODE_INTERVAL_BUCKETS}), which sees host time between steps that kernel times do not. The
     * trace's figures carry the GPU's and the engine host's noise, not the load generator's machine's, and are
     * normalised so that another batch mix does not read as a change. Name the p99s explicitly to check the tail.
     */
    public static final List<String> CHECKED_METRICS = List.of("tpot.mean", "e2e.mean",
            "kernel.decode.ms_per_step.bs*", "kernel.extend.us_per_token.at1k", "step.decode.interval_ms.bs*");

    /**
     * GPU µs per prefill token at a fixed step size, so that another mix of small and large prefill steps does not
     * read as a change: the least-squares line of each prefill (EXTEND) step's kernel time against its tokens, over
     * the run's steps, evaluated at {@link #PREFILL_REFERENCE_TOKENS} and divided by it. A step's cost is about linear
     * in its tokens (the GEMMs; attention adds a term in the square of the prompt length that a line only follows over
     * a limited range) plus a fixed part (launches, small kernels), which is why the plain ratio
     * {@link #PREFILL_US_PER_TOKEN} moves with the mix: on the simulator, 51 µs per token in a 128-token step against
     * 24 in an 896-token one.
     */
    public static final String PREFILL_US_PER_TOKEN_FIT = "kernel.extend.us_per_token.at1k";

    /** The step size {@link #PREFILL_US_PER_TOKEN_FIT} is evaluated at: 1,024 tokens. */
    public static final int PREFILL_REFERENCE_TOKENS = 1024;

    /**
     * GPU µs per prefill token: Σ kernel time of the prefill (EXTEND) steps / Σ their prompt tokens, per rank. It
     * depends on the run's mix of step sizes; {@link #PREFILL_US_PER_TOKEN_FIT} does not.
     */
    public static final String PREFILL_US_PER_TOKEN = "kernel.extend.us_per_token";

    /**
     * The family of decode-step metrics by batch-size bucket; in a list of metrics to check it stands for every
     * bucket the current run has ({@link #expand}).
     */
    public static final String DECODE_BUCKETS = "kernel.decode.ms_per_step.bs*";

    /**
     * The family of decode step-interval metrics by batch-size bucket ({@link #decodeIntervalMetric}); in a list of
     * metrics to check it stands for every bucket the current run has ({@link #expand}).
     */
    public static final String DECODE_INTERVAL_BUCKETS = "step.decode.interval_ms.bs*";

    private static final Pattern INTERVAL = Pattern.compile("step\\.decode\\.interval_ms\\.bs(\\d+)(?:-(\\d+))?");
    private static final Pattern LATENCY = Pattern.compile("(ttft|itl|tpot|e2e)\\.(p50|p90|p99|mean|max)");
    private static final Pattern CATEGORY = Pattern.compile("kernel\\.category\\.([A-Za-z0-9_]+)\\.ms");
    private static final Pattern PER_STEP = Pattern.compile("kernel\\.(extend|decode|mixed)\\.ms_per_step");
    private static final Pattern TOP = Pattern.compile("kernel\\.top\\.(.+)\\.ms");
    private static final Pattern KERNEL = Pattern.compile("kernel\\.K([0-9a-f]{8})\\.ms");
    private static final Pattern BUCKET = Pattern.compile("kernel\\.decode\\.ms_per_step\\.bs(\\d+)(?:-(\\d+))?");

    /**
     * The power-of-two bucket of a decode batch size: its lower end, 1, 2, 4, 8, … (bucket {@code [2^k, 2^(k+1) − 1]}).
     * Within one bucket a decode step's kernel time hardly depends on the batch size on a memory-bound decode (the
     * weights are read once per step whatever the batch), so runs with another batch mix compare like with like.
     *
     * @param batchSize at least 1
     */
    public static int batchBucket(int batchSize) {
        if (batchSize < 1) {
            throw new IllegalArgumentException("batch size must be at least 1, was " + batchSize);
        }
        return Integer.highestOneBit(batchSize);
    }

    /** {@code kernel.decode.ms_per_step.bs1}, {@code …bs2-3}, {@code …bs4-7}: the metric of a {@link #batchBucket}. */
    public static String decodeBucketMetric(int bucket) {
        return "kernel.decode.ms_per_step.bs" + (bucket == 1 ? "1" : bucket + "-" + (2 * bucket - 1));
    }

    /**
     * {@code step.decode.interval_ms.bs1}, {@code …bs2-3}, …: the engine's median time from a DECODE step of that
     * {@link #batchBucket} to the next step on the same rank, start to start, in ms. Unlike the kernel metrics it also
     * sees host time (scheduling, sampling, launches) between and inside steps, measured on the engine's clock rather
     * than the client's, so the load generator's machine does not add its noise.
     */
    public static String decodeIntervalMetric(int bucket) {
        return "step.decode.interval_ms.bs" + (bucket == 1 ? "1" : bucket + "-" + (2 * bucket - 1));
    }

    /**
     * The metrics to check: each name as it is, except {@link #DECODE_BUCKETS} and {@link #DECODE_INTERVAL_BUCKETS},
     * which become every metric of that family in {@code available} (smallest bucket first).
     *
     * @param metrics   names, possibly with {@link #DECODE_BUCKETS}
     * @param available the current run's metric names
     */
    public static List<String> expand(List<String> metrics, java.util.Collection<String> available) {
        java.util.List<String> out = new java.util.ArrayList<>();
        for (String m : metrics) {
            Pattern family = m.equals(DECODE_BUCKETS) ? BUCKET : m.equals(DECODE_INTERVAL_BUCKETS) ? INTERVAL : null;
            if (family == null) {
                out.add(m);
                continue;
            }
            available.stream().filter(a -> family.matcher(a).matches())
                    .sorted(java.util.Comparator.comparingInt(a -> {
                        Matcher x = family.matcher(a);
                        x.matches();
                        return Integer.parseInt(x.group(1));
                    })).forEach(out::add);
        }
        return out;
    }

    private HistoryMetrics() {
    }

    /**
     * What a metric name measures.
     *
     * @throws IllegalArgumentException for a name not in the table above, listing the known names
     */
    public static Measure measure(String metric) {
        Optional<Measure> staged = StageMetrics.measure(metric);
        if (staged.isPresent()) {
            return staged.get();
        }
        Matcher m = LATENCY.matcher(metric);
        if (m.matches()) {
            String stat = m.group(2);
            return new Measure(stat + " " + m.group(1).toUpperCase(Locale.ROOT), "ms", Direction.LOWER_IS_BETTER);
        }
        switch (metric) {
            case "throughput.requests":
                return new Measure("request throughput", "req/s", Direction.HIGHER_IS_BETTER);
            case "throughput.output_tokens":
                return new Measure("output token throughput", "tok/s", Direction.HIGHER_IS_BETTER);
            case "goodput.requests":
                return new Measure("request goodput", "req/s", Direction.HIGHER_IS_BETTER);
            case "errors.fraction":
                return new Measure("error fraction", "", Direction.LOWER_IS_BETTER);
            case "trace.kernel_ms":
                return new Measure("kernel time", "ms", Direction.LOWER_IS_BETTER);
            case "trace.gpu_busy_fraction":
                return new Measure("GPU busy fraction", "", Direction.HIGHER_IS_BETTER);
            case "trace.rank_imbalance":
                return new Measure("rank imbalance", "", Direction.LOWER_IS_BETTER);
            default:
                break;
        }
        m = CATEGORY.matcher(metric);
        if (m.matches()) {
            return new Measure(m.group(1) + " kernel time", "ms", Direction.LOWER_IS_BETTER);
        }
        m = PER_STEP.matcher(metric);
        if (m.matches()) {
            return new Measure("kernel time per " + m.group(1).toUpperCase(Locale.ROOT) + " step", "ms",
                    Direction.LOWER_IS_BETTER);
        }
        m = BUCKET.matcher(metric);
        if (m.matches() || metric.equals(DECODE_BUCKETS)) {
            return new Measure("GPU time per DECODE step, batch " + (m.matches() ? m.group(1)
                    + (m.group(2) == null ? "" : "–" + m.group(2)) : "size buckets"), "ms", Direction.LOWER_IS_BETTER);
        }
        m = INTERVAL.matcher(metric);
        if (m.matches() || metric.equals(DECODE_INTERVAL_BUCKETS)) {
            return new Measure("DECODE step interval, batch " + (m.matches() ? m.group(1)
                    + (m.group(2) == null ? "" : "–" + m.group(2)) : "size buckets"), "ms", Direction.LOWER_IS_BETTER);
        }
        if (metric.equals(PREFILL_US_PER_TOKEN_FIT)) {
            return new Measure("GPU time per prefill token in a 1,024-token step (fit)", "µs",
                    Direction.LOWER_IS_BETTER);
        }
        if (metric.equals(PREFILL_US_PER_TOKEN)) {
            return new Measure("GPU time per prefill token", "µs", Direction.LOWER_IS_BETTER);
        }
        m = KERNEL.matcher(metric);
        if (m.matches()) {
            return new Measure("kernel K" + m.group(1), "ms", Direction.LOWER_IS_BETTER);
        }
        m = TOP.matcher(metric);
        if (m.matches()) {
            return new Measure("kernel " + m.group(1), "ms", Direction.LOWER_IS_BETTER);
        }
        throw new IllegalArgumentException("unknown history metric \"" + metric + "\": use one of "
                + "ttft|itl|tpot|e2e.p50|p90|p99|mean|max, throughput.requests, throughput.output_tokens, "
                + "goodput.requests, errors.fraction, trace.kernel_ms, trace.gpu_busy_fraction, trace.rank_imbalance, "
                + "kernel.category.<CATEGORY>.ms, kernel.extend|decode|mixed.ms_per_step, "
                + "kernel.decode.ms_per_step.bs<lo>-<hi> (or bs* for every bucket), kernel.extend.us_per_token, "
                + "kernel.extend.us_per_token.at1k, step.decode.interval_ms.bs<lo>-<hi> (or bs*), "
                + "kernel.K<8 hex digits>.ms (`history show ID` lists a run's metrics), capacity.request_rate,"
                + " capacity.concurrency, stage.c<N>|r<RATE>.throughput.requests|goodput.requests|ttft.p99|tpot.p99"
                + "|lag.p99");
    }

    /**
     * The metric id of one top kernel's time: {@code kernel.K} + the first 8 hex digits of the SHA-256 of the
     * kernel's full name (UTF-8) + {@code .ms}, e.g. {@code kernel.K3f2a9c01.ms}. Short, and the same for the same
     * name in every run and every store; the store keeps the id → name legend ({@link HistoryStore#kernelNames()}).
     *
     * @param kernelName the kernel's full name as the trace gives it, not null
     * @return the id, 19 characters
     */
    public static String kernelMetric(String kernelName) {
        java.util.Objects.requireNonNull(kernelName, "kernelName");
        try {
            byte[] digest = java.security.MessageDigest.getInstance("SHA-256")
                    .digest(kernelName.getBytes(java.nio.charset.StandardCharsets.UTF_8));
            return "kernel.K" + java.util.HexFormat.of().formatHex(digest, 0, 4) + ".ms";
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform has SHA-256", e);
        }
    }

    /**
     * The metric id a name stands for: an old top-kernel id {@code kernel.top.<kernel name>.ms} (stores and
     * annotations from before the short ids) becomes {@link #kernelMetric} of the name; any other name is returned
     * as it is.
     */
    public static String canonical(String metric) {
        Matcher m = TOP.matcher(metric);
        return m.matches() ? kernelMetric(m.group(1)) : metric;
    }

    /**
     * Whether a metric is taken from the engine's trace ({@code trace.*}, {@code kernel.*}, {@code step.*}) rather than
     * from the client's requests: its noise is the GPU's and the engine host's, not the load generator's machine's.
     */
    public static boolean fromTrace(String metric) {
        return metric.startsWith("kernel.") || metric.startsWith("trace.") || metric.startsWith("step.");
    }

    /** Whether a metric id is a top kernel's ({@link #kernelMetric}). */
    public static boolean isKernelMetric(String metric) {
        return KERNEL.matcher(metric).matches();
    }
}
