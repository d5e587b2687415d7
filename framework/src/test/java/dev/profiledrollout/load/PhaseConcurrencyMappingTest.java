package dev.profiledrollout.load;

import dev.profiledrollout.Phase;
import dev.profiledrollout.ProfiledRollout;
import dev.profiledrollout.RolloutLoad;
import dev.profiledrollout.RolloutPhase;
import dev.profiledrollout.junit.internal.WindowSpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtensionConfigurationException;

import java.util.Arrays;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Issue 25: {@code concurrency} means a closed loop's lanes and {@code maxConcurrency} an open loop's cap, in
 * {@code @RolloutPhase} as in {@code @RolloutLoad}; a phase's {@code concurrency} is never silently turned into an open
 * loop's cap.
 */
class PhaseConcurrencyMappingTest {

    @ProfiledRollout
    @RolloutLoad(requestRate = 20, maxConcurrency = 16)
    @RolloutPhase(phase = Phase.PREFILL, concurrency = 4)
    static class OpenLoopPhaseWithLanes {
    }

    @ProfiledRollout
    @RolloutLoad(requestRate = 20, maxConcurrency = 16)
    @RolloutPhase(phase = Phase.PREFILL, maxConcurrency = 4)
    @RolloutPhase(phase = Phase.DECODE)
    static class OpenLoopPhaseWithCap {
    }

    @ProfiledRollout
    @RolloutLoad(concurrency = 8)
    @RolloutPhase(phase = Phase.PREFILL, concurrency = 4)
    @RolloutPhase(phase = Phase.DECODE, maxConcurrency = 2)
    static class ClosedLoopPhaseWithCap {
    }

    @ProfiledRollout
    @RolloutLoad(concurrency = 8)
    @RolloutPhase(phase = Phase.PREFILL, concurrency = 4)
    @RolloutPhase(phase = Phase.DECODE)
    static class ClosedLoopPhases {
    }

    private static WindowSpec spec(Class<?> c) {
        return WindowSpec.of(c.getAnnotation(ProfiledRollout.class), c.getAnnotation(RolloutLoad.class),
                List.of(c.getAnnotationsByType(RolloutPhase.class)));
    }

    private static LoadSpec phase(WindowSpec spec, Phase phase) {
        return spec.phases().stream().filter(p -> p.phase() == phase).findFirst().orElseThrow().load();
    }

    @Test
    void phase_concurrency_under_an_open_loop_is_refused_with_the_cap_attribute_named() {
        assertThatThrownBy(() -> spec(OpenLoopPhaseWithLanes.class))
                .isInstanceOf(ExtensionConfigurationException.class)
                .hasMessageContaining("@RolloutPhase(phase = PREFILL, concurrency = 4) under an open loop")
                .hasMessageContaining("maxConcurrency = 4 instead");
    }

    @Test
    void phase_max_concurrency_caps_an_open_loop_and_an_unset_one_inherits_the_load_cap() {
        WindowSpec spec = spec(OpenLoopPhaseWithCap.class);
        LoadSpec prefill = phase(spec, Phase.PREFILL);
        LoadSpec decode = phase(spec, Phase.DECODE);
        assertThat(prefill.arrival().isClosedLoop()).isFalse();
        assertThat(prefill.lanes()).isZero();
        assertThat(prefill.maxInFlight()).isEqualTo(4);
        assertThat(decode.maxInFlight()).isEqualTo(16);
    }

    @Test
    void phase_max_concurrency_on_a_closed_loop_is_refused_with_the_lanes_attribute_named() {
        assertThatThrownBy(() -> spec(ClosedLoopPhaseWithCap.class))
                .isInstanceOf(ExtensionConfigurationException.class)
                .hasMessageContaining("@RolloutPhase(phase = DECODE, maxConcurrency = 2) under a closed loop")
                .hasMessageContaining("set concurrency = 2 instead");
    }

    @Test
    void closed_loop_phase_concurrency_sets_the_lanes_and_unset_inherits_them() {
        WindowSpec spec = spec(ClosedLoopPhases.class);
        assertThat(phase(spec, Phase.PREFILL).lanes()).isEqualTo(4);
        assertThat(phase(spec, Phase.PREFILL).maxInFlight()).isEqualTo(4);
        assertThat(phase(spec, Phase.DECODE).lanes()).isEqualTo(8);
    }

    @Test
    void spec_accessors_say_what_concurrency_means_for_each_arrival_process() {
        LoadSpec closed = LoadSpec.closedLoop(6, 10, 8, 4, 0, 0, 1);
        LoadSpec open = closed.withArrival(ArrivalProcess.poisson(5), 0);
        assertThat(closed.lanes()).isEqualTo(6);
        assertThat(closed.maxInFlight()).isEqualTo(6);
        assertThat(open.lanes()).isZero();
        assertThat(open.maxInFlight()).isZero();
        assertThat(Arrays.asList(open.withArrival(ArrivalProcess.constant(5), 3).lanes(),
                open.withArrival(ArrivalProcess.constant(5), 3).maxInFlight())).containsExactly(0, 3);
    }
}
