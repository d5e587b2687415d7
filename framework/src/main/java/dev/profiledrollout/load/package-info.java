/**
 * Load generation against streaming LLM endpoints ({@code /v1/completions}, {@code /v1/chat/completions}, SGLang's
 * {@code /generate}): closed and open loops with {@code vllm bench serve}'s arrival processes, random-token, text,
 * JSONL and ShareGPT workloads, and per-request timing records that are correct under coordinated omission.
 *
 * <h2>Usage</h2>
 * Without JUnit, the CLI's {@code bench} command ({@code dev.profiledrollout.cli.bench.LoadTest}) drives these
 * classes end to end.
 * Inside a profile window, {@link dev.profiledrollout.load.LoadGenerator} with a
 * {@link dev.profiledrollout.load.LoadTarget} (where to send, headers, TLS trust) and a
 * {@link dev.profiledrollout.load.LoadSpec}: {@code warmup()} before {@code /start_profile}, then {@code start()}.
 *
 * <h2>Loops</h2>
 * <ul>
 *   <li><b>Closed</b> ({@link dev.profiledrollout.load.ArrivalProcess#closedLoop()}): exactly {@code concurrency}
 *       keep-alive connections, each sending its next request as soon as the previous one ended, so the
 *       concurrency asked for is the concurrency on the wire (a client library's per-host defaults, such as
 *       OkHttp's 5 async calls, never cap it; {@code docs/METRICS.md} §6). Latencies are service latencies.</li>
 *   <li><b>Open</b> (a finite rate): the schedule ({@link dev.profiledrollout.load.ArrivalSchedule}) is
 *       precomputed from the seed; one pacer thread waits for each absolute deadline on {@link System#nanoTime()}
 *       (park, then spin the last 100 µs) and hands the request to an idle connection or a new one; with
 *       {@code maxConcurrency} a request finding the cap reached waits in a FIFO queue. Each record carries its intended send time, so schedule lag and
 *       latency from the intended time are reported beside service latency
 *       ({@link dev.profiledrollout.metrics.ScheduleReport}).</li>
 * </ul>
 * Every connection is served by one event loop group of {@code min(2, max(1, cores - 1))} threads (Netty; system property
 * {@code profiledrollout.load.threads}): no thread per in-flight request, so the client neither runs out of
 * threads at high concurrency nor delays a response behind hundreds of runnable threads.
 *
 * <h2>Units</h2>
 * Rates are requests per second; token counts are tokens and come from the server's {@code usage} /
 * {@code meta_info}, never from the request; schedule offsets are nanoseconds after t0; all timestamps are
 * {@link System#nanoTime()} readings taken on the event loop: the send just before the request is written (before
 * the connect when a new connection is needed), each chunk when the bytes holding its SSE event were read, before
 * JSON parsing.
 *
 * <h2>Thread safety</h2>
 * {@link dev.profiledrollout.load.LoadSpec}, {@link dev.profiledrollout.load.ArrivalProcess},
 * {@link dev.profiledrollout.load.ArrivalSchedule}, {@link dev.profiledrollout.load.CompletionRequest}, the
 * workloads are immutable. A {@code LoadGenerator} and a {@link dev.profiledrollout.load.LoadRun} may be used from
 * any thread. Every thread is named {@code profiledrollout-load-…} and
 * non-daemon; none outlives {@link dev.profiledrollout.load.LoadGenerator#close()}.
 */
package dev.profiledrollout.load;
