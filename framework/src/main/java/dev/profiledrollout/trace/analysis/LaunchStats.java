package dev.profiledrollout.trace.analysis;

import static org.apiguardian.api.API.Status.EXPERIMENTAL;

import org.apiguardian.api.API;

/**
 * CPU-side kernel launches of a trace and how they relate to the GPU events, in ns.
 *
 * <p>Definitions: launches are {@code cuda_runtime}/{@code cuda_driver} events named like a kernel or graph launch
 * ({@code cudaLaunchKernel*}, {@code cuLaunchKernel*}, {@code hipLaunchKernel}, {@code hipExtModuleLaunchKernel},
 * {@code hipModuleLaunchKernel}, {@code cudaGraphLaunch*}, {@code hipGraphLaunch}). Unlike HTA
 * ({@code get_cuda_kernel_launch_stats}, {@code docs/TRACES.md} §3.3), Triton, HIP and graph launches are counted. A
 * GPU event is joined to its launch by {@code args.correlation}; {@code launch delay} =
 * {@code max(0, gpu.ts − (cpu.ts + cpu.dur))} as in HTA, taken for the first GPU event of each launch. Percentiles are
 * HdrHistogram values (2 significant digits), 0 when there is no sample.
 *
 * <p>CUDA graphs ({@code docs/TRACES.md} §2): a {@code cudaGraphLaunch} fans out to many kernels. A graph launch with
 * no correlated GPU event in the trace means the profiler did not record the replayed kernels, and the device would
 * look idle; {@link #graphKernelsMissing()} says so.
 *
 * @param launches                   number of launch calls
 * @param launchP50Ns                median launch call duration
 * @param launchP99Ns                99th percentile launch call duration
 * @param delayP50Ns                 median launch → GPU start delay
 * @param delayP99Ns                 99th percentile of that delay
 * @param graphLaunches              number of graph launch calls
 * @param graphLaunchesWithoutKernels graph launches with no correlated GPU event in the trace
 * @param graphKernels               kernel events correlated to a graph launch
 * @param kernelsWithoutLaunch       kernel events whose correlation matches no CPU runtime event
 * @param kernelNsWithoutCpuOp       Σ dur of kernel events whose {@code External id} matches no {@code cpu_op}
 */
@API(status = EXPERIMENTAL, since = "0.1")
public record LaunchStats(long launches, long launchP50Ns, long launchP99Ns, long delayP50Ns, long delayP99Ns,
                          long graphLaunches, long graphLaunchesWithoutKernels, long graphKernels,
                          long kernelsWithoutLaunch, long kernelNsWithoutCpuOp) {

    /** No launches seen. */
    public static LaunchStats empty() {
        return new LaunchStats(0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
    }

    /**
     * True when the trace has graph launches and more than half of them have no GPU event: the graph-replayed
     * kernels are missing from the trace, so busy/idle figures understate the GPU's work.
     */
    public boolean graphKernelsMissing() {
        return graphLaunches > 0 && graphLaunchesWithoutKernels * 2 > graphLaunches;
    }
}
