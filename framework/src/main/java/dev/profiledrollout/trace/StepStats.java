package dev.profiledrollout.trace;

import static org.apiguardian.api.API.Status.EXPERIMENTAL;
import static org.apiguardian.api.API.Status.INTERNAL;

import java.util.Objects;
import java.util.OptionalInt;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apiguardian.api.API;

/**
 * One engine step (forward pass / iteration) found in a trace, with the GPU kernel time attributed to it.
 *
 * <p>Recognised annotations (CPU {@code user_annotation}, or {@code cpu_op} in old traces; {@code docs/TRACES.md} §2):
 * <ul>
 *   <li>{@code ProfilerStep#N} (torch profiler's {@code step()}): stage {@link Stage#UNKNOWN};</li>
 *   <li>SGLang {@code step[EXTEND bs=N toks=M]} → {@link Stage#PREFILL}, {@code step[DECODE bs=N]} → {@link Stage#DECODE}
 *       ({@code python/sglang/srt/utils/profile_utils.py:build_step_span_name}); other modes → {@link Stage#UNKNOWN};</li>
 *   <li>vLLM {@code execute_context_N(T)_generation_M(T)}: only context requests → PREFILL, only generation → DECODE,
 *       both → {@link Stage#MIXED}; older {@code execute_new_N_cached_M} likewise (new = context).</li>
 * </ul>
 *
 * <p>Kernel attribution: a kernel belongs to the step whose {@code gpu_user_annotation} window of the same name (the
 * k-th GPU window of a name pairs with the k-th CPU span) contains the kernel's start; without GPU windows, to the
 * step whose CPU span contains the kernel's launch (runtime event with the kernel's {@code correlation}); without
 * a launch, to the step whose CPU span contains the kernel's start.
 *
 * @param name         the annotation name as written, not null
 * @param stage        prefill / decode / mixed / unknown, not null
 * @param batchSize    {@code bs=} of SGLang spans, or the request count of vLLM spans, when present
 * @param tokens       {@code toks=} of SGLang EXTEND spans, or the vLLM token count, when present
 * @param startNs      CPU span start, ns
 * @param durationNs   CPU span duration, ns
 * @param gpuDurationNs duration of the matching {@code gpu_user_annotation} window, or −1 when there is none
 * @param kernels      number of kernel events attributed
 * @param kernelNs     Σ {@code dur} of those kernels, ns
 * @param gpuStartNs   start of the step's GPU-side span, ns: the matching {@code gpu_user_annotation} window's start,
 *                     else the earliest start of the attributed kernels; 0 when the step has neither
 * @param gpuSpanNs    length of the GPU-side span, ns: the window's duration, else last end − first start of the
 *                     attributed kernels; 0 when the step has neither
 * @param gpuBusyNs    GPU busy time of the step, ns: length of the union of the attributed kernels'
 *                     {@code [ts, ts + dur)} intervals, each cut to the GPU-side span (kernels overlapping on several
 *                     streams count once); at most {@code gpuSpanNs} and at most {@code kernelNs}
 */
@API(status = EXPERIMENTAL, since = "0.1")
public record StepStats(String name, Stage stage, OptionalInt batchSize, OptionalInt tokens, long startNs,
                        long durationNs, long gpuDurationNs, long kernels, long kernelNs, long gpuStartNs,
                        long gpuSpanNs, long gpuBusyNs) {

    /** Prefill (SGLang EXTEND, vLLM context), decode, both, or not known. */
    public enum Stage { PREFILL, DECODE, MIXED, UNKNOWN }

    private static final Pattern SGLANG = Pattern.compile("^step\\[(\\w+) bs=(\\d+)(?: toks=(\\d+))?.*\\]$");
    /** vLLM's step span; extra fields after a group's token count (roofline metrics) are tolerated. */
    private static final Pattern VLLM = Pattern.compile(
            "^execute_context_(\\d+)\\((\\d+)[^)]*\\)_generation_(\\d+)\\((\\d+)[^)]*\\)$");
    /**
     * vLLM's step span with {@code detailed_trace_annotation} ({@code vllm/config/profiler.py}: "detailed annotations
     * with roofline metrics (sk, sqsq, sqsk)"), read as {@code execute_<tokens>_context_<n>(<metrics>)} with an
     * optional {@code _generation_<n>(<metrics>)}; the exact form was not read from vLLM's source, so it is matched
     * leniently: the counts before each parenthesis, anything inside it.
     */
    private static final Pattern VLLM_DETAILED = Pattern.compile(
            "^execute_(\\d+)_context_(\\d+)\\([^)]*\\)(?:_generation_(\\d+)\\([^)]*\\))?.*$");
    private static final Pattern VLLM_OLD = Pattern.compile("^execute_new_(\\d+)_cached_(\\d+)$");

    public StepStats {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(stage, "stage");
        Objects.requireNonNull(batchSize, "batchSize");
        Objects.requireNonNull(tokens, "tokens");
    }

    /** Whether {@code annotation} names a step this class recognises. */
    public static boolean isStepName(String annotation) {
        return annotation.startsWith("ProfilerStep#") || SGLANG.matcher(annotation).matches()
                || VLLM.matcher(annotation).matches() || VLLM_OLD.matcher(annotation).matches()
                || VLLM_DETAILED.matcher(annotation).matches();
    }

    /**
     * How much a step annotation is trusted when a trace carries several kinds: 2 for an engine's own step span
     * (SGLang {@code step[…]}, vLLM {@code execute_context_…}), 1 for the detailed {@code execute_<tokens>_context_…}
     * form (written alongside SGLang's spans by TraceLens' patched SGLang, and alone by vLLM's
     * {@code detailed_trace_annotation}), 0 for torch's {@code ProfilerStep#N}, -1 for a name that is no step.
     * Only the spans of the highest kind in a trace are its steps, so none is counted twice.
     */
    public static int priority(String annotation) {
        if (SGLANG.matcher(annotation).matches() || VLLM.matcher(annotation).matches()
                || VLLM_OLD.matcher(annotation).matches()) {
            return 2;
        }
        if (VLLM_DETAILED.matcher(annotation).matches()) {
            return 1;
        }
        return annotation.startsWith("ProfilerStep#") ? 0 : -1;
    }

    /**
     * What a step annotation's name says: its stage, batch size and tokens (as {@link #stage()}, {@link #batchSize()},
     * {@link #tokens()}), the times and kernels zero. For readers of {@code summary.json}, whose steps carry the name
     * but not the batch size and tokens.
     */
    public static StepStats ofName(String annotation) {
        return parse(Objects.requireNonNull(annotation, "annotation"), 0, 0);
    }

    /** A step with no kernels yet, parsed from its annotation name. */
    @API(status = INTERNAL, since = "0.2")
    public static StepStats parse(String name, long startNs, long durationNs) {
        Stage stage = Stage.UNKNOWN;
        OptionalInt bs = OptionalInt.empty();
        OptionalInt toks = OptionalInt.empty();
        Matcher m = SGLANG.matcher(name);
        Matcher v = VLLM.matcher(name);
        Matcher o = VLLM_OLD.matcher(name);
        Matcher d = VLLM_DETAILED.matcher(name);
        if (m.matches()) {
            stage = switch (m.group(1)) {
                case "EXTEND", "PREFILL" -> Stage.PREFILL;
                case "DECODE" -> Stage.DECODE;
                case "MIXED" -> Stage.MIXED;
                default -> Stage.UNKNOWN;
            };
            bs = parseInt(m.group(2));
            toks = m.group(3) == null ? OptionalInt.empty() : parseInt(m.group(3));
        } else if (v.matches()) {
            long ctx = Long.parseLong(v.group(1));
            long gen = Long.parseLong(v.group(3));
            stage = ctx > 0 && gen > 0 ? Stage.MIXED : ctx > 0 ? Stage.PREFILL : gen > 0 ? Stage.DECODE : Stage.UNKNOWN;
            bs = parseInt(String.valueOf(ctx + gen));
            toks = parseInt(String.valueOf(Long.parseLong(v.group(2)) + Long.parseLong(v.group(4))));
        } else if (d.matches()) {
            long ctx = Long.parseLong(d.group(2));
            long gen = d.group(3) == null ? 0 : Long.parseLong(d.group(3));
            stage = ctx > 0 && gen > 0 ? Stage.MIXED : ctx > 0 ? Stage.PREFILL : gen > 0 ? Stage.DECODE : Stage.UNKNOWN;
            bs = parseInt(String.valueOf(ctx + gen));
            toks = parseInt(d.group(1));
        } else if (o.matches()) {
            long fresh = Long.parseLong(o.group(1));
            long cached = Long.parseLong(o.group(2));
            stage = fresh > 0 && cached > 0 ? Stage.MIXED : fresh > 0 ? Stage.PREFILL : cached > 0 ? Stage.DECODE
                    : Stage.UNKNOWN;
            bs = parseInt(String.valueOf(fresh + cached));
        }
        return new StepStats(name, stage, bs, toks, startNs, durationNs, -1, 0, 0, 0, 0, 0);
    }

    /**
     * The step number of {@code ProfilerStep#N} annotations, which ranks of one job share; empty for engine step
     * spans (SGLang, vLLM), whose names carry no number.
     */
    public OptionalInt profilerStepNumber() {
        if (!name.startsWith("ProfilerStep#")) {
            return OptionalInt.empty();
        }
        return parseInt(name.substring("ProfilerStep#".length()));
    }

    @API(status = INTERNAL, since = "0.2")
    public StepStats withGpu(long gpuDurationNs, long kernels, long kernelNs) {
        return new StepStats(name, stage, batchSize, tokens, startNs, durationNs, gpuDurationNs, kernels, kernelNs,
                gpuStartNs, gpuSpanNs, gpuBusyNs);
    }

    @API(status = INTERNAL, since = "0.2")
    public StepStats withGpuSpan(long gpuStartNs, long gpuSpanNs, long gpuBusyNs) {
        return new StepStats(name, stage, batchSize, tokens, startNs, durationNs, gpuDurationNs, kernels, kernelNs,
                gpuStartNs, gpuSpanNs, gpuBusyNs);
    }

    private static OptionalInt parseInt(String digits) {
        try {
            return OptionalInt.of(Integer.parseInt(digits));
        } catch (NumberFormatException tooLarge) {
            return OptionalInt.empty();
        }
    }
}
