package dev.profiledrollout.trace.analysis;

import static org.apiguardian.api.API.Status.EXPERIMENTAL;

import java.util.Objects;
import org.apiguardian.api.API;

/**
 * One stretch during which a device ran no GPU event (kernel, memcpy, memset): the gap between two consecutive
 * merged busy intervals of that device. Times in ns, in the trace's own time base.
 *
 * @param deviceId   the device ({@code pid} as text), not null
 * @param startNs    end of the busy interval before the gap
 * @param durationNs length of the gap
 * @param cpuContext the innermost CPU annotation ({@code user_annotation}, such as {@code ProfilerStep#5} or
 *                   {@code step[DECODE bs=8]}) that contains the gap's start, or {@code ""} when none does
 */
@API(status = EXPERIMENTAL, since = "0.1")
public record IdleGap(String deviceId, long startNs, long durationNs, String cpuContext) {

    public IdleGap {
        Objects.requireNonNull(deviceId, "deviceId");
        Objects.requireNonNull(cpuContext, "cpuContext");
    }
}
