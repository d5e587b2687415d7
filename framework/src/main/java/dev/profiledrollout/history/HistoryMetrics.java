package dev.profiledrollout.history;

import dev.profiledrollout.history.stats.Direction;
import dev.profiledrollout.history.stats.Measure;
import java.util.List;
import java.util.Locale;
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
 *   <tr><td>{@code kernel.top.<kernel name>.ms}</td><td>ms</td><td>lower</td><td>one of the top kernels' time</td></tr>
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
     * The metrics a {@code @RegressionCheck} checks when none are named: mean TPOT and mean E2E latency. The detection
     * study (bench/README.md, "History: detection study") found the means far steadier from run to run than the p99s on
     * a shared machine, so they flag a decode slowdown with the fewest false alarms; name the p99s explicitly to check
     * the tail.
     */
    public static final List<String> CHECKED_METRICS = List.of("tpot.mean", "e2e.mean");

    private static final Pattern LATENCY = Pattern.compile("(ttft|itl|tpot|e2e)\\.(p50|p90|p99|mean|max)");
    private static final Pattern CATEGORY = Pattern.compile("kernel\\.category\\.([A-Za-z0-9_]+)\\.ms");
    private static final Pattern PER_STEP = Pattern.compile("kernel\\.(extend|decode|mixed)\\.ms_per_step");
    private static final Pattern TOP = Pattern.compile("kernel\\.top\\.(.+)\\.ms");

    private HistoryMetrics() {
    }

    /**
     * What a metric name measures.
     *
     * @throws IllegalArgumentException for a name not in the table above, listing the known names
     */
    public static Measure measure(String metric) {
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
        m = TOP.matcher(metric);
        if (m.matches()) {
            return new Measure("kernel " + m.group(1), "ms", Direction.LOWER_IS_BETTER);
        }
        throw new IllegalArgumentException("unknown history metric \"" + metric + "\": use one of "
                + "ttft|itl|tpot|e2e.p50|p90|p99|mean|max, throughput.requests, throughput.output_tokens, "
                + "goodput.requests, errors.fraction, trace.kernel_ms, trace.gpu_busy_fraction, trace.rank_imbalance, "
                + "kernel.category.<CATEGORY>.ms, kernel.extend|decode|mixed.ms_per_step, kernel.top.<kernel name>.ms");
    }
}
