package dev.profiledrollout.trace.analysis;

import static org.apiguardian.api.API.Status.EXPERIMENTAL;
import static org.apiguardian.api.API.Status.INTERNAL;

import java.util.Objects;
import org.apiguardian.api.API;

/**
 * Queue length of one GPU stream: how many launched GPU operations have not started yet, summarised as HTA summarises
 * it.
 *
 * <p>Definition (HolisticTraceAnalysis {@code hta/analyzers/trace_counters.py},
 * {@code _get_queue_length_time_series_for_rank} and {@code get_queue_length_summary}; launch calls from
 * {@code hta/common/trace_symbol_table.py}, {@code get_runtime_launch_events_mask}): the length rises by one at the
 * start of each launch call ({@code cudaLaunchKernel}, {@code cudaLaunchKernelExC}, {@code cuLaunchKernel},
 * {@code cuLaunchKernelEx}, {@code cudaMemcpyAsync}, {@code cudaMemsetAsync}, {@code hipLaunchKernel},
 * {@code hipExtModuleLaunchKernel}, {@code hipMemcpyAsync}, {@code hipMemsetAsync}, {@code hipMemcpyWithStream})
 * that has a correlated GPU event on the stream, and falls by one when that GPU event starts. The time series has a
 * point at each of these changes (a rise before a fall at the same time); the statistics are over the points'
 * values, as pandas' {@code describe} gives them. As in HTA, times are HTA's rounded µs ({@code ceil} of a fractional
 * start, {@code hta/common/trace_parser.py}), and with two or more ProfilerStep names the GPU events launched from the
 * last step on are left out ({@code hta/common/trace.py}, {@code _filter_irrelevant_gpu_kernels}). Graph launches are
 * not counted, as in HTA. Checked against HTA's own output on every repository trace
 * ({@code testdata/traces/expected/hta_real.json}).
 *
 * @param deviceId the device ({@code pid} as text)
 * @param stream   {@code args.stream}
 * @param points   points of the series (two per launched GPU event; HTA's {@code count})
 * @param mean     mean queue length over the points
 * @param std      sample standard deviation over the points (n − 1); NaN for one point
 * @param min      smallest queue length
 * @param p25      25th percentile, interpolated linearly between the nearest points (as pandas)
 * @param p50      median, interpolated the same way
 * @param p75      75th percentile, interpolated the same way
 * @param max      largest queue length
 */
@API(status = EXPERIMENTAL, since = "0.1")
public record StreamQueue(String deviceId, long stream, long points, double mean, double std, long min, double p25,
                          double p50, double p75, long max) {

    /**
     * One point of a stream's queue-length series, as HTA's {@code get_queue_length_time_series} gives it: the length
     * from {@code tsNs} (HTA's rounded time, ns) until the next point of the stream.
     *
     * @param deviceId the device ({@code pid} as text)
     * @param stream   {@code args.stream}
     * @param tsNs     when the length changed, ns on the trace's clock (whole µs, as HTA rounds)
     * @param length   launched GPU operations of the stream not started yet, from then on
     */
    @API(status = EXPERIMENTAL, since = "0.1")
    public record Point(String deviceId, long stream, long tsNs, long length) {
    }

    public StreamQueue {
        Objects.requireNonNull(deviceId, "deviceId");
    }

    /** Whether {@code name} is one of HTA's launch calls listed above. */
    @API(status = INTERNAL, since = "0.2")
    public static boolean isHtaLaunch(String name) {
        return switch (name) {
            case "cudaLaunchKernel", "cudaLaunchKernelExC", "cuLaunchKernel", "cuLaunchKernelEx", "cudaMemcpyAsync",
                 "cudaMemsetAsync", "hipLaunchKernel", "hipExtModuleLaunchKernel", "hipMemcpyAsync", "hipMemsetAsync",
                 "hipMemcpyWithStream", "runFunction - job_prep_and_submit_for_execution" -> true;
            default -> false;
        };
    }
}
