/**
 * Kernel baselines: {@link dev.profiledrollout.trace.baselines.TraceBaseline} writes a run's kernel table (and its
 * kernels per engine step kind, {@link dev.profiledrollout.trace.baselines.StageKernels}) to a file and compares a
 * later run with it; the comparison is a {@link dev.profiledrollout.trace.baselines.BaselineDiff} of
 * {@link dev.profiledrollout.trace.baselines.KernelDelta}s and {@link dev.profiledrollout.trace.baselines.StageDelta}s.
 */
package dev.profiledrollout.trace.baselines;
