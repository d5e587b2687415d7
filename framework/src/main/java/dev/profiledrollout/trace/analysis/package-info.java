/**
 * The analyses a trace read computes besides the kernel table, and their definitions ({@code docs/TRACES.md}):
 * kernel categories ({@link dev.profiledrollout.trace.analysis.KernelCategories}), HTA's temporal breakdown in exact
 * and HTA-compatible modes ({@link dev.profiledrollout.trace.analysis.TemporalBreakdown}), TraceLens' GPU timeline
 * ({@link dev.profiledrollout.trace.analysis.GpuTimelineBreakdown}), per-stream idle time and queue length
 * ({@link dev.profiledrollout.trace.analysis.StreamIdle}, {@link dev.profiledrollout.trace.analysis.StreamQueue}),
 * idle gaps, launches and CUDA-graph coverage ({@link dev.profiledrollout.trace.analysis.LaunchStats}), operators
 * ({@link dev.profiledrollout.trace.analysis.OperatorStats}) and steps × ranks
 * ({@link dev.profiledrollout.trace.analysis.StepTimeline}). They are reached through
 * {@link dev.profiledrollout.trace.TraceSummary#details()} and {@link dev.profiledrollout.trace.TraceSet}; every time
 * is in nanoseconds and every result is immutable.
 */
package dev.profiledrollout.trace.analysis;
