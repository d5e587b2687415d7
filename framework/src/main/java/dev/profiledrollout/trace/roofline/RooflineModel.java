package dev.profiledrollout.trace.roofline;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.profiledrollout.trace.internal.RooflineOps;
import java.io.IOException;
import java.util.Locale;
import java.util.Map;

/**
 * FLOPs and bytes moved of one call of a GEMM-like or attention op, from its recorded {@code Input Dims},
 * {@code Input type} and {@code Concrete Inputs}: TraceLens' performance model (AMD-AGI/TraceLens,
 * {@code TraceLens/PerfModel/perf_model.py}: classes {@code GEMM}, {@code aten_mm}, {@code aten_addmm},
 * {@code aten_scaled_mm}, {@code aten_bmm}, {@code aten_baddbmm}, {@code SDPA},
 * {@code aten__scaled_dot_product_*_attention}, {@code flash_attention}; bytes per element from
 * {@code TraceLens/PerfModel/utils.py} {@code name2bpe}, precision names from {@code torch_dtype_map}). The formulas
 * are restated in {@code docs/METRICS.md}; deliberate differences are listed there.
 */
final class RooflineModel {

    /** The work of one call. {@code bytes} is NaN when the element type has no known size. */
    record Work(double flops, double bytes, String precision) {
    }

    private static final ObjectMapper JSON = new ObjectMapper();

    private RooflineModel() {
    }

    /** Whether calls of this op name are modelled ({@link RooflineOps#covers}). */
    static boolean covers(String name) {
        return RooflineOps.covers(name);
    }

    /**
     * The work of a call, or null when the shapes or types do not fit the op (missing, wrong rank, unknown causal
     * flag with {@code N_Q ≠ N_KV}).
     */
    static Work work(String name, String dims, String types, String concrete) {
        try {
            JsonNode d = dims == null || dims.isEmpty() ? null : JSON.readTree(dims);
            JsonNode t = types == null || types.isEmpty() ? null : JSON.readTree(types);
            JsonNode c = concrete == null || concrete.isEmpty() ? null : JSON.readTree(concrete);
            if (d == null || !d.isArray() || t == null || !t.isArray()) {
                return null;
            }
            return switch (name) {
                case "aten::mm" -> gemm(1, shape(d, 0), shape(d, 1), false, text(t, 0), false);
                case "aten::addmm" -> gemm(1, shape(d, 1), shape(d, 2), true, text(t, 1), false);
                case "aten::_scaled_mm", "trtllm::cublas_scaled_mm" ->
                        gemm(1, shape(d, 0), shape(d, 1), d.size() == 3, text(t, 0), true);
                case "aten::bmm" -> batched(shape(d, 0), shape(d, 1), false, text(t, 0));
                case "aten::baddbmm" -> batched(shape(d, 1), shape(d, 2), true, text(t, 1));
                case "aten::linear" -> linear(d, text(t, 0));
                case "aten::matmul" -> matmul(shape(d, 0), shape(d, 1), text(t, 0));
                case "aten::_scaled_dot_product_flash_attention" -> sdpa(d, t, bool(c, 4), false);
                case "aten::_scaled_dot_product_efficient_attention", "aten::_scaled_dot_product_cudnn_attention" ->
                        sdpa(d, t, bool(c, 6), false);
                case "aten::scaled_dot_product_attention" -> sdpa(d, t, bool(c, 5), false);
                case "flash_attn::_flash_attn_forward", "FlashAttnFunc" -> sdpa(d, t, bool(c, 5), true);
                default -> null;
            };
        } catch (IOException | RuntimeException malformed) {
            return null;
        }
    }

    /** M×K by K×N, {@code B} times; the bias, when present, is 1×N (TraceLens' assumption). */
    private static Work gemm(long b, long[] a, long[] w, boolean bias, String type, boolean scaledOutput) {
        if (a == null || w == null || a.length != 2 || w.length != 2) {
            return null;
        }
        return gemmMnk(b, a[0], w[1], a[1], bias, type, scaledOutput);
    }

    private static Work gemmMnk(long b, long m, long n, long k, boolean bias, String type, boolean scaledOutput) {
        double flops = b * (2.0 * m * n * k + (bias ? (double) m * n : 0));
        int bpe = bytesPerElement(type);
        // _scaled_mm: an fp8 GEMM writes fp16/bf16, wider types write their own (TraceLens aten_scaled_mm.bytes)
        int outBpe = scaledOutput && bpe == 1 ? 2 : bpe;
        double bytes = bpe <= 0 ? Double.NaN
                : b * ((double) m * k * bpe + (double) k * n * bpe + (double) m * n * outBpe + (bias ? n * bpe : 0));
        return new Work(flops, bytes, precision(type));
    }

    private static Work batched(long[] a, long[] w, boolean bias, String type) {
        if (a == null || w == null || a.length != 3 || w.length != 3) {
            return null;
        }
        return gemmMnk(a[0], a[1], w[2], a[2], bias, type, false);
    }

    /** {@code input [..., K]}, {@code weight [N, K]}, optional {@code bias [N]}: addmm's work on the flattened input. */
    private static Work linear(JsonNode d, String type) {
        long[] x = shape(d, 0);
        long[] w = shape(d, 1);
        long[] bias = shape(d, 2);
        if (x == null || w == null || x.length < 1 || w.length != 2) {
            return null;
        }
        long m = 1;
        for (int i = 0; i < x.length - 1; i++) {
            m *= x[i];
        }
        return gemmMnk(1, m, w[0], x[x.length - 1], bias != null && bias.length > 0, type, false);
    }

    /** 2-D × 2-D as mm; batched (broadcast leading dims) as bmm. */
    private static Work matmul(long[] a, long[] w, String type) {
        if (a == null || w == null || a.length < 2 || w.length < 2) {
            return null;
        }
        long batch = 1;
        int lead = Math.max(a.length, w.length) - 2;
        for (int i = 0; i < lead; i++) {
            int ia = a.length - 3 - i;
            int iw = w.length - 3 - i;
            long da = ia >= 0 ? a[ia] : 1;
            long dw = iw >= 0 ? w[iw] : 1;
            batch *= Math.max(da, dw);
        }
        return gemmMnk(batch, a[a.length - 2], w[w.length - 1], a[a.length - 1], false, type, false);
    }

    /**
     * {@code 4 B H_Q N_Q N_KV d} (QKᵀ and PV, softmax left out), halved when causal and {@code N_Q = N_KV}; bytes
     * read Q, K, V and write O once. {@code bnhd}: flash_attn's {@code [B, N, H, d]} layout instead of
     * {@code [B, H, N, d]}.
     */
    private static Work sdpa(JsonNode d, JsonNode t, Boolean causal, boolean bnhd) {
        long[] q = shape(d, 0);
        long[] k = shape(d, 1);
        long[] v = shape(d, 2);
        if (q == null || k == null || v == null || q.length != 4 || k.length != 4 || v.length != 4) {
            return null;
        }
        int h = bnhd ? 2 : 1;
        int n = bnhd ? 1 : 2;
        long b = q[0];
        long hq = q[h];
        long nq = q[n];
        long hkv = k[h];
        long nkv = k[n];
        long dqk = q[3];
        long dv = v[3];
        if (k[0] != b || v[0] != b || v[h] != hkv || v[n] != nkv || k[3] != dqk) {
            return null;
        }
        double flops = (double) b * hq * (2.0 * nq * nkv * dqk) + (double) b * hq * (2.0 * nq * dv * nkv);
        if (Boolean.TRUE.equals(causal)) {
            if (nq != nkv) {
                return null; // TraceLens rejects causal attention with N_Q != N_KV
            }
            flops /= 2;
        }
        String type = text(t, 0);
        int bpe = bytesPerElement(type);
        double elements = (double) b * nq * hq * dqk + (double) b * nkv * hkv * dqk + (double) b * nkv * hkv * dv
                + (double) b * nq * hq * dv;
        return new Work(flops, bpe <= 0 ? Double.NaN : elements * bpe, precision(type));
    }

    private static long[] shape(JsonNode dims, int i) {
        if (i >= dims.size() || !dims.get(i).isArray()) {
            return null;
        }
        JsonNode s = dims.get(i);
        long[] out = new long[s.size()];
        for (int j = 0; j < out.length; j++) {
            if (!s.get(j).canConvertToLong()) {
                return null;
            }
            out[j] = s.get(j).asLong();
        }
        return out;
    }

    private static String text(JsonNode array, int i) {
        return i < array.size() ? array.get(i).asText("") : "";
    }

    /** {@code Concrete Inputs[i]} as a boolean: {@code "True"}/{@code "False"}; null when absent or empty. */
    private static Boolean bool(JsonNode concrete, int i) {
        if (concrete == null || i >= concrete.size()) {
            return null;
        }
        String s = concrete.get(i).asText("");
        if (s.isEmpty() || s.equals("None")) {
            return null;
        }
        return s.equalsIgnoreCase("true");
    }

    // name2bpe (TraceLens utils.py), keys lower-cased as there, plus float8_e4m3fnuz's siblings
    private static final Map<String, Integer> BPE = Map.ofEntries(
            Map.entry("double", 8), Map.entry("long int", 8),
            Map.entry("float", 4), Map.entry("scalar", 4), Map.entry("int", 4),
            Map.entry("c10::half", 2), Map.entry("c10::bfloat16", 2),
            Map.entry("c10::float8_e4m3fnuz", 1), Map.entry("c10::float8_e4m3fn", 1),
            Map.entry("c10::float8_e5m2", 1), Map.entry("c10::float8_e5m2fnuz", 1),
            Map.entry("c10::float8_e8m0fnu", 1), Map.entry("unsigned char", 1), Map.entry("signed char", 1),
            Map.entry("c10::float4_e2m1fn_x2", 1));

    /** Bytes per element of a recorded {@code Input type}, or 0 when unknown. */
    static int bytesPerElement(String type) {
        Integer bpe = type == null ? null : BPE.get(type.toLowerCase(Locale.ROOT));
        return bpe == null ? 0 : bpe;
    }

    /** The compute precision of an element type ({@code torch_dtype_map}): fp64, fp32, fp16, bf16, fp8, fp4, int8. */
    static String precision(String type) {
        String t = type == null ? "" : type.toLowerCase(Locale.ROOT);
        return switch (t) {
            case "double" -> "fp64";
            case "float" -> "fp32";
            case "c10::half" -> "fp16";
            case "c10::bfloat16" -> "bf16";
            case "c10::float8_e4m3fnuz", "c10::float8_e4m3fn", "c10::float8_e5m2", "c10::float8_e5m2fnuz",
                 "unsigned char" -> "fp8";
            case "c10::float4_e2m1fn_x2" -> "fp4";
            case "signed char" -> "int8";
            default -> "";
        };
    }
}
