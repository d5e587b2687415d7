/**
 * Closed-loop load generation against an OpenAI-compatible {@code /v1/completions} endpoint, with vLLM's
 * random-token workload and per-request timing records.
 *
 * <h2>Usage</h2>
 * <pre>{@code
 * LoadSpec spec = new LoadSpec(16, 256, 1024, 128, 0.0, 4, 42L);
 * try (LoadGenerator load = new LoadGenerator(sglang.httpClient(), sglang.baseUri(), model, spec)) {
 *     load.warmup();                       // outside the profile window; results excluded
 *     sglang.startProfile(request);
 *     LoadRun run = load.start();
 *     List<RequestRecord> records = run.await(Duration.ofMinutes(10));
 *     sglang.stopProfile();
 *     LatencyReport report = LatencyReport.of(records);
 * }
 * }</pre>
 *
 * <h2>Concurrency on the wire</h2>
 * A {@link dev.profiledrollout.load.LoadGenerator} runs exactly {@code concurrency} platform worker threads, each
 * making synchronous OkHttp calls, over its own connection pool sized to keep {@code concurrency} idle
 * connections, so the concurrency asked for is the concurrency the server sees (OkHttp's defaults would cap
 * async calls at 5 per host and keep only 5 idle connections; METRICS.md §6). This is a closed loop: a worker
 * sends its next request only after the previous one ended, so latencies are service latencies (what vLLM and
 * SGLang report), not schedule-corrected ones.
 *
 * <h2>Units</h2>
 * Token counts are tokens; all timestamps are {@link System#nanoTime()} readings taken on the worker thread:
 * the start just before {@code execute()}, each chunk when its SSE event has been read, before JSON parsing.
 *
 * <h2>Thread safety</h2>
 * {@link dev.profiledrollout.load.LoadSpec}, {@link dev.profiledrollout.load.CompletionRequest} and
 * {@link dev.profiledrollout.load.RandomTokenWorkload} are immutable. A {@code LoadGenerator} and a
 * {@link dev.profiledrollout.load.LoadRun} may be used from any thread. Worker threads are named
 * {@code profiledrollout-load-N}; none outlives {@link dev.profiledrollout.load.LoadGenerator#close()}.
 */
package dev.profiledrollout.load;
