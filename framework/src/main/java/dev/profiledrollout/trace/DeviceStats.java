package dev.profiledrollout.trace;

import static org.apiguardian.api.API.Status.EXPERIMENTAL;

import java.util.List;
import java.util.Objects;
import org.apiguardian.api.API;

/**
 * GPU time of one device in one trace, from its GPU events (kernels, memcpy, memset).
 *
 * @param id     the events' {@code pid} as text: {@code "0"} for Kineto, {@code "[TP01] 0"} in SGLang merged
 *               traces; not null
 * @param busyNs length of the union of {@code [ts, ts + dur)} of the device's GPU events
 * @param spanNs last GPU event end − first GPU event start
 */
@API(status = EXPERIMENTAL, since = "0.1")
public record DeviceStats(String id, long busyNs, long spanNs) {

    public DeviceStats {
        Objects.requireNonNull(id, "id");
    }

    /** {@code busyNs / spanNs}, in [0, 1]; 0 when the span is 0. */
    public double busyFraction() {
        return spanNs == 0 ? 0 : (double) busyNs / spanNs;
    }

    /**
     * The GPU busy fraction of several devices (the ranks of a run): Σ {@code busyNs} / Σ {@code spanNs}, in [0, 1],
     * so a device with a longer span weighs more; 0 when the spans sum to 0. The one definition the
     * {@code gpuBusyFraction()} budgets and the history's {@code trace.gpu_busy_fraction} share.
     *
     * @param devices the devices, not null
     */
    public static double busyFraction(List<DeviceStats> devices) {
        long busy = 0;
        long span = 0;
        for (DeviceStats d : devices) {
            busy += d.busyNs();
            span += d.spanNs();
        }
        return span == 0 ? 0 : (double) busy / span;
    }
}
