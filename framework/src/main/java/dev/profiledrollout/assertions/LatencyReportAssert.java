package dev.profiledrollout.assertions;

import static org.apiguardian.api.API.Status.EXPERIMENTAL;

import dev.profiledrollout.metrics.LatencyReport;
import java.util.Locale;
import org.apiguardian.api.API;
import org.assertj.core.api.AbstractAssert;

/**
 * Assertions on a window's {@link LatencyReport}: pick a metric ({@link #ttft()}, {@link #itl()}, {@link #tpot()},
 * {@link #e2e()}), then a statistic, then a budget.
 *
 * <pre>{@code
 * assertThat(result.latency()).ttft().percentile(99).isLessThan(Duration.ofMillis(250));
 * assertThat(result.latency()).hasNoFailedRequests();
 * assertThat(result.latency()).goodput().isGreaterThan(5.0);   // needs @RolloutLoad(goodput = …)
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
        return new LatencyMetricAssert(actual.ttft(), "TTFT", "requests");
    }

    /** Inter-token latency: every chunk gap of every request, pooled (vLLM's definition). */
    public LatencyMetricAssert itl() {
        isNotNull();
        return new LatencyMetricAssert(actual.itl(), "ITL", "chunk gaps");
    }

    /** Time per output token excluding the first, per request: (E2E − TTFT) / (output tokens − 1). */
    public LatencyMetricAssert tpot() {
        isNotNull();
        return new LatencyMetricAssert(actual.tpot(), "TPOT", "requests");
    }

    /** End-to-end request latency. */
    public LatencyMetricAssert e2e() {
        isNotNull();
        return new LatencyMetricAssert(actual.e2e(), "E2E latency", "requests");
    }

    /** Fails when any request failed, listing the failures by kind and the first message. */
    public LatencyReportAssert hasNoFailedRequests() {
        isNotNull();
        if (actual.failed() > 0) {
            String first = actual.records().stream().filter(r -> !r.succeeded()).findFirst()
                    .map(r -> "request " + r.index() + ": " + r.error() + " " + r.errorMessage()).orElse("");
            failWithMessage("%s", actual.failed() + " of " + (actual.completed() + actual.failed())
                    + " requests failed " + actual.errors() + "; first: " + first);
        }
        return myself;
    }

    /** Completed requests per second over the benchmark duration. */
    public NumberBudgetAssert requestThroughput() {
        isNotNull();
        return new NumberBudgetAssert(actual.requestThroughput(), "request throughput",
                v -> String.format(Locale.ROOT, "%.2f req/s", v), actual.completed() + " requests in "
                        + Formats.duration(actual.duration()));
    }

    /** Output tokens per second over the benchmark duration (tokens from the server's usage). */
    public NumberBudgetAssert outputTokenThroughput() {
        isNotNull();
        return new NumberBudgetAssert(actual.outputTokenThroughput(), "output token throughput",
                v -> String.format(Locale.ROOT, "%.1f tok/s", v), actual.outputTokens() + " output tokens in "
                        + Formats.duration(actual.duration()));
    }

    /**
     * Request goodput in requests/s: requests that succeeded and met <em>every</em> bound of the report's
     * {@link dev.profiledrollout.metrics.Slo} (vLLM's {@code --goodput} AND semantics, {@code docs/METRICS.md} §2), per
     * second of the benchmark duration (DistServe's goodput). Fails at once when the report has no SLO
     * ({@code @RolloutLoad(goodput = …)}, {@code LatencyReport.of(records, slo)}). A failure reads e.g.
     * {@code request goodput (SLO ttft:250 tpot:20) was 3.10 req/s, budget > 5.00 req/s (-38.0%); 12 of 32 requests
     * met every SLO in 3.87 s}.
     */
    public NumberBudgetAssert goodput() {
        requireSlo();
        return new NumberBudgetAssert(actual.requestGoodput(), "request goodput (SLO " + sloText() + ")",
                v -> String.format(Locale.ROOT, "%.2f req/s", v), goodContext());
    }

    /** The number of requests that met every bound of the report's SLO; see {@link #goodput()}. */
    public NumberBudgetAssert goodRequests() {
        requireSlo();
        return new NumberBudgetAssert(actual.goodRequests(), "good requests (SLO " + sloText() + ")",
                v -> String.format(Locale.ROOT, "%.0f", v), goodContext());
    }

    private void requireSlo() {
        isNotNull();
        if (actual.slo().isEmpty()) {
            failWithMessage("%s", "no goodput SLO set: add @RolloutLoad(goodput = {\"ttft:MS\", \"tpot:MS\","
                    + " \"e2el:MS\"}) or build the report with LatencyReport.of(records, Slo.parse(...))");
        }
    }

    private String sloText() {
        return String.join(" ", actual.slo().toPairs());
    }

    private String goodContext() {
        return actual.goodRequests() + " of " + actual.records().size() + " requests met every SLO in "
                + Formats.duration(actual.duration());
    }
}
