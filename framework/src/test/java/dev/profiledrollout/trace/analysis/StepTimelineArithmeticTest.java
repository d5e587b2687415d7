package dev.profiledrollout.trace.analysis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.profiledrollout.trace.StepStats;
import dev.profiledrollout.trace.TraceDetails;
import dev.profiledrollout.trace.TraceSet;
import dev.profiledrollout.trace.TraceSummary;
import dev.profiledrollout.trace.files.RankIdentity;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/**
 * Steps × ranks on hand-built rank traces whose step figures are known: matching by ProfilerStep number or by order,
 * the straggler and gaps per step, alignment offsets, and the note.
 */
class StepTimelineArithmeticTest {

    /** A step: name, CPU start, GPU start and span, busy time; no gpu_user_annotation window. */
    private static StepStats step(String name, long start, long gpuStart, long gpuSpan, long busy) {
        return new StepStats(name, StepStats.Stage.UNKNOWN, OptionalInt.empty(), OptionalInt.empty(), start, 100, -1,
                1, busy, gpuStart, gpuSpan, busy);
    }

    private static TraceSummary rank(int tp, StepStats... steps) {
        String file = "1773999986.48-TP-" + tp + ".trace.json.gz";
        TraceDetails details = new TraceDetails(OptionalInt.empty(), OptionalLong.empty(), List.of(),
                TemporalBreakdown.empty(false), TemporalBreakdown.empty(true), List.of(), List.of(steps),
                LaunchStats.empty(), List.of(), GpuTimelineBreakdown.empty());
        return new TraceSummary(Path.of(file), RankIdentity.fromSglangFileName(file), 0, 0, 0, 0, List.of(), List.of(),
                List.of(), details);
    }

    @Test
    void profiler_steps_match_by_number_and_the_busiest_rank_of_each_is_its_straggler() {
        // TP-0 has steps 4, 5, 6; TP-1 has 5, 6, 7 and starts each step 2 µs later
        TraceSet set = TraceSet.of(List.of(
                rank(0, step("ProfilerStep#4", 0, 10, 50, 40), step("ProfilerStep#5", 100, 110, 50, 30),
                        step("ProfilerStep#6", 200, 210, 50, 20)),
                rank(1, step("ProfilerStep#5", 100, 2_110, 50, 35), step("ProfilerStep#6", 200, 2_210, 50, 20),
                        step("ProfilerStep#7", 300, 2_310, 50, 10))));
        StepTimeline t = StepTimeline.of(set);
        assertThat(t.ranks()).containsExactly("TP-0", "TP-1");
        assertThat(t.matching()).isEqualTo("profilerStepNumber");
        assertThat(t.matchedSteps()).isEqualTo(2);
        assertThat(t.steps()).extracting(StepTimeline.Step::name).containsExactly("ProfilerStep#5", "ProfilerStep#6");
        StepTimeline.Step five = t.steps().get(0);
        assertThat(five.index()).isZero();
        assertThat(five.busyNs()).containsExactly(30L, 35L);
        assertThat(five.spanNs()).containsExactly(50L, 50L);
        assertThat(five.straggler()).isEqualTo(1);
        assertThat(five.gapNs()).containsExactly(5L, 0L);
        StepTimeline.Step six = t.steps().get(1);
        assertThat(six.straggler()).isEqualTo(-1); // even: no straggler
        assertThat(six.gapNs()).containsExactly(0L, 0L);
        assertThat(t.maxGapNs()).isEqualTo(5);
        assertThat(t.worstStep()).contains(five);
        assertThat(t.stragglerCounts()).isEqualTo(Map.of("TP-0", 0, "TP-1", 1));
        assertThat(t.clockOffsetsNs()).containsExactly(0L, 2_000L);
        assertThat(t.note()).isEqualTo("2 steps matched across 2 ranks by ProfilerStep number; ranks aligned on their"
                + " own step boundaries (step starts differ by up to 0.002 ms, TP-1 vs TP-0: clocks or launch times"
                + " differ)");
    }

    @Test
    void engine_steps_match_by_order_and_a_step_without_gpu_figures_aligns_on_its_cpu_start() {
        TraceSet set = TraceSet.of(List.of(
                rank(0, step("step[DECODE bs=8]", 1_000, 0, 0, 0), step("step[DECODE bs=8]", 2_000, 0, 0, 0)),
                rank(1, step("step[DECODE bs=8]", 1_500, 0, 0, 0), step("step[DECODE bs=8]", 2_500, 0, 0, 0),
                        step("step[DECODE bs=8]", 3_500, 0, 0, 0)),
                rank(2)));
        StepTimeline t = StepTimeline.of(set);
        assertThat(t.matching()).isEqualTo("order");
        assertThat(t.ranks()).containsExactly("TP-0", "TP-1");
        assertThat(t.matchedSteps()).isEqualTo(2);
        assertThat(t.clockOffsetsNs()).containsExactly(0L, 500L);
        assertThat(t.worstStep()).isEmpty();
        assertThat(t.maxGapNs()).isZero();
        assertThat(t.stragglerCounts()).isEqualTo(Map.of("TP-0", 0, "TP-1", 0));
        assertThat(t.note()).isEqualTo("2 steps matched across 2 ranks by order (ranks recorded 2 to 3 steps); 1 rank"
                + " has no steps and is left out; ranks aligned on their own step boundaries (step starts differ by up to"
                + " 0.001 ms, TP-1 vs TP-0: clocks or launch times differ)");
    }

    @Test
    void one_rank_has_no_stragglers_and_no_traces_have_no_steps() {
        StepTimeline one = StepTimeline.of(TraceSet.of(List.of(rank(0, step("ProfilerStep#1", 0, 10, 50, 40)))));
        assertThat(one.steps()).hasSize(1);
        assertThat(one.steps().get(0).straggler()).isEqualTo(-1);
        assertThat(one.stragglerCounts()).isEmpty();
        assertThat(one.note()).isEqualTo("1 step matched across 1 rank by ProfilerStep number");
        StepTimeline none = StepTimeline.of(TraceSet.of(List.of(rank(0), rank(1))));
        assertThat(none.steps()).isEmpty();
        assertThat(none.note()).startsWith("no step annotations");
        // the same rank twice (two capture windows) is one peer
        List<TraceSummary> twice = new ArrayList<>(List.of(rank(0, step("ProfilerStep#1", 0, 10, 50, 40)),
                rank(0, step("ProfilerStep#1", 0, 10, 50, 40)), rank(0, step("ProfilerStep#1", 0, 10, 50, 40))));
        assertThat(StepTimeline.of(TraceSet.of(twice)).note())
                .endsWith("; 2 traces repeat a rank of another capture window and are left out");
        assertThat(StepTimeline.of(TraceSet.of(twice.subList(0, 2))).note())
                .endsWith("; 1 trace repeats a rank of another capture window and is left out");
        assertThat(Optional.of(one.ranks())).contains(List.of("TP-0"));
    }
}
