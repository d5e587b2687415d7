/**
 * Per-request timing records and the reports built from them: TTFT, ITL, TPOT and E2E latency as
 * {@code vllm bench serve} defines them ({@code docs/METRICS.md} §1–§2), plus throughput and error counts
 * ({@link dev.profiledrollout.metrics.LatencyReport}); schedule lag and latency from the intended send
 * ({@link dev.profiledrollout.metrics.ScheduleReport}, §6); goodput with vLLM's AND semantics
 * ({@link dev.profiledrollout.metrics.Slo}); a per-second series ({@link dev.profiledrollout.metrics.TimeSeries});
 * and the {@code requests.jsonl} line ({@link dev.profiledrollout.metrics.RequestLog}). vLLM's table and result JSON
 * and the Prometheus text parser are the CLI's ({@code dev.profiledrollout.cli.bench}).
 *
 * <h2>Usage</h2>
 * <pre>{@code
 * LatencyReport report = LatencyReport.of(run.await(Duration.ofMinutes(10)));
 * System.out.println(report.toTable());
 * Duration p99Ttft = report.ttft().percentile(99);
 * try (OutputStream out = Files.newOutputStream(dir.resolve("latency.hlog"))) { report.writeHistogramLog(out); }
 * }</pre>
 *
 * <h2>Units</h2>
 * Every timestamp in a {@link dev.profiledrollout.metrics.RequestRecord} is a {@link System#nanoTime()} reading
 * (nanoseconds, only differences are meaningful, comparable within one JVM). Histograms hold nanoseconds;
 * the public API returns {@link java.time.Duration}s; {@link dev.profiledrollout.metrics.LatencyReport#toTable()}
 * prints milliseconds. Token counts come from the server's {@code usage}, never from the request.
 *
 * <h2>Percentiles</h2>
 * {@link dev.profiledrollout.metrics.LatencyDistribution#percentile(double)} returns HdrHistogram's recorded
 * value at 3-significant-digit precision, not numpy's linear interpolation ({@code docs/METRICS.md} §2, "Statistics");
 * {@link dev.profiledrollout.metrics.LatencyDistribution#interpolatedPercentile(double)} gives the numpy value
 * from the raw samples when exact agreement with {@code vllm bench serve} matters (small samples).
 *
 * <h2>Thread safety and memory</h2>
 * Records, distributions, reports, series and summaries are immutable and safe to share; the parser and
 * {@code RequestLog} are stateless; accessors returning arrays or histograms
 * return copies. A distribution keeps its raw samples (8 bytes each) beside the histogram (a few tens of KB).
 */
package dev.profiledrollout.metrics;
