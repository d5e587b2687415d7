package dev.profiledrollout.simulator;

import static org.apiguardian.api.API.Status.EXPERIMENTAL;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.apiguardian.api.API;

/**
 * One GPU kernel of a simulated step, with the work the {@link CostModel} charged it and the time that work takes
 * on one TP rank before fault injection.
 *
 * @param name       CUDA kernel name as it appears in a Kineto trace, e.g.
 *                   {@code "void flashinfer::norm::FusedAddRMSNormKernel<8u, __nv_bfloat16>(…)"}
 * @param kind       what the kernel does
 * @param flops      floating-point operations on one rank
 * @param bytes      device-memory (or, for all-reduce, interconnect) bytes moved on one rank
 * @param durationNs roofline time plus launch floor, ns; at least 1
 * @param grid       CUDA grid, {@code [x, y, z]}
 * @param block      CUDA block, {@code [x, y, z]}
 * @param op         the CPU operator that launches the kernel, with the inputs the {@link CostModel} sized it by;
 *                   not null
 */
@API(status = EXPERIMENTAL, since = "0.1")
public record KernelCost(String name, Kind kind, double flops, double bytes, long durationNs, Dim3 grid, Dim3 block,
                         CpuOp op) {

    public KernelCost {
        Objects.requireNonNull(op, "op");
    }

    /** A kernel launched by {@link CpuOp#of(Kind)}'s operator, without recorded inputs. */
    public KernelCost(String name, Kind kind, double flops, double bytes, long durationNs, Dim3 grid, Dim3 block) {
        this(name, kind, flops, bytes, durationNs, grid, block, CpuOp.of(kind));
    }

    /** The kernel categories a transformer step launches. */
    public enum Kind { EMBEDDING, NORM, GEMM, ROTARY, ATTENTION, ACTIVATION, ALL_REDUCE, SAMPLING }

    /** A CUDA launch dimension. */
    public record Dim3(int x, int y, int z) {
    }

    /** This kernel with another duration (used for fault injection). */
    public KernelCost withDurationNs(long newDurationNs) {
        return new KernelCost(name, kind, flops, bytes, Math.max(1, newDurationNs), grid, block, op);
    }

    /** This kernel launched by {@code newOp}. */
    public KernelCost withOp(CpuOp newOp) {
        return new KernelCost(name, kind, flops, bytes, durationNs, grid, block, newOp);
    }

    /**
     * One input of a CPU operator as PyTorch's profiler records it with {@code record_shapes=True}: one element of
     * {@code args."Input Dims"}, {@code "Input Strides"}, {@code "Input type"} and {@code "Concrete Inputs"} of a
     * {@code cpu_op} event (pytorch/pytorch {@code torch/csrc/autograd/profiler_kineto.cpp},
     * {@code AddGenericMetadata} for {@code TorchOp} events).
     *
     * @param dims     tensor sizes, empty for a scalar
     * @param strides  tensor strides in elements, empty for a scalar
     * @param type     the dtype's name for a tensor ({@code "c10::BFloat16"}, {@code "long int"}, {@code "float"}),
     *                 {@code "Scalar"} for a number
     * @param concrete a scalar's value as text, {@code ""} for a tensor
     */
    public record Input(List<Long> dims, List<Long> strides, String type, String concrete) {

        /** PyTorch's name of the bf16 dtype in {@code "Input type"}. */
        public static final String BF16 = "c10::BFloat16";
        /** PyTorch's name of the int64 dtype in {@code "Input type"}. */
        public static final String INT64 = "long int";

        public Input {
            dims = List.copyOf(dims);
            strides = List.copyOf(strides);
            Objects.requireNonNull(type, "type");
            Objects.requireNonNull(concrete, "concrete");
        }

        /** A contiguous (row-major) tensor of {@code type} and sizes {@code dims}. */
        public static Input tensor(String type, long... dims) {
            List<Long> d = new ArrayList<>();
            List<Long> s = new ArrayList<>();
            long stride = 1;
            for (int i = dims.length - 1; i >= 0; i--) {
                d.add(0, dims[i]);
                s.add(0, stride);
                stride *= dims[i];
            }
            return new Input(d, s, type, "");
        }

        /** A number argument, recorded with its value. */
        public static Input scalar(String value) {
            return new Input(List.of(), List.of(), "Scalar", value);
        }

        /** This 2-D tensor transposed as a view ({@code weight.t()}): sizes and strides swapped. */
        public Input transposed() {
            if (dims.size() != 2) {
                throw new IllegalStateException("transposed() needs a 2-D tensor, was " + dims);
            }
            return new Input(List.of(dims.get(1), dims.get(0)), List.of(strides.get(1), strides.get(0)), type,
                    concrete);
        }
    }

    /**
     * The CPU operator ({@code cpu_op} event) that launches a kernel.
     *
     * @param name   operator name, e.g. {@code "aten::mm"}; not null
     * @param inputs its arguments in schema order; empty when not modelled
     * @param caller the operator that calls this one and launches nothing itself (e.g. {@code aten::linear} around
     *               {@code aten::mm}), or null
     */
    public record CpuOp(String name, List<Input> inputs, CpuOp caller) {

        public CpuOp {
            Objects.requireNonNull(name, "name");
            inputs = List.copyOf(inputs);
        }

        /** An operator nobody calls. */
        public CpuOp(String name, List<Input> inputs) {
            this(name, inputs, null);
        }

        /** The operator of a kernel of {@code kind} when the inputs are not modelled. */
        public static CpuOp of(Kind kind) {
            return new CpuOp(defaultName(kind), List.of());
        }

        /**
         * Operator names by kind: ATen's for GEMMs and the embedding, sgl-kernel's custom ops
         * ({@code torch.ops.sgl_kernel.*}, sgl-project/sglang {@code sgl-kernel/python/sgl_kernel/elementwise.py})
         * for norms, rotary embedding, activation, all-reduce and sampling.
         */
        static String defaultName(Kind kind) {
            return switch (kind) {
                case EMBEDDING -> "aten::embedding";
                case NORM -> "sgl_kernel::fused_add_rmsnorm";
                case GEMM -> "aten::mm";
                case ROTARY -> "sgl_kernel::apply_rope_pos_ids_cos_sin_cache";
                case ATTENTION -> "flashinfer::paged_attention";
                case ACTIVATION -> "sgl_kernel::silu_and_mul";
                case ALL_REDUCE -> "sgl_kernel::all_reduce";
                case SAMPLING -> "sgl_kernel::top_k_top_p_sampling_from_probs";
            };
        }
    }
}
