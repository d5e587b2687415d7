package dev.profiledrollout.trace.roofline;

import static org.assertj.core.api.Assertions.assertThat;

import dev.profiledrollout.trace.analysis.TemporalBreakdown;
import org.junit.jupiter.api.Test;

/**
 * FLOPs and bytes of {@code aten::linear} and {@code aten::matmul} calls from their recorded shapes, worked by hand
 * with TraceLens' formulas (2·M·N·K, plus M·N for a bias; bytes of A, B, the output and the bias once), and
 * {@link TemporalBreakdown}'s fractions.
 */
class RooflineWorkTest {

    @Test
    void linear_flattens_the_leading_input_dims_into_m_and_reads_n_from_the_weight() {
        // input [2, 3, 64] (M = 6, K = 64), weight [128, 64] (N = 128), bias [128], bf16
        RooflineModel.Work w = RooflineModel.work("aten::linear", "[[2,3,64],[128,64],[128]]",
                "[\"c10::BFloat16\",\"c10::BFloat16\",\"c10::BFloat16\"]", null);
        assertThat(w.flops()).isEqualTo(2.0 * 6 * 128 * 64 + 6 * 128);
        assertThat(w.bytes()).isEqualTo(2.0 * (6 * 64 + 64 * 128 + 6 * 128 + 128));
        assertThat(w.precision()).isEqualTo("bf16");

        RooflineModel.Work noBias = RooflineModel.work("aten::linear", "[[6,64],[128,64],[]]",
                "[\"float\",\"float\",\"\"]", null);
        assertThat(noBias.flops()).isEqualTo(2.0 * 6 * 128 * 64);
        assertThat(noBias.bytes()).isEqualTo(4.0 * (6 * 64 + 64 * 128 + 6 * 128));
        assertThat(noBias.precision()).isEqualTo("fp32");

        RooflineModel.Work vector = RooflineModel.work("aten::linear", "[[64],[128,64]]", "[\"c10::Half\"]", null);
        assertThat(vector.flops()).isEqualTo(2.0 * 1 * 128 * 64);

        assertThat(RooflineModel.work("aten::linear", "[[6,64],[128]]", "[\"float\"]", null)).isNull();
        assertThat(RooflineModel.work("aten::linear", "[[],[128,64]]", "[\"float\"]", null)).isNull();
    }

    @Test
    void matmul_is_mm_for_two_dims_and_broadcasts_the_batch_dims() {
        RooflineModel.Work mm = RooflineModel.work("aten::matmul", "[[8,16],[16,32]]", "[\"c10::Half\"]", null);
        assertThat(mm.flops()).isEqualTo(2.0 * 8 * 32 * 16);
        assertThat(mm.bytes()).isEqualTo(2.0 * (8 * 16 + 16 * 32 + 8 * 32));

        // [4, 1, 8, 16] × [3, 16, 32]: batch dims broadcast to 4 × 3
        RooflineModel.Work batched = RooflineModel.work("aten::matmul", "[[4,1,8,16],[3,16,32]]",
                "[\"c10::Half\"]", null);
        assertThat(batched.flops()).isEqualTo(12 * 2.0 * 8 * 32 * 16);
        assertThat(batched.bytes()).isEqualTo(12 * 2.0 * (8 * 16 + 16 * 32 + 8 * 32));
        // the batch may come from the second operand only
        RooflineModel.Work right = RooflineModel.work("aten::matmul", "[[8,16],[5,16,32]]", "[\"float\"]", null);
        assertThat(right.flops()).isEqualTo(5 * 2.0 * 8 * 32 * 16);

        assertThat(RooflineModel.work("aten::matmul", "[[16],[16,32]]", "[\"float\"]", null)).isNull();
        assertThat(RooflineModel.work("aten::matmul", "[[8,16],[16]]", "[\"float\"]", null)).isNull();
        RooflineModel.Work unknownType = RooflineModel.work("aten::matmul", "[[8,16],[16,32]]", "[\"bool\"]", null);
        assertThat(unknownType.bytes()).isNaN();
        assertThat(unknownType.precision()).isEmpty();
    }

    @Test
    void temporal_fractions_are_shares_of_the_kernel_time_span() {
        TemporalBreakdown b = new TemporalBreakdown(false, 1_000, 100, 600, 300, 200, 50);
        assertThat(b.idleFraction()).isEqualTo(0.1);
        assertThat(b.computeFraction()).isEqualTo(0.6);
        assertThat(b.nonComputeFraction()).isEqualTo(0.3);
        assertThat(b.overlapPercent()).isEqualTo(25.0);
        TemporalBreakdown empty = TemporalBreakdown.empty(true);
        assertThat(empty.htaCompatible()).isTrue();
        assertThat(empty.idleFraction()).isZero();
        assertThat(empty.computeFraction()).isZero();
        assertThat(empty.nonComputeFraction()).isZero();
        assertThat(empty.overlapPercent()).isNaN();
    }
}
