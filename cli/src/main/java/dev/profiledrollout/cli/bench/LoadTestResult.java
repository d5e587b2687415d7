package dev.profiledrollout.cli.bench;

import static org.apiguardian.api.API.Status.EXPERIMENTAL;

import dev.profiledrollout.load.ArrivalProcess;
import dev.profiledrollout.load.Endpoint;
import dev.profiledrollout.load.LoadSpec;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.profiledrollout.metrics.LatencyReport;
import dev.profiledrollout.metrics.RequestLog;
import dev.profiledrollout.metrics.RequestRecord;
import dev.profiledrollout.metrics.ScheduleReport;
import dev.profiledrollout.metrics.Slo;
import dev.profiledrollout.metrics.TimeSeries;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apiguardian.api.API;

/**
 * What a {@link LoadTest} measured: service latency ({@link #latency()}), the coordinated-omission view
 * ({@link #schedule()}), the per-second series, server metrics scraped during the run, and vLLM's summary.
 * Immutable.
 *
 * @param spec          the load sent
 * @param endpoint      where it was sent
 * @param backend       the label for the result
 * @param model         the {@code model} field
 * @param warmup        warm-up records, excluded from every metric
 * @param latency       service-time metrics (from the actual send), as vLLM and SGLang report them
 * @param schedule      schedule lag and latency from the intended send
 * @param series        per-second throughput and in-flight requests
 * @param slo           the goodput SLO (may be empty)
 * @param serverMetrics {@code sglang:}/{@code vllm:} samples scraped during the run; empty when not scraped or
 *                      not served
 * @param serverMetricsNote why scraping stopped early, or empty
 */
@API(status = EXPERIMENTAL, since = "0.1")
public record LoadTestResult(LoadSpec spec, Endpoint endpoint, String backend, String model,
                             List<RequestRecord> warmup, LatencyReport latency, ScheduleReport schedule,
                             TimeSeries series, Slo slo, List<MetricsScraper.Point> serverMetrics,
                             String serverMetricsNote) {

    /** @return the run in {@code vllm bench serve}'s table and JSON shapes */
    public BenchmarkSummary summary() {
        ArrivalProcess a = spec.arrival();
        return new BenchmarkSummary(backend, model, spec.requests(), a.requestRate(), a.burstiness(),
                a.isClosedLoop() ? 0 : spec.maxInFlight(), latency, schedule, series, slo);
    }

    /**
     * Writes {@code requests.jsonl} ({@link RequestLog}), {@code latency.hlog} (TTFT, ITL, TPOT, E2E),
     * {@code schedule.hlog} (LAG, CORRECTED_TTFT, CORRECTED_E2E), {@code timeseries.csv},
     * {@code server_metrics.jsonl} (one {@code {"tNs","name","labels","value"}} per scraped sample) and
     * {@code result.json} (vLLM's keys) into {@code directory}, creating it.
     *
     * @throws UncheckedIOException when a file cannot be written
     */
    public void writeTo(Path directory) {
        try {
            Files.createDirectories(directory);
            try (BufferedWriter out = Files.newBufferedWriter(directory.resolve("requests.jsonl"), StandardCharsets.UTF_8)) {
                RequestLog.writeJsonl(latency.records(), out);
            }
            try (OutputStream out = Files.newOutputStream(directory.resolve("latency.hlog"))) {
                latency.writeHistogramLog(out);
            }
            try (OutputStream out = Files.newOutputStream(directory.resolve("schedule.hlog"))) {
                schedule.writeHistogramLog(out);
            }
            try (BufferedWriter out = Files.newBufferedWriter(directory.resolve("timeseries.csv"), StandardCharsets.UTF_8)) {
                series.writeCsv(out);
            }
            try (BufferedWriter out = Files.newBufferedWriter(directory.resolve("server_metrics.jsonl"),
                    StandardCharsets.UTF_8)) {
                for (MetricsScraper.Point p : serverMetrics) {
                    ObjectNode line = JsonNodeFactory.instance.objectNode();
                    line.put("tNs", p.elapsedNanos());
                    line.put("name", p.sample().name());
                    ObjectNode labels = line.putObject("labels");
                    p.sample().labels().forEach(labels::put);
                    line.put("value", p.sample().value());
                    out.write(line.toString());
                    out.write('\n');
                }
            }
            Files.writeString(directory.resolve("result.json"), summary().toJson().toPrettyString());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the load test result to " + directory, e);
        }
    }
}
