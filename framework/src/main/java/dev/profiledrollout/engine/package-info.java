/**
 * HTTP client for an inference engine's control and discovery endpoints: health, server info, models and the
 * profiler window ({@code /start_profile}, {@code /stop_profile}).
 *
 * <h2>Usage</h2>
 * <pre>{@code
 * try (SglangClient sglang = SglangClient.builder(URI.create("http://localhost:30000")).build()) {
 *     sglang.awaitHealthy(Duration.ofMinutes(5));
 *     ServerInfo info = sglang.serverInfo();
 *     sglang.startProfile(ProfileRequest.builder().outputDir("/data/prof/run-17").numSteps(10).build());
 *     // ... run the load ...
 *     StopOutcome outcome = sglang.stopProfile();   // NOT_IN_PROGRESS after an auto-stop (num_steps)
 * }
 * }</pre>
 *
 * <h2>Backends, routers, fan-out</h2>
 * {@link dev.profiledrollout.engine.EngineClient} is what a profile window needs from any engine;
 * {@link dev.profiledrollout.engine.SglangClient} and {@link dev.profiledrollout.engine.VllmClient} implement it.
 * {@link dev.profiledrollout.engine.RouterClient} lists the {@link dev.profiledrollout.engine.Worker}s behind an
 * sgl-model-gateway or vllm-router; {@link dev.profiledrollout.engine.FanOut} starts and stops many engines at once
 * and records a {@link dev.profiledrollout.engine.WorkerOutcome} per engine. What the files a profiler writes are is
 * {@link dev.profiledrollout.trace.files.TraceFileName}'s to say.
 *
 * <pre>{@code
 * List<Worker> workers = new RouterClient(router, http).workers();
 * try (FanOut all = new FanOut(workers, w -> VllmClient.builder(w.url()).build())) {
 *     all.start(ProfileRequest.builder().build());   // vLLM: empty body
 *     // ... load through the router ...
 *     all.stop().forEach(o -> System.out.println(o.describe()));
 * }
 * }</pre>
 *
 * <h2>Protocol</h2>
 * Wire contracts follow {@code docs/PROTOCOLS.md} §1 (SGLang), §2 (vLLM) and §3 (routers). Every non-success answer
 * becomes an {@link dev.profiledrollout.engine.EngineException} whose message names the URL, the HTTP status, the
 * cause and the fix; the API key never appears in a message.
 *
 * <h2>Units and thread safety</h2>
 * Timeouts are {@link java.time.Duration}s. {@link dev.profiledrollout.engine.ProfileRequest},
 * {@link dev.profiledrollout.engine.ServerInfo} and {@link dev.profiledrollout.engine.StopOutcome} are immutable.
 * The clients, {@link dev.profiledrollout.engine.RouterClient} and
 * {@link dev.profiledrollout.engine.SglangClient} are thread-safe (it holds one OkHttp client); calls block the
 * calling thread. Closing it releases the connection pool and the dispatcher executor.
 */
package dev.profiledrollout.engine;
