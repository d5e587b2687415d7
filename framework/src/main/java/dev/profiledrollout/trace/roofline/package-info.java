/**
 * The operator roofline: FLOPs and bytes of each covered operator call from its recorded shapes and types, the GPU
 * time of its kernels (attributed through TraceLens' call tree), and the device peaks they are compared with
 * ({@link dev.profiledrollout.trace.roofline.GpuPeaks}, the built-in table {@code gpu-peaks.json} in this package's
 * resources, each entry naming its datasheet). Results are
 * {@link dev.profiledrollout.trace.roofline.OperatorRoofline}, in {@link dev.profiledrollout.trace.TraceDetails#roofline()}.
 */
package dev.profiledrollout.trace.roofline;
