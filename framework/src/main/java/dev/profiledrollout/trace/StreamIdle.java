package dev.profiledrollout.trace;

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
 * Overlapping events on one stream give a negative interval, which is summed as HTA does. Unlike HTA the times are
 * the trace's ns (not rounded to µs) and no profiler step is dropped.
 *
 * @param deviceId     the device ({@code pid} as text)
 * @param stream       {@code args.stream}, or -1 when the trace gives none
 * @param events       GPU events on the stream
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
