package dev.profiledrollout.trace;

import static org.apiguardian.api.API.Status.EXPERIMENTAL;

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
}
