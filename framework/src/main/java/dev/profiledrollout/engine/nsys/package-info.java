/**
 * Nsight Systems control: {@link dev.profiledrollout.engine.nsys.NsysController} runs {@code nsys sessions list},
 * {@code nsys start/stop --session=…} for an engine launched under {@code nsys profile --start-later}, and
 * {@code nsys stats --report cuda_gpu_kern_sum --format csv} on the report ({@code docs/PROTOCOLS.md} §4,
 * {@code docs/TRACES.md} §5). Times are ns. Each call runs one process and blocks until it exits or its timeout
 * passes.
 */
package dev.profiledrollout.engine.nsys;
