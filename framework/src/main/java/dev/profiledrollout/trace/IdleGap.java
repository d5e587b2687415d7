package dev.profiledrollout.trace;

import java.util.Objects;

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
public record IdleGap(String deviceId, long startNs, long durationNs, String cpuContext) {

    public IdleGap {
        Objects.requireNonNull(deviceId, "deviceId");
        Objects.requireNonNull(cpuContext, "cpuContext");
    }
}
