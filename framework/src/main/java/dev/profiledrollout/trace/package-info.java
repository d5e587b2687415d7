/**
 * Kernel and GPU-time analysis of PyTorch profiler (Kineto) trace files, as written by SGLang's and vLLM's
 * {@code /start_profile} … {@code /stop_profile}. This package holds the results the assertions, the reports and the
 * CLI hand out ({@link dev.profiledrollout.trace.TraceSummary}, {@link dev.profiledrollout.trace.TraceSet},
 * {@link dev.profiledrollout.trace.TraceDetails}, {@link dev.profiledrollout.trace.KernelStats},
 * {@link dev.profiledrollout.trace.KernelSelection}, {@link dev.profiledrollout.trace.StepStats}, …); its
 * sub-packages hold the rest:
 * <ul>
 *   <li>{@link dev.profiledrollout.trace.reading}: the Kineto, RPD and nsys readers;</li>
 *   <li>{@link dev.profiledrollout.trace.files}: trace-file names, rank identity and discovery;</li>
 *   <li>{@link dev.profiledrollout.trace.analysis}: categories, temporal and GPU-timeline breakdowns, stream idle and
 *       queue length, idle gaps, launches, operators, steps × ranks;</li>
 *   <li>{@link dev.profiledrollout.trace.roofline}: the operator roofline and GPU peaks;</li>
 *   <li>{@link dev.profiledrollout.trace.baselines}: kernel baselines and their comparison;</li>
 *   <li>{@code internal}: the byte-level parser, not public API.</li>
 * </ul>
 *
 * <h2>Usage</h2>
 * <pre>{@code
 * TraceSummary tp0 = dev.profiledrollout.trace.reading.KinetoTraceReader.read(Path.of("1773999986.4851577-TP-0.trace.json.gz"));
 * KernelStats top = tp0.kernels().get(0);                       // largest total kernel time
 * double attention = tp0.kernels(KernelMatchers.glob("*attention*")).share();
 * double gpuBusy = tp0.devices().get(0).busyFraction();         // 1 − idle share of the GPU's span
 *
 * TraceSet capture = TraceSet.read(List.of(tp0File, tp1File));   // one file per rank, read in parallel
 * double imbalance = capture.busyImbalance();                    // 1.0 = balanced
 * }</pre>
 *
 * <h2>Definitions</h2>
 * Exactly those used for the reference summaries in {@code testdata/traces/} ({@code docs/TRACES.md} §7):
 * <ul>
 *   <li>GPU events are {@code "ph":"X"} events whose {@code cat} is {@code kernel}, {@code gpu_memcpy} or
 *       {@code gpu_memset}, case-insensitively (old traces: {@code Kernel}, {@code Memcpy}, {@code Memset}).</li>
 *   <li>Per kernel name (kernel events only): count, Σ{@code dur}, min and max; the kernel total is the sum
 *       over names.</li>
 *   <li>Per device (the event's {@code pid}, kept as text because SGLang merged traces use pids such as
 *       {@code "[TP01] 0"}): busy = length of the union of {@code [ts, ts + dur)} of all GPU events;
 *       span = last GPU event end − first GPU event start.</li>
 * </ul>
 * Unlike HTA ({@code docs/TRACES.md} §3.1) nothing is rounded to µs and no profiler step is dropped (except in the
 * HTA-compatible {@link dev.profiledrollout.trace.analysis.TemporalBreakdown}); unlike TraceLens
 * (§4) GPU events without a CPU launch, such as CUDA-graph replays, are counted.
 *
 * <h2>Units</h2>
 * Every time is a {@code long} in <b>nanoseconds</b>. Kineto's {@code ts}/{@code dur} are µs written with
 * three decimals; they are converted from their decimal text, never through {@code double} (absolute epoch
 * µs need 19 digits). {@code displayTimeUnit} is a viewer hint and is ignored.
 *
 * <h2>Memory</h2>
 * Readers stream the file (gzip or plain) and keep no events in memory: the GPU timeline is held in a bounded chunk
 * (about 5 MiB) and sorted runs in temporary files; what grows is one entry per distinct kernel name and the
 * correlation / External id join tables (about 48 bytes per launch and per CPU op). See
 * {@link dev.profiledrollout.trace.reading.KinetoTraceReader}.
 *
 * <h2>More analyses</h2>
 * {@link dev.profiledrollout.trace.TraceSummary#details()} holds categories ({@link dev.profiledrollout.trace.analysis.KernelCategories}),
 * HTA's temporal breakdown in exact and HTA-compatible modes ({@link dev.profiledrollout.trace.analysis.TemporalBreakdown}),
 * idle gaps, steps and stages ({@link dev.profiledrollout.trace.StepStats}), launches and CUDA-graph coverage
 * ({@link dev.profiledrollout.trace.analysis.LaunchStats}) and operators ({@link dev.profiledrollout.trace.analysis.OperatorStats}).
 * {@link dev.profiledrollout.trace.TraceSet} adds straggler and per-kernel spread across ranks, and steps × ranks
 * ({@link dev.profiledrollout.trace.analysis.StepTimeline}: GPU busy per step and rank, each step's straggler);
 * {@link dev.profiledrollout.trace.baselines.TraceBaseline} writes and compares baselines, per engine step kind
 * ({@link dev.profiledrollout.trace.baselines.StageKernels}, {@link dev.profiledrollout.trace.baselines.StageDelta}); {@link dev.profiledrollout.trace.reading.SqliteTraceReader}
 * reads RPD and nsys exports.
 *
 * <h2>Thread safety</h2>
 * Results ({@link dev.profiledrollout.trace.TraceSummary}, {@link dev.profiledrollout.trace.TraceSet},
 * {@link dev.profiledrollout.trace.KernelStats}, …) are immutable and may be shared between threads.
 * {@link dev.profiledrollout.trace.reading.KinetoTraceReader} is stateless. {@code internal} is not public API.
 */
package dev.profiledrollout.trace;
