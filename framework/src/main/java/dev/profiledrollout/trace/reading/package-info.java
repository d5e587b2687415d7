/**
 * The trace readers: {@link dev.profiledrollout.trace.reading.KinetoTraceReader} for PyTorch profiler (Kineto) JSON,
 * plain or gzip, and {@link dev.profiledrollout.trace.reading.SqliteTraceReader} for RPD files and nsys SQLite
 * exports. Both return {@link dev.profiledrollout.trace.TraceSummary}; damaged input raises
 * {@link dev.profiledrollout.trace.reading.TraceFormatException}.
 *
 * <p>A Kineto read is one streaming pass that feeds an accumulator (per-kernel aggregates, the GPU timeline, the id
 * joins) and a second pass, the timeline sweep, that replays the GPU events in start order and computes every
 * per-event analysis of {@link dev.profiledrollout.trace.analysis} and {@link dev.profiledrollout.trace.roofline}
 * in the same visit ({@code docs/ARCHITECTURE.md}, "Reading a trace"). An SGLang merged file is split back into one
 * summary per rank on the way. The byte-level parser is {@code trace.internal}.
 */
package dev.profiledrollout.trace.reading;
