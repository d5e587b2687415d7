/**
 * Trace-file naming and discovery: {@link dev.profiledrollout.trace.files.TraceFileName} knows the names each
 * engine's profiler writes (SGLang, vLLM, TensorRT-LLM; {@code docs/PROTOCOLS.md}) and the rank a name carries
 * ({@link dev.profiledrollout.trace.files.RankIdentity}); {@link dev.profiledrollout.trace.files.TraceFiles}
 * picks the rank traces out of a directory and leaves frontend traces, tables and merged copies out of the analysis.
 */
package dev.profiledrollout.trace.files;
