package dev.profiledrollout.trace.internal;

import static org.apiguardian.api.API.Status.INTERNAL;

import java.util.regex.Pattern;
import org.apiguardian.api.API;

/**
 * HTA's kernel classification, {@code hta/utils/utils.py:get_kernel_type} @ f4d0062 ({@code docs/TRACES.md} §3.2), with
 * Python's {@code re.match} semantics (anchored at the start, not at the end).
 */
@API(status = INTERNAL, since = "0.1")
public final class HtaKernelType {

    public static final int COMPUTATION = 0;
    public static final int COMMUNICATION = 1;
    public static final int MEMORY = 2;
    public static final int OTHER = 3;

    private static final Pattern COMM = Pattern.compile("(^nccl.*)|(^hip)|(^hccl)|(.*ncclKernel.*)");
    private static final Pattern MEM = Pattern.compile("(^(hip)?Memcpy)|(^(hip)?Memset)|(^dma)");
    private static final Pattern NOT_COMPUTE = Pattern.compile("(^nccl)|(.*Memcpy)|(.*Memset)|(.*dma)|(^.*Sync)"
            + "|(^Stream Wait Event)|(cuda.*LaunchKernel)|(^runFunction)|(^hip)|(^job_exe)|(^packet)|(^pe_exe)"
            + "|(^cpum_exe_subgraph)|(^hccl)|(^collective_subgraph_execution)");

    private HtaKernelType() {
    }

    /** Answers by name: each file of a rank set meets the same kernel names, and the three regexes cost more. */
    private static final NameMemo<Integer> KNOWN = new NameMemo<>(100_000, HtaKernelType::classify);

    /** One of {@link #COMPUTATION}, {@link #COMMUNICATION}, {@link #MEMORY}, {@link #OTHER}. */
    public static int of(String name) {
        return KNOWN.get(name);
    }

    private static int classify(String name) {
        if (COMM.matcher(name).lookingAt()) {
            return COMMUNICATION;
        }
        if (MEM.matcher(name).lookingAt()) {
            return MEMORY;
        }
        if (!NOT_COMPUTE.matcher(name).lookingAt()) {
            return COMPUTATION;
        }
        return OTHER;
    }
}
