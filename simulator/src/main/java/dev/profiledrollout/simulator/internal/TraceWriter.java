package dev.profiledrollout.simulator.internal;

import static org.apiguardian.api.API.Status.INTERNAL;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import dev.profiledrollout.simulator.GpuSpec;
import dev.profiledrollout.simulator.KernelCost;
import dev.profiledrollout.simulator.SimulatorConfig;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.zip.GZIPOutputStream;
import org.apiguardian.api.API;

/**
 * Streams one TP rank's capture to a gzip Kineto trace ({@code docs/TRACES.md} §1): top-level keys in Kineto's order,
 * relative {@code ts} in µs with exactly three decimals, and per step a CPU {@code user_annotation} and a
 * {@code gpu_user_annotation} named like SGLang's step span, the kernels on stream 7 of {@code pid = tp}, and (with the
 * CPU activity) a {@code cpu_op} and {@code cudaLaunchKernel} per kernel joined by {@code correlation}
 * and an {@code ac2g} flow. A GEMM's {@code aten::mm} runs inside its caller ({@code aten::linear} or
 * {@code aten::matmul}), which launches nothing itself. With {@code record_shapes} every operator carries its
 * inputs as {@link dev.profiledrollout.simulator.CostModel} sized them ({@code Input Dims} and the rest). Each step
 * also copies its inputs in and its sampled token ids out, as engines do: a {@code gpu_memset} and an HtoD
 * {@code gpu_memcpy} in the GPU idle time of the step's CPU overhead (which the cost model charges) and a DtoH
 * {@code gpu_memcpy} right after its kernels, each with its {@code cudaMemsetAsync} / {@code cudaMemcpyAsync} runtime
 * call when the CPU activity is on (field layout as in the real V100 trace under
 * {@code testdata/traces/hta/ns_resolution}). The file is written under a temporary name and renamed when complete.
 */
@API(status = INTERNAL, since = "0.1")
public final class TraceWriter {

    /** CUDA compute stream the kernels run on. */
    public static final int STREAM = 7;
    private static final int CUDA_LAUNCH_KERNEL_CBID = 211;
    private static final int CUDA_MEMCPY_ASYNC_CBID = 41;
    private static final int CUDA_MEMSET_ASYNC_CBID = 51;
    /** Fixed cost of a small copy or memset, ns (launch and PCIe round trip). */
    private static final long COPY_LATENCY_NS = 1_000;
    /** Pinned host ↔ device copy rate, bytes per ns (25 GB/s). */
    private static final long COPY_BYTES_PER_NS = 25;

    private final SimulatorConfig config;
    private final JsonFactory factory = new JsonFactory();
    private final long cpuPidBase = ProcessHandle.current().pid();

    public TraceWriter(SimulatorConfig config) {
        this.config = config;
    }

    /** The simulated host process id of a rank (one process per TP rank, as SGLang runs them). */
    public long cpuPid(int tp) {
        return cpuPidBase * 10 + tp;
    }

    /**
     * How one rank's file is written, independent of the engine's request format.
     *
     * @param cpu             CPU activity: {@code user_annotation}, {@code cpu_op}, {@code cudaLaunchKernel}
     * @param gpu             GPU activity: kernels and {@code gpu_user_annotation}
     * @param gzip            gzip the file (SGLang always; vLLM unless {@code torch_profiler_use_gzip} is false)
     * @param globalRank      {@code distributedInfo.rank}
     * @param worldSize       {@code distributedInfo.world_size}
     * @param stepNames       how step spans are named, or {@link StepNames#NONE} for an engine that writes none
     */
    public record Options(boolean cpu, boolean gpu, boolean recordShapes, boolean withStack, boolean gzip,
                          int globalRank, int worldSize, StepNames stepNames) {

        /** @param vllmAnnotations step spans named as vLLM's rather than SGLang's */
        public Options(boolean cpu, boolean gpu, boolean recordShapes, boolean withStack, boolean gzip, int globalRank,
                int worldSize, boolean vllmAnnotations) {
            this(cpu, gpu, recordShapes, withStack, gzip, globalRank, worldSize,
                    vllmAnnotations ? StepNames.VLLM : StepNames.SGLANG);
        }
    }

    /** The step spans an engine's trace carries. */
    public enum StepNames {
        /** SGLang's {@code step[…]} ({@link StepRecord#spanName()}). */
        SGLANG,
        /** vLLM's {@code execute_…} ({@link StepRecord#vllmAnnotationName()}). */
        VLLM,
        /** None: the engine's trace marks no step (TensorRT-LLM's torch trace, docs/PROTOCOLS.md §6). */
        NONE
    }

    /**
     * Writes {@code file} for rank {@code tp} of an SGLang capture. {@code RPD} records host API calls and device
     * operations alike, so it writes both; {@code XPU} device events are written as {@code GPU} ones.
     *
     * @param baseEpochNs capture start, epoch ns; written as {@code baseTimeNanoseconds}
     * @param cancelled   polled between steps; when true the partial file is deleted and an
     *                    {@link InterruptedIOException} thrown
     */
    public void write(Path file, int tp, long baseEpochNs, List<StepRecord> steps, ProfileRequest req,
                      BooleanSupplier cancelled) throws IOException {
        boolean rpd = req.activities().contains("RPD");
        write(file, tp, baseEpochNs, steps, new Options(rpd || req.activities().contains("CPU"),
                rpd || req.activities().contains("GPU") || req.activities().contains("XPU"), req.recordShapes(),
                req.withStack(), true, tp, config.tpSize(), false),
                cancelled);
    }

    /**
     * Writes {@code file} for rank {@code tp}.
     *
     * @param baseEpochNs capture start, epoch ns; written as {@code baseTimeNanoseconds}
     * @param cancelled   polled between steps; when true the partial file is deleted and an
     *                    {@link InterruptedIOException} thrown
     */
    public void write(Path file, int tp, long baseEpochNs, List<StepRecord> steps, Options opts,
                      BooleanSupplier cancelled) throws IOException {
        Path tmp = file.resolveSibling("." + file.getFileName() + ".tmp");
        boolean cpu = opts.cpu();
        boolean gpu = opts.gpu();
        OutputStream raw = new BufferedOutputStream(Files.newOutputStream(tmp), 1 << 16);
        try (OutputStream out = opts.gzip() ? new GZIPOutputStream(raw, 1 << 16) : raw;
             JsonGenerator g = factory.createGenerator(out, JsonEncoding.UTF8)) {
            g.writeStartObject();
            g.writeNumberField("schemaVersion", 1);
            writeDeviceProperties(g, tp, gpu);
            g.writeObjectFieldStart("distributedInfo");
            g.writeStringField("backend", "nccl");
            g.writeNumberField("rank", opts.globalRank());
            g.writeNumberField("world_size", opts.worldSize());
            g.writeNumberField("pg_count", 1);
            g.writeStringField("nccl_version", "2.27.3");
            g.writeEndObject();
            g.writeBooleanField("record_shapes", opts.recordShapes());
            g.writeBooleanField("with_stack", opts.withStack());
            g.writeStringField("engine", "simulator");
            if (!config.faults().traceEnv().isEmpty()) {
                g.writeObjectFieldStart("env");
                for (java.util.Map.Entry<String, String> e : config.faults().traceEnv().entrySet()) {
                    g.writeStringField(e.getKey(), e.getValue());
                }
                g.writeEndObject();
            }
            g.writeStringField("displayTimeUnit", "ms");
            g.writeNumberField("baseTimeNanoseconds", baseEpochNs);
            g.writeArrayFieldStart("traceEvents");
            writeMetadata(g, tp, cpu, gpu);
            long correlation = 1;
            long externalId = 1;
            long pid = cpuPid(tp);
            for (StepRecord step : steps) {
                if (cancelled.getAsBoolean() || Thread.currentThread().isInterrupted()) {
                    throw new InterruptedIOException("trace export cancelled: the simulator is closing");
                }
                long stepTs = step.startEpochNs() - baseEpochNs;
                long gpuTs = stepTs + step.cpuOverheadNs();
                String span = opts.stepNames() == StepNames.VLLM ? step.vllmAnnotationName() : step.spanName();
                boolean annotate = opts.stepNames() != StepNames.NONE;
                if (cpu && annotate) {
                    complete(g, "user_annotation", span, pid, pid, stepTs, step.durationNs());
                    g.writeObjectFieldStart("args");
                    g.writeNumberField("External id", externalId++);
                    g.writeEndObject();
                    g.writeEndObject();
                }
                if (gpu && annotate) {
                    complete(g, "gpu_user_annotation", span, tp, STREAM, gpuTs - 1, step.busyNs(tp) + 2);
                    g.writeObjectFieldStart("args");
                    g.writeNumberField("device", tp);
                    g.writeNumberField("stream", STREAM);
                    g.writeEndObject();
                    g.writeEndObject();
                }
                List<KernelCost> kernels = step.kernels();
                long slot = Math.max(2, step.cpuOverheadNs() / (kernels.size() + 2));
                if (gpu) {
                    // int64 input ids and positions in; one int64 token id per request out; an int32 flag per request
                    long inBytes = Math.max(1, step.tokens()) * 2L * Long.BYTES;
                    long memsetBytes = Math.max(1, step.batchSize()) * (long) Integer.BYTES;
                    long outBytes = Math.max(1, step.batchSize()) * (long) Long.BYTES;
                    long h2dTs = gpuTs - 2 - copyNs(inBytes);
                    long memsetTs = h2dTs - 1 - copyNs(memsetBytes);
                    if (memsetTs > stepTs + slot) {
                        memoryOp(g, cpu, "gpu_memset", "Memset (Device)", "cudaMemsetAsync", CUDA_MEMSET_ASYNC_CBID,
                                pid, tp, stepTs + 1, slot / 4, memsetTs, memsetBytes, correlation++, externalId++);
                        memoryOp(g, cpu, "gpu_memcpy", "Memcpy HtoD (Pinned -> Device)", "cudaMemcpyAsync",
                                CUDA_MEMCPY_ASYNC_CBID, pid, tp, stepTs + slot / 2, slot / 4, h2dTs, inBytes,
                                correlation++, externalId++);
                    }
                    memoryOp(g, cpu, "gpu_memcpy", "Memcpy DtoH (Device -> Pinned)", "cudaMemcpyAsync",
                            CUDA_MEMCPY_ASYNC_CBID, pid, tp, stepTs + (kernels.size() + 1) * slot + 1, slot / 4,
                            gpuTs + step.busyNs(tp) + 2, outBytes, correlation++, externalId++);
                }
                long kernelTs = gpuTs;
                for (int k = 0; k < kernels.size(); k++) {
                    KernelCost kc = kernels.get(k);
                    long dur = step.durationsNs()[tp][k];
                    long launchTs = stepTs + (k + 1) * slot;
                    long corr = correlation++;
                    long ext = externalId++;
                    if (cpu) {
                        KernelCost.CpuOp op = kc.op();
                        if (op.caller() != null) {
                            // the caller spans the callee; the kernel links to the callee, the innermost operator
                            cpuOp(g, op.caller(), pid, launchTs, slot * 9 / 10, ext, opts.recordShapes());
                            ext = externalId++;
                            cpuOp(g, op, pid, launchTs + slot / 20, slot * 8 / 10, ext, opts.recordShapes());
                        } else {
                            cpuOp(g, op, pid, launchTs, slot * 8 / 10, ext, opts.recordShapes());
                        }
                    }
                    if (cpu && gpu) {
                        long runtimeTs = launchTs + slot / 10;
                        complete(g, "cuda_runtime", "cudaLaunchKernel", pid, pid, runtimeTs, slot * 6 / 10);
                        g.writeObjectFieldStart("args");
                        g.writeNumberField("External id", ext);
                        g.writeNumberField("cbid", CUDA_LAUNCH_KERNEL_CBID);
                        g.writeNumberField("correlation", corr);
                        g.writeEndObject();
                        g.writeEndObject();
                        flow(g, "s", corr, pid, pid, runtimeTs);
                        flow(g, "f", corr, tp, STREAM, kernelTs);
                    }
                    if (gpu) {
                        writeKernel(g, kc, tp, kernelTs, dur, corr, cpu ? ext : 0);
                    }
                    kernelTs += dur;
                }
            }
            g.writeEndArray();
            g.writeStringField("traceName", file.toString());
            g.writeEndObject();
        } catch (IOException | RuntimeException e) {
            Files.deleteIfExists(tmp);
            throw e;
        }
        Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    /** Kineto's {@code fmtTs}: integer µs, a dot, then the ns remainder as exactly three digits. */
    public static String formatUs(long ns) {
        String sign = ns < 0 ? "-" : "";
        long abs = Math.abs(ns);
        long frac = abs % 1000;
        return sign + (abs / 1000) + "." + (frac < 10 ? "00" : frac < 100 ? "0" : "") + frac;
    }

    private void writeDeviceProperties(JsonGenerator g, int tp, boolean gpuActivity) throws IOException {
        g.writeArrayFieldStart("deviceProperties");
        if (gpuActivity) {
            GpuSpec spec = config.gpu();
            g.writeStartObject();
            g.writeNumberField("id", tp);
            g.writeStringField("name", spec.name());
            g.writeNumberField("totalGlobalMem", spec.totalGlobalMemBytes());
            // Compute capability and per-SM limits are Hopper's (sm_90); GpuSpec does not model them.
            g.writeNumberField("computeMajor", 9);
            g.writeNumberField("computeMinor", 0);
            g.writeNumberField("maxThreadsPerBlock", 1024);
            g.writeNumberField("maxThreadsPerMultiprocessor", 2048);
            g.writeNumberField("regsPerBlock", 65536);
            g.writeNumberField("regsPerMultiprocessor", 65536);
            g.writeNumberField("warpSize", 32);
            g.writeNumberField("sharedMemPerBlock", 49152);
            g.writeNumberField("sharedMemPerMultiprocessor", 233472);
            g.writeNumberField("numSms", spec.numSms());
            g.writeNumberField("sharedMemPerBlockOptin", 232448);
            g.writeEndObject();
        }
        g.writeEndArray();
    }

    private void writeMetadata(JsonGenerator g, int tp, boolean cpu, boolean gpu) throws IOException {
        long pid = cpuPid(tp);
        if (cpu) {
            meta(g, "process_name", pid, null, "name", "python3");
            meta(g, "process_labels", pid, null, "labels", "CPU");
            meta(g, "thread_name", pid, pid, "name", "thread " + pid + " (python3)");
        }
        if (gpu) {
            meta(g, "process_name", tp, null, "name", "python3");
            meta(g, "process_labels", tp, null, "labels", "GPU " + tp);
            g.writeStartObject();
            g.writeStringField("name", "process_sort_index");
            g.writeStringField("ph", "M");
            g.writeFieldName("ts");
            g.writeNumber(formatUs(0));
            g.writeNumberField("pid", tp);
            g.writeNumberField("tid", 0);
            g.writeObjectFieldStart("args");
            g.writeNumberField("sort_index", 5000000 + tp);
            g.writeEndObject();
            g.writeEndObject();
            meta(g, "thread_name", tp, (long) STREAM, "name", "stream " + STREAM + " ");
        }
    }

    private static void meta(JsonGenerator g, String name, long pid, Long tid, String key, String value)
            throws IOException {
        g.writeStartObject();
        g.writeStringField("name", name);
        g.writeStringField("ph", "M");
        g.writeFieldName("ts");
        g.writeNumber(formatUs(0));
        g.writeNumberField("pid", pid);
        g.writeNumberField("tid", tid == null ? 0 : tid);
        g.writeObjectFieldStart("args");
        g.writeStringField(key, value);
        g.writeEndObject();
        g.writeEndObject();
    }

    /** Duration of a copy or memset of {@code bytes}, ns. */
    static long copyNs(long bytes) {
        return COPY_LATENCY_NS + bytes / COPY_BYTES_PER_NS;
    }

    /** A memcpy or memset on the compute stream and, with the CPU activity, the runtime call that issued it. */
    private static void memoryOp(JsonGenerator g, boolean cpu, String cat, String name, String runtimeName, int cbid,
                                 long pid, int tp, long runtimeTs, long runtimeDur, long tsNs, long bytes, long corr,
                                 long ext) throws IOException {
        if (cpu) {
            complete(g, "cuda_runtime", runtimeName, pid, pid, runtimeTs, runtimeDur);
            g.writeObjectFieldStart("args");
            g.writeNumberField("External id", ext);
            g.writeNumberField("cbid", cbid);
            g.writeNumberField("correlation", corr);
            g.writeEndObject();
            g.writeEndObject();
        }
        long dur = copyNs(bytes);
        complete(g, cat, name, tp, STREAM, tsNs, dur);
        g.writeObjectFieldStart("args");
        g.writeNumberField("External id", cpu ? ext : 0);
        g.writeNumberField("device", tp);
        g.writeNumberField("context", 1);
        g.writeNumberField("stream", STREAM);
        g.writeNumberField("correlation", corr);
        g.writeNumberField("bytes", bytes);
        g.writeNumberField("memory bandwidth (GB/s)", (double) bytes / dur);
        g.writeEndObject();
        g.writeEndObject();
    }

    /** Opens an X event and writes everything but {@code args}; the caller writes args and closes it. */
    private static void complete(JsonGenerator g, String cat, String name, long pid, long tid, long tsNs, long durNs)
            throws IOException {
        g.writeStartObject();
        g.writeStringField("ph", "X");
        g.writeStringField("cat", cat);
        g.writeStringField("name", name);
        g.writeNumberField("pid", pid);
        g.writeNumberField("tid", tid);
        g.writeFieldName("ts");
        g.writeNumber(formatUs(tsNs));
        g.writeFieldName("dur");
        g.writeNumber(formatUs(Math.max(0, durNs)));
    }

    private static void flow(JsonGenerator g, String ph, long id, long pid, long tid, long tsNs) throws IOException {
        g.writeStartObject();
        g.writeStringField("ph", ph);
        g.writeNumberField("id", id);
        g.writeNumberField("pid", pid);
        g.writeNumberField("tid", tid);
        g.writeFieldName("ts");
        g.writeNumber(formatUs(tsNs));
        g.writeStringField("cat", "ac2g");
        g.writeStringField("name", "ac2g");
        if (ph.equals("f")) {
            g.writeStringField("bp", "e");
        }
        g.writeEndObject();
    }

    private void writeKernel(JsonGenerator g, KernelCost kc, int tp, long tsNs, long durNs, long corr, long ext)
            throws IOException {
        complete(g, "kernel", kc.name(), tp, STREAM, tsNs, durNs);
        g.writeObjectFieldStart("args");
        if (ext > 0) {
            g.writeNumberField("External id", ext);
        }
        g.writeNumberField("queued", 0);
        g.writeNumberField("device", tp);
        g.writeNumberField("context", 1);
        g.writeNumberField("stream", STREAM);
        g.writeNumberField("correlation", corr);
        g.writeNumberField("registers per thread", 128);
        g.writeNumberField("shared memory", 0);
        long blocks = (long) kc.grid().x() * kc.grid().y() * kc.grid().z();
        int threads = kc.block().x() * kc.block().y() * kc.block().z();
        double blocksPerSm = (double) blocks / config.gpu().numSms();
        g.writeNumberField("blocks per SM", Math.round(blocksPerSm * 1e6) / 1e6);
        g.writeNumberField("warps per SM", Math.round(blocksPerSm * Math.ceil(threads / 32.0) * 1e6) / 1e6);
        g.writeArrayFieldStart("grid");
        g.writeNumber(kc.grid().x());
        g.writeNumber(kc.grid().y());
        g.writeNumber(kc.grid().z());
        g.writeEndArray();
        g.writeArrayFieldStart("block");
        g.writeNumber(kc.block().x());
        g.writeNumber(kc.block().y());
        g.writeNumber(kc.block().z());
        g.writeEndArray();
        g.writeNumberField("est. achieved occupancy %", (int) Math.min(100, Math.round(blocksPerSm * 25)));
        g.writeEndObject();
        g.writeEndObject();
    }

    /**
     * A {@code cpu_op} event. With {@code recordShapes} its args carry the inputs as PyTorch's profiler records them
     * (pytorch/pytorch {@code torch/csrc/autograd/profiler_kineto.cpp}, {@code AddGenericMetadata}):
     * {@code "Concrete Inputs"} (scalars' values, {@code ""} for tensors), {@code "Input type"},
     * {@code "Input Strides"} and {@code "Input Dims"}, in the key order real SGLang traces have (e.g.
     * {@code testdata/traces/tracelens/sglang_decode}).
     */
    private static void cpuOp(JsonGenerator g, KernelCost.CpuOp op, long pid, long tsNs, long durNs, long ext,
                              boolean recordShapes) throws IOException {
        complete(g, "cpu_op", op.name(), pid, pid, tsNs, durNs);
        g.writeObjectFieldStart("args");
        g.writeNumberField("External id", ext);
        g.writeNumberField("Record function id", 0);
        if (recordShapes && !op.inputs().isEmpty()) {
            g.writeArrayFieldStart("Concrete Inputs");
            for (KernelCost.Input in : op.inputs()) {
                g.writeString(in.concrete());
            }
            g.writeEndArray();
            g.writeArrayFieldStart("Input type");
            for (KernelCost.Input in : op.inputs()) {
                g.writeString(in.type());
            }
            g.writeEndArray();
            g.writeArrayFieldStart("Input Strides");
            for (KernelCost.Input in : op.inputs()) {
                longs(g, in.strides());
            }
            g.writeEndArray();
            g.writeArrayFieldStart("Input Dims");
            for (KernelCost.Input in : op.inputs()) {
                longs(g, in.dims());
            }
            g.writeEndArray();
        }
        g.writeEndObject();
        g.writeEndObject();
    }

    private static void longs(JsonGenerator g, List<Long> values) throws IOException {
        g.writeStartArray();
        for (long v : values) {
            g.writeNumber(v);
        }
        g.writeEndArray();
    }
}
