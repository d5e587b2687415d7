package dev.profiledrollout.metrics;

import static org.apiguardian.api.API.Status.EXPERIMENTAL;

import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramLogWriter;

import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import org.apiguardian.api.API;

/**
 * The coordinated-omission view of a run ({@code docs/METRICS.md} §6): schedule lag
 * ({@code actual send − intended send}) as its own distribution, and TTFT and E2E latency measured from the
 * <em>intended</em> send time beside the service-time values of {@link LatencyReport}. Immutable.
 *
 * <p>The run is flagged "the client, not the server, fell behind" when the lag's p99 exceeds the budget
 * (default {@value #DEFAULT_LAG_BUDGET_MS} ms, inference-perf's median target tightened to p99) or when more than
 * the allowed fraction of requests (default 1 %, perf_analyzer's {@code DELAY_PCT_THRESHOLD}) were sent later
 * than the budget. In a closed loop the intended time is the actual send, so the lag is 0 and nothing is flagged.
 * No HdrHistogram expected-interval correction is applied: measuring from the intended time already corrects.
 *
 * <p>The lag percentiles of the flag and of {@link #verdict()} are {@link #lagPercentile(double)}: numpy's linear
 * interpolation over the raw samples, the same values the CLI's {@code BenchmarkSummary} table and result JSON print, so a
 * run shows one p99 lag wherever it is printed.
 */
@API(status = EXPERIMENTAL, since = "0.1")
public final class ScheduleReport {

    /** Default lag budget, in milliseconds. */
    public static final long DEFAULT_LAG_BUDGET_MS = 10;
    /** Default fraction of requests allowed to exceed the lag budget. */
    public static final double DEFAULT_DELAYED_FRACTION = 0.01;

    static final String LAG_DEFINITION = "schedule lag: actual send − intended send (System.nanoTime), every sent request";
    static final String TTFT_DEFINITION = "schedule-corrected TTFT: first non-empty chunk − intended send, successful requests";
    static final String E2E_DEFINITION = "schedule-corrected E2E latency: last chunk − intended send, successful requests";

    private final LatencyDistribution lag;
    private final LatencyDistribution correctedTtft;
    private final LatencyDistribution correctedE2e;
    private final Duration lagBudget;
    private final double delayedFractionBudget;
    private final long delayed;

    private ScheduleReport(List<RequestRecord> records, Duration lagBudget, double delayedFractionBudget) {
        this.lagBudget = Objects.requireNonNull(lagBudget, "lagBudget");
        this.delayedFractionBudget = delayedFractionBudget;
        List<Long> lags = new ArrayList<>();
        List<Long> ttfts = new ArrayList<>();
        List<Long> e2es = new ArrayList<>();
        long over = 0;
        for (RequestRecord r : records) {
            long lagNs = r.scheduleLagNanos();
            lags.add(lagNs);
            if (lagNs > lagBudget.toNanos()) {
                over++;
            }
            if (r.succeeded()) {
                ttfts.add(r.firstTokenNanos() - r.intendedNanos());
                e2es.add(r.endNanos() - r.intendedNanos());
            }
        }
        this.delayed = over;
        this.lag = LatencyDistribution.of(LAG_DEFINITION, toArray(lags));
        this.correctedTtft = LatencyDistribution.of(TTFT_DEFINITION, toArray(ttfts));
        this.correctedE2e = LatencyDistribution.of(E2E_DEFINITION, toArray(e2es));
    }

    /** With the default budget: p99 lag ≤ 10 ms and at most 1 % of requests later than 10 ms. */
    public static ScheduleReport of(List<RequestRecord> records) {
        return of(records, Duration.ofMillis(DEFAULT_LAG_BUDGET_MS), DEFAULT_DELAYED_FRACTION);
    }

    /**
     * @param records               the run's records (warm-up excluded), not null
     * @param lagBudget             the lag above which a request counts as delayed, not null
     * @param delayedFractionBudget the fraction of delayed requests tolerated, in [0, 1]
     */
    public static ScheduleReport of(List<RequestRecord> records, Duration lagBudget, double delayedFractionBudget) {
        Objects.requireNonNull(records, "records");
        if (!(delayedFractionBudget >= 0 && delayedFractionBudget <= 1)) {
            throw new IllegalArgumentException("delayedFractionBudget must be in [0, 1], was " + delayedFractionBudget);
        }
        return new ScheduleReport(records, lagBudget, delayedFractionBudget);
    }

    /** @return schedule lag of every sent request: actual − intended send */
    public LatencyDistribution lag() { return lag; }

    /** @return TTFT from the intended send time (includes the wait for a connection or a thread) */
    public LatencyDistribution correctedTtft() { return correctedTtft; }

    /** @return E2E latency from the intended send time */
    public LatencyDistribution correctedE2e() { return correctedE2e; }

    /**
     * @param p the percentile, 0 to 100
     * @return the schedule lag at {@code p}, numpy's linear interpolation over every sent request's lag
     *         ({@link LatencyDistribution#interpolatedPercentile(double)}); {@link Duration#ZERO} without requests
     * @throws IllegalArgumentException when p is outside [0, 100]
     */
    public Duration lagPercentile(double p) {
        return lag.interpolatedPercentile(p);
    }

    /** @return requests sent later than the lag budget */
    public long delayedRequests() { return delayed; }

    /** @return true when the client fell behind its schedule beyond the budget: its latencies are suspect */
    public boolean clientFellBehind() {
        return lag.count() > 0 && (lagPercentile(99).compareTo(lagBudget) > 0
                || (double) delayed / lag.count() > delayedFractionBudget);
    }

    /** @return one line for a person: the lag percentiles and, when flagged, the warning */
    public String verdict() {
        String figures = String.format(Locale.ROOT, "schedule lag p50 %.3f ms, p99 %.3f ms, max %.3f ms; %d of %d"
                        + " requests later than %d ms", lagPercentile(50).toNanos() / 1e6,
                lagPercentile(99).toNanos() / 1e6, lag.max().toNanos() / 1e6, delayed, lag.count(),
                lagBudget.toMillis());
        return clientFellBehind()
                ? "WARNING: the client, not the server, fell behind its schedule (" + figures + "); service"
                + " latencies understate what users would see, read the schedule-corrected ones"
                : figures;
    }

    /**
     * Writes an HdrHistogram log with one interval histogram per distribution, tagged {@code LAG},
     * {@code CORRECTED_TTFT} and {@code CORRECTED_E2E}; values in nanoseconds. The stream is flushed, not closed.
     *
     * @param out the destination, not null
     */
    public void writeHistogramLog(OutputStream out) {
        PrintStream print = new PrintStream(out, false, StandardCharsets.UTF_8);
        HistogramLogWriter writer = new HistogramLogWriter(print);
        writer.outputComment("Profiled Rollout schedule log; values in ns; lag = actual - intended send");
        writer.outputLogFormatVersion();
        writer.outputLegend();
        for (Object[] tagged : new Object[][] {{"LAG", lag}, {"CORRECTED_TTFT", correctedTtft},
                {"CORRECTED_E2E", correctedE2e}}) {
            Histogram h = ((LatencyDistribution) tagged[1]).histogram();
            h.setTag((String) tagged[0]);
            h.setStartTimeStamp(0);
            h.setEndTimeStamp(0);
            writer.outputIntervalHistogram(h);
        }
        print.flush();
    }

    private static long[] toArray(List<Long> values) {
        return values.stream().mapToLong(Long::longValue).toArray();
    }

    @Override
    public String toString() {
        return verdict();
    }
}
