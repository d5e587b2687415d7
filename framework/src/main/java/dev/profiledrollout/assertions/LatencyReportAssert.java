package dev.profiledrollout.assertions;

import static org.apiguardian.api.API.Status.EXPERIMENTAL;

import dev.profiledrollout.metrics.LatencyReport;
import dev.profiledrollout.verdict.Verdict;
import dev.profiledrollout.verdict.Verdicts;
import java.util.Locale;
import org.apiguardian.api.API;
import org.assertj.core.api.AbstractAssert;

/**
 * Assertions on a window's {@link LatencyReport}: pick a metric ({@link #ttft()}, {@link #itl()}, {@link #tpot()},
 * {@link #e2e()}), then a statistic, then a budget. Every check records a {@link Verdict} (LATENCY, THROUGHPUT or
 * GOODPUT) in the report's {@link LatencyReport#scope() scope}.
 *
 * <pre>{@code
 * assertThat(result.latency()).ttft().percentile(99).isLessThan(Duration.ofMillis(250));
 * assertThat(result.latency()).hasNoFailedRequests();
 * assertThat(result.latency()).goodput().isGreaterThan(5.0);   // needs @RolloutLoad(goodput = …)
 * assertThat(result.latency()).goodRequestFraction().isGreaterThanOrEqualTo(0.95);
 * }</pre>
 */
@API(status = EXPERIMENTAL, since = "0.1")
public final class LatencyReportAssert extends AbstractAssert<LatencyReportAssert, LatencyReport> {

    public LatencyReportAssert(LatencyReport actual) {
        super(actual, LatencyReportAssert.class);
    }

    /** Time to first token, per vLLM's {@code vllm bench serve}. */
    public LatencyMetricAssert ttft() {
        isNotNull();
        return new LatencyMetricAssert(actual.ttft(), "TTFT", "requests", actual.scope());
    }

    /** Inter-token latency: every chunk gap of every request, pooled (vLLM's definition). */
    public LatencyMetricAssert itl() {
        isNotNull();
        return new LatencyMetricAssert(actual.itl(), "ITL", "chunk gaps", actual.scope());
    }

    /** Time per output token excluding the first, per request: (E2E − TTFT) / (output tokens − 1). */
    public LatencyMetricAssert tpot() {
        isNotNull();
        return new LatencyMetricAssert(actual.tpot(), "TPOT", "requests", actual.scope());
    }

    /** End-to-end request latency. */
    public LatencyMetricAssert e2e() {
        isNotNull();
        return new LatencyMetricAssert(actual.e2e(), "E2E latency", "requests", actual.scope());
    }

    /**
     * Fails when any request failed, listing the failures by kind and the first message. Records a THROUGHPUT verdict
     * {@code "failed requests" ≤ 0} with e.g. {@code "3 of 32 requests failed {TIMEOUT=3}; first: …"} as detail.
     */
    public LatencyReportAssert hasNoFailedRequests() {
        isNotNull();
        int total = actual.completed() + actual.failed();
        String first = actual.records().stream().filter(r -> !r.succeeded()).findFirst()
                .map(r -> "request " + r.index() + ": " + r.error() + " " + r.errorMessage()).orElse("");
        String detail = actual.failed() == 0 ? "0 of " + total + " requests failed"
                : actual.failed() + " of " + total + " requests failed " + actual.errors() + "; first: " + first;
        Verdicts.check(Checks.count(Verdict.Kind.THROUGHPUT, actual.scope(), "failed requests", "≤", actual.failed(),
                0, detail, actual.failed() == 0), () -> failure("%s", Formats.scoped(actual.scope()) + detail));
        return myself;
    }

    /** Completed requests per second over the benchmark duration (a THROUGHPUT verdict). */
    public NumberBudgetAssert requestThroughput() {
        isNotNull();
        return finished(new NumberBudgetAssert(actual.requestThroughput(), Verdict.Kind.THROUGHPUT, actual.scope(),
                "request throughput", v -> String.format(Locale.ROOT, "%.2f req/s", v), actual.completed()
                + " requests in " + Formats.duration(actual.duration())));
    }

    /**
     * Output tokens per second over the benchmark duration (tokens from the server's usage; a THROUGHPUT verdict).
     */
    public NumberBudgetAssert outputTokenThroughput() {
        isNotNull();
        return finished(new NumberBudgetAssert(actual.outputTokenThroughput(), Verdict.Kind.THROUGHPUT,
                actual.scope(), "output token throughput", v -> String.format(Locale.ROOT, "%.1f tok/s", v),
                actual.outputTokens() + " output tokens in " + Formats.duration(actual.duration())));
    }

    /**
     * Request goodput in requests/s: requests that succeeded and met <em>every</em> bound of the report's
     * {@link dev.profiledrollout.metrics.Slo} (vLLM's {@code --goodput} AND semantics, {@code docs/METRICS.md} §2), per
     * second of the benchmark duration (DistServe's goodput). Fails at once when the report has no SLO
     * ({@code @RolloutLoad(goodput = …)}, {@code LatencyReport.of(records, slo)}). A failure reads e.g.
     * {@code request goodput (SLO ttft:250 tpot:20) was 3.10 req/s, budget > 5.00 req/s (-38.0%); 12 of 32 requests
     * met every SLO in 3.87 s}. Records a GOODPUT verdict.
     */
    public NumberBudgetAssert goodput() {
        requireSlo();
        return finished(new NumberBudgetAssert(actual.requestGoodput(), Verdict.Kind.GOODPUT, actual.scope(),
                "request goodput (SLO " + sloText() + ")", v -> String.format(Locale.ROOT, "%.2f req/s", v),
                goodContext()));
    }

    /** The number of requests that met every bound of the report's SLO (a GOODPUT verdict); see {@link #goodput()}. */
    public NumberBudgetAssert goodRequests() {
        requireSlo();
        return finished(new NumberBudgetAssert(actual.goodRequests(), Verdict.Kind.GOODPUT, actual.scope(),
                "good requests (SLO " + sloText() + ")", v -> String.format(Locale.ROOT, "%.0f", v), goodContext()));
    }

    /**
     * The fraction (0..1) of all requests sent, failed ones included, that succeeded and met every bound of the
     * report's SLO (a GOODPUT verdict, printed as a percentage); see {@link #goodput()}. For example
     * {@code assertThat(result.latency()).goodRequestFraction().isGreaterThanOrEqualTo(0.95)}.
     */
    public NumberBudgetAssert goodRequestFraction() {
        requireSlo();
        int sent = actual.records().size();
        double fraction = sent == 0 ? 0 : (double) actual.goodRequests() / sent;
        return finished(new NumberBudgetAssert(fraction, Verdict.Kind.GOODPUT, actual.scope(),
                "good-request fraction (SLO " + sloText() + ")", Formats::percent, goodContext()));
    }

    /**
     * A rate or count over the finished requests proves nothing when none finished: the budget then fails whatever
     * it is (a goodput floor of 0 included), saying how many were sent and how they failed.
     */
    private NumberBudgetAssert finished(NumberBudgetAssert budget) {
        if (actual.completed() > 0) {
            return budget;
        }
        int sent = actual.records().size();
        return budget.withoutData(sent == 0 ? "no request was sent"
                : "no request finished: " + sent + " sent, " + actual.failed() + " failed " + actual.errors());
    }

    /** Goodput needs an SLO: without one, fails at once (even with soft budgets) and says how to set it. */
    private void requireSlo() {
        isNotNull();
        String fix = "no goodput SLO set: add @RolloutLoad(goodput = {\"ttft:MS\", \"tpot:MS\", \"e2el:MS\"}) or build"
                + " the report with LatencyReport.of(records, Slo.parse(...))";
        Verdicts.require(Checks.count(Verdict.Kind.GOODPUT, actual.scope(), "goodput SLO bounds", "≥",
                actual.slo().toPairs().size(), 1, fix, !actual.slo().isEmpty()), false,
                () -> failure("%s", Formats.scoped(actual.scope()) + fix));
    }

    private String sloText() {
        return String.join(" ", actual.slo().toPairs());
    }

    private String goodContext() {
        return actual.goodRequests() + " of " + actual.records().size() + " requests met every SLO in "
                + Formats.duration(actual.duration());
    }
}
