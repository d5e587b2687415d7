/**
 * Implementation of the simulator; not an API. {@code Scheduler} runs the batches, {@code Profiler} decides which
 * batches a capture records and when it is written, {@code TraceWriter}/{@code TraceMerger} stream Kineto files,
 * {@code HttpApi}/{@code GenerationHandlers} speak SGLang's HTTP API. Times are epoch or relative nanoseconds
 * ({@code …Ns}); trace {@code ts}/{@code dur} are µs text with three decimals.
 */
package dev.profiledrollout.simulator.internal;
