package dev.profiledrollout.trace.analysis;

import static org.apiguardian.api.API.Status.EXPERIMENTAL;

import org.apiguardian.api.API;

/**
 * TraceLens' GPU timeline of one trace (all devices of the file together), in ns: how the span of GPU activity splits
 * into computation, exposed communication, exposed memory copies and idle time.
 *
 * <p>Definitions ({@code docs/TRACES.md} §4; TraceLens @ 171dd74 {@code TraceLens/TreePerf/gpu_event_analyser.py} with
 * the default {@code include_unlinked_kernels=False} of {@code tree_perf.py:get_df_gpu_timeline}): GPU events are
 * {@code kernel}, {@code gpu_memcpy} and {@code gpu_memset} events that have a CPU launch with the same correlation id
 * (events without one, such as CUDA-graph replays, are dropped, as TraceLens drops them; {@link #unlinkedEvents}
 * counts them). Communication = kernels whose name contains {@code nccl} or {@code rccl} (any case) or
 * {@code cross_device_reduce}; memcpy = {@code gpu_memcpy} events; computation = every other event (kernels and
 * memsets). Each row is the length of a union (or a difference) of their {@code [ts, ts + dur)} intervals, exact in ns
 * (TraceLens computes in float µs; its regression tests compare with a tolerance of 1e-6 ms).
 *
 * @param computationNs    union of computation events
 * @param communicationNs  union of communication kernels
 * @param memcpyNs         union of memcpy events
 * @param exposedCommNs    communication not under computation: |comm ∖ comp|
 * @param exposedMemcpyNs  memcpy under neither computation nor communication: |(memcpy ∖ comp) ∖ comm|
 * @param busyNs           union of all three
 * @param totalNs          last event end − first event start
 * @param idleNs           {@code totalNs − busyNs}
 * @param unlinkedEvents   GPU events left out because no CPU launch carries their correlation id
 */
@API(status = EXPERIMENTAL, since = "0.1")
public record GpuTimelineBreakdown(long computationNs, long communicationNs, long memcpyNs, long exposedCommNs,
                                   long exposedMemcpyNs, long busyNs, long totalNs, long idleNs, long unlinkedEvents) {

    /** No GPU events. */
    public static GpuTimelineBreakdown empty() {
        return new GpuTimelineBreakdown(0, 0, 0, 0, 0, 0, 0, 0, 0);
    }
}
