package dev.profiledrollout.trace;

import static org.apiguardian.api.API.Status.EXPERIMENTAL;

import java.util.Objects;
import org.apiguardian.api.API;

/**
 * Queue length of one GPU stream: how many launched GPU operations have not started yet.
 *
 * <p>Definition (HolisticTraceAnalysis {@code hta/analyzers/trace_counters.py},
 * {@code _get_queue_length_time_series_for_rank} and {@code get_queue_length_summary}; launch calls from
 * {@code hta/common/trace_symbol_table.py}, {@code get_runtime_launch_events_mask}): the length rises by one at the
 * start of each launch call ({@code cudaLaunchKernel}, {@code cudaLaunchKernelExC}, {@code cuLaunchKernel},
 * {@code cuLaunchKernelEx}, {@code cudaMemcpyAsync}, {@code cudaMemsetAsync}, {@code hipLaunchKernel},
 * {@code hipExtModuleLaunchKernel}, {@code hipMemcpyAsync}, {@code hipMemsetAsync}, {@code hipMemcpyWithStream})
 * that has a correlated GPU event on the stream, and falls by one when that GPU event starts. The time series has a
 * point at each of these changes (a rise before a fall at the same time); the statistics are over those points, as
 * HTA's summary describes the series' values. Unlike HTA the times are the trace's ns and no profiler step is
 * dropped. Graph launches are not counted, as in HTA.
 *
 * @param deviceId the device ({@code pid} as text)
 * @param stream   {@code args.stream}, or -1 when the trace gives none
 * @param points   points of the series (two per launched GPU event)
 * @param mean     mean queue length over the points
 * @param p50      median queue length over the points (nearest rank)
 * @param p99      99th percentile (nearest rank)
 * @param max      largest queue length
 */
@API(status = EXPERIMENTAL, since = "0.1")
public record StreamQueue(String deviceId, long stream, long points, double mean, long p50, long p99, long max) {

    public StreamQueue {
        Objects.requireNonNull(deviceId, "deviceId");
    }

    /** Whether {@code name} is one of HTA's launch calls listed above. */
    static boolean isHtaLaunch(String name) {
        return switch (name) {
            case "cudaLaunchKernel", "cudaLaunchKernelExC", "cuLaunchKernel", "cuLaunchKernelEx", "cudaMemcpyAsync",
                 "cudaMemsetAsync", "hipLaunchKernel", "hipExtModuleLaunchKernel", "hipMemcpyAsync", "hipMemsetAsync",
                 "hipMemcpyWithStream", "runFunction - job_prep_and_submit_for_execution" -> true;
            default -> false;
        };
    }
}
