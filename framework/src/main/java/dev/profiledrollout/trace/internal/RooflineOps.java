package dev.profiledrollout.trace.internal;

import static org.apiguardian.api.API.Status.INTERNAL;

import org.apiguardian.api.API;

/**
 * The CPU ops whose {@code Input type}, {@code Input Strides} and {@code Concrete Inputs} the roofline analysis reads;
 * the parsers skip those fields for every other op, so traces recorded with shapes cost little more to read.
 */
@API(status = INTERNAL, since = "0.1")
public final class RooflineOps {

    private RooflineOps() {
    }

    /** Whether calls of {@code name} get a roofline model (GEMM-like and attention ops). */
    public static boolean covers(String name) {
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
