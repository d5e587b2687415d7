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
 * <h2>Protocol</h2>
 * Wire contracts follow {@code shared/docs/PROTOCOLS.md} §1 (SGLang). Every non-success answer becomes an
 * {@link dev.profiledrollout.engine.EngineException} whose message names the URL, the HTTP status, the cause
 * and the fix; the API key never appears in a message.
 *
 * <h2>Units and thread safety</h2>
 * Timeouts are {@link java.time.Duration}s. {@link dev.profiledrollout.engine.ProfileRequest},
 * {@link dev.profiledrollout.engine.ServerInfo} and {@link dev.profiledrollout.engine.StopOutcome} are immutable.
 * {@link dev.profiledrollout.engine.SglangClient} is thread-safe (it holds one OkHttp client); calls block the
 * calling thread. Closing it releases the connection pool and the dispatcher executor.
 */
package dev.profiledrollout.engine;
