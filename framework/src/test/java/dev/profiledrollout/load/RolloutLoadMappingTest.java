package dev.profiledrollout.load;

import dev.profiledrollout.ProfiledRollout;
import dev.profiledrollout.RolloutLoad;
import dev.profiledrollout.junit.internal.WindowSpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtensionConfigurationException;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class RolloutLoadMappingTest {

    @ProfiledRollout
    @RolloutLoad
    static class Defaults {
    }

    @ProfiledRollout
    @RolloutLoad(requestRate = 200, burstiness = 0.5, maxConcurrency = 16, durationSeconds = 2.5, prefixTokens = 64,
            endpoint = "/generate")
    static class OpenLoop {
    }

    @ProfiledRollout
    @RolloutLoad(rampUpStartRate = 10, rampUpEndRate = 100)
    static class Ramp {
    }

    @ProfiledRollout
    @RolloutLoad(rampUpStartRate = 10, rampUpEndRate = 100, rampUpStrategy = "exponential")
    static class ExponentialRamp {
    }

    @ProfiledRollout
    @RolloutLoad(rampUpStartRate = 10, rampUpEndRate = 100, rampUpStrategy = "quadratic")
    static class UnknownRamp {
    }

    @ProfiledRollout
    @RolloutLoad(requestRate = 10, burstiness = 0)
    static class Invalid {
    }

    private static LoadSpec load(Class<?> c) {
        return WindowSpec.of(c.getAnnotation(ProfiledRollout.class), c.getAnnotation(RolloutLoad.class)).load();
    }

    @Test
    void defaults_keep_todays_closed_loop() {
        assertThat(load(Defaults.class)).isEqualTo(new LoadSpec(8, 32, 256, 32, 0.0, 2, 0L));
    }

    @Test
    void open_loop_attributes_map_onto_the_spec() {
        LoadSpec spec = load(OpenLoop.class);
        assertThat(spec.arrival()).isEqualTo(ArrivalProcess.gamma(200, 0.5));
        assertThat(spec.concurrency()).isEqualTo(16);
        assertThat(spec.maxDuration()).isEqualTo(Duration.ofMillis(2500));
        assertThat(spec.prefixTokens()).isEqualTo(64);
        assertThat(spec.endpoint()).isEqualTo(Endpoint.GENERATE);
        assertThat(load(Ramp.class).arrival()).isEqualTo(ArrivalProcess.linearRamp(10, 100, 1.0));
        assertThat(load(ExponentialRamp.class).arrival()).isEqualTo(ArrivalProcess.exponentialRamp(10, 100, 1.0));
    }

    @Test
    void invalid_shapes_are_configuration_errors_naming_the_attribute() {
        assertThatThrownBy(() -> load(Invalid.class)).isInstanceOf(ExtensionConfigurationException.class)
                .hasMessageContaining("@RolloutLoad").hasMessageContaining("burstiness must be > 0");
        assertThatThrownBy(() -> load(UnknownRamp.class)).isInstanceOf(ExtensionConfigurationException.class)
                .hasMessageContaining("rampUpStrategy = \"quadratic\"").hasMessageContaining("exponential");
    }
}
