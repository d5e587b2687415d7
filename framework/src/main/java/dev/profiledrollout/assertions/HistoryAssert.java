package dev.profiledrollout.assertions;

import static org.apiguardian.api.API.Status.EXPERIMENTAL;

import dev.profiledrollout.history.HistoryMetrics;
import dev.profiledrollout.history.RunHistory;
import org.apiguardian.api.API;
import org.assertj.core.api.AbstractAssert;

/** A run against its history; choose the metric with {@link #metric(String)}. */
@API(status = EXPERIMENTAL, since = "0.1")
public final class HistoryAssert extends AbstractAssert<HistoryAssert, RunHistory> {

    public HistoryAssert(RunHistory actual) {
        super(actual, HistoryAssert.class);
    }

    /**
     * @param metric a metric name of {@link HistoryMetrics}, e.g. {@code "ttft.p99"}, {@code "throughput.output_tokens"}
     * @throws IllegalArgumentException for an unknown name, listing the known ones
     */
    public HistoryMetricAssert metric(String metric) {
        HistoryMetrics.measure(metric);
        return new HistoryMetricAssert(actual, metric);
    }
}
