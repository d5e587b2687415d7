package dev.profiledrollout.trace.internal;

import static org.apiguardian.api.API.Status.INTERNAL;

import org.apiguardian.api.API;

/**
 * The CPU ops whose {@code Input type}, {@code Input Strides} and {@code Concrete Inputs} the roofline analysis reads;
 * the parsers skip those fields for every other op, so traces recorded with shapes cost little more to read.
 */
@API(status = INTERNAL, since = "0.1")
public final class RooflineOps {

    /** At least the length of the longest name {@link #covers} accepts. */
    private static final int LONGEST = 48;

    private RooflineOps() {
    }

    /** Whether calls of {@code name} get a roofline model (GEMM-like and attention ops). */
    public static boolean covers(String name) {
        // Longer than every name below (the longest has 45 chars): kernel names run to hundreds of chars, and a
        // String the parser's cache made anew has no hash yet, which the switch would compute over all of them.
        if (name.length() > LONGEST) {
            return false;
        }
        return switch (name) {
            case "aten::mm", "aten::addmm", "aten::_scaled_mm", "trtllm::cublas_scaled_mm", "aten::bmm",
                 "aten::baddbmm", "aten::linear", "aten::matmul",
                 "aten::_scaled_dot_product_flash_attention", "aten::_scaled_dot_product_efficient_attention",
                 "aten::_scaled_dot_product_cudnn_attention", "aten::scaled_dot_product_attention",
                 "flash_attn::_flash_attn_forward", "FlashAttnFunc" -> true;
            default -> false;
        };
    }

    /** Whether an event named {@code name} (null: not read yet) needs its argument fields read. */
    static boolean wantsArguments(String name) {
        return name == null || covers(name);
    }
}
