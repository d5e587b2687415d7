package dev.profiledrollout.simulator;

import static org.apiguardian.api.API.Status.EXPERIMENTAL;

import org.apiguardian.api.API;

/**
 * The speeds of one GPU, as the {@link CostModel}'s roofline needs them, plus what the trace's
 * {@code deviceProperties} report ({@code docs/TRACES.md} §1.1).
 *
 * <p>{@link #H100_SXM} uses NVIDIA's H100 SXM5 datasheet figures: 989 TFLOP/s dense bf16, 3.35 TB/s HBM3 and
 * 900 GB/s NVLink 4 bidirectional (450 GB/s per direction); 80 GiB; 132 SMs.
 *
 * @param name                       device name as CUDA reports it, e.g. {@code "NVIDIA H100 80GB HBM3"}; not null
 * @param denseBf16Flops             peak dense bf16 tensor-core throughput, FLOP/s
 * @param hbmBytesPerSecond          peak device-memory bandwidth, bytes/s
 * @param interconnectBytesPerSecond peak GPU-to-GPU bandwidth per direction, bytes/s (used by all-reduce)
 * @param totalGlobalMemBytes        device memory, bytes
 * @param numSms                     streaming multiprocessors
 * @throws IllegalArgumentException if a value is not positive or {@code name} is null
 */
@API(status = EXPERIMENTAL, since = "0.1")
public record GpuSpec(String name, double denseBf16Flops, double hbmBytesPerSecond, double interconnectBytesPerSecond,
                      long totalGlobalMemBytes, int numSms) {

    /** NVIDIA H100 SXM5 80 GB. */
    public static final GpuSpec H100_SXM =
            new GpuSpec("NVIDIA H100 80GB HBM3", 989e12, 3.35e12, 450e9, 80L * 1024 * 1024 * 1024, 132);

    public GpuSpec {
        if (name == null) {
            throw new IllegalArgumentException("GpuSpec name must not be null");
        }
        if (!(denseBf16Flops > 0) || !(hbmBytesPerSecond > 0) || !(interconnectBytesPerSecond > 0)
                || totalGlobalMemBytes <= 0 || numSms <= 0) {
            throw new IllegalArgumentException("every GpuSpec figure must be positive: " + name);
        }
    }
}
