package dev.profiledrollout.trace.analysis;

import static org.apiguardian.api.API.Status.EXPERIMENTAL;

import java.util.Objects;
import org.apiguardian.api.API;

/**
 * Idle time of one GPU stream split into HTA's categories, in ns.
 *
 * <p>Definition (HolisticTraceAnalysis {@code hta/analyzers/breakdown_analysis.py},
 * {@code _analyze_idle_time_for_stream} and {@code get_idle_time_breakdown}; {@code docs/TRACES.md} §3.3): the GPU
 * events of the stream (kernel, memcpy, memset; not {@code cuda_sync}) in start order; each event after the first
 * contributes the interval from the previous event's end to its own start. That interval is
 * <ul>
 *   <li><b>host wait</b> when the event's CPU launch (the runtime call with the same correlation) started after the
 *       previous event ended: the host did not enqueue work fast enough;</li>
 *   <li>else <b>kernel wait</b> when it is shorter than {@link #CONSECUTIVE_KERNEL_DELAY_NS}: launch overhead
 *       between back-to-back kernels;</li>
 *   <li>else <b>other</b> (for example waiting on another stream or an event).</li>
 * </ul>
 * Overlapping events on one stream give a negative interval, which is summed as HTA does. As in HTA, the times are
 * HTA's rounded µs ({@code ceil} of a fractional start, {@code floor} of the end; {@code hta/common/trace_parser.py},
 * {@code round_down_time_stamps}), events without a stream are left out, and with two or more ProfilerStep names so
 * are the events launched from the last step on ({@code hta/common/trace.py}, {@code _filter_irrelevant_gpu_kernels}).
 * The values therefore equal HTA's {@code idle_time} (µs × 1000); checked against HTA's own output on every repository
 * trace ({@code testdata/traces/expected/hta_real.json}).
 *
 * @param deviceId     the device ({@code pid} as text)
 * @param stream       {@code args.stream}
 * @param events       GPU events on the stream that HTA keeps
 * @param hostWaitNs   Σ host-wait intervals
 * @param kernelWaitNs Σ kernel-wait intervals
 * @param otherNs      Σ other intervals
 */
@API(status = EXPERIMENTAL, since = "0.1")
public record StreamIdle(String deviceId, long stream, long events, long hostWaitNs, long kernelWaitNs,
                         long otherNs) {

    /**
     * HTA's default {@code consecutive_kernel_delay} of 30, compared with µs timestamps, so 30 µs
     * ({@code hta/trace_analysis.py}, {@code get_idle_time_breakdown}; its docstring says ns).
     */
    public static final long CONSECUTIVE_KERNEL_DELAY_NS = 30_000;

    public StreamIdle {
        Objects.requireNonNull(deviceId, "deviceId");
    }

    /** {@code hostWaitNs + kernelWaitNs + otherNs}. */
    public long idleNs() {
        return hostWaitNs + kernelWaitNs + otherNs;
    }
}
