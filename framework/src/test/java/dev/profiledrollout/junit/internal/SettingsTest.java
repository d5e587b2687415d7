package dev.profiledrollout.junit.internal;

import dev.profiledrollout.Backend;
import dev.profiledrollout.backend.BackendSupport;
import java.time.Duration;
import java.net.URI;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtensionConfigurationException;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class SettingsTest {

    private static Settings settings(Map<String, String> parameters) {
        return new Settings(key -> Optional.ofNullable(parameters.get(key)), Map.of());
    }

    @Test
    void should_read_several_comma_separated_engine_urls() {
        Settings s = settings(Map.of("profiledrollout.engine", "attach",
                "profiledrollout.engine.url", "http://a:30000, http://b:30000"));
        s.validate();
        assertThat(s.engineUrls()).containsExactly(URI.create("http://a:30000"), URI.create("http://b:30000"));
        assertThat(s.engineUrl()).isEqualTo(URI.create("http://a:30000"));
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "profiledrollout.router.url | ftp://r:1 | profiledrollout.router.url",
            "profiledrollout.engine.url | http://a:1,nope | profiledrollout.engine.url",
            "profiledrollout.prefill.url | :bad | profiledrollout.prefill.url",
            "profiledrollout.engine.ranks | 0 | profiledrollout.engine.ranks",
            "profiledrollout.vllm.max.iterations | -1 | profiledrollout.vllm.max.iterations",
            "profiledrollout.stop.timeout | soon | profiledrollout.stop.timeout",
            "profiledrollout.trace.missing.grace | 0 | profiledrollout.trace.missing.grace",
            "profiledrollout.trace.missing.grace | a minute | profiledrollout.trace.missing.grace",
            "profiledrollout.connect.timeout | 0 | profiledrollout.connect.timeout",
            "profiledrollout.shutdown.timeout | -1 | profiledrollout.shutdown.timeout",
            "profiledrollout.trace.dir.server | /srv/prof | profiledrollout.trace.dir"})
    void should_name_the_key_of_an_invalid_value(String key, String value, String named) {
        Map<String, String> p = new java.util.HashMap<>(Map.of("profiledrollout.engine", "attach",
                "profiledrollout.engine.url", "http://e:1"));
        p.put(key, value);
        assertThatThrownBy(() -> settings(p).validate()).isInstanceOf(ExtensionConfigurationException.class)
                .hasMessageContaining(named);
    }

    @Test
    void should_refuse_a_router_url_with_the_embedded_simulator() {
        assertThatThrownBy(() -> settings(Map.of("profiledrollout.router.url", "http://r:1")).validate())
                .hasMessageContaining("profiledrollout.engine=attach");
    }

    @Test
    void should_default_the_vllm_stop_timeout_to_thirty_minutes() {
        Duration vllm = BackendSupport.of(Backend.VLLM).defaultStopTimeout();
        Duration sglang = BackendSupport.of(Backend.SGLANG).defaultStopTimeout();
        assertThat(settings(Map.of()).stopTimeout(vllm)).hasMinutes(30);
        assertThat(settings(Map.of()).stopTimeout(sglang)).hasMinutes(10);
        assertThat(settings(Map.of("profiledrollout.stop.timeout", "PT45M")).stopTimeout(vllm)).hasMinutes(45);
    }

    @Test
    void should_default_the_missing_rank_grace_to_a_minute_not_the_trace_timeout() {
        assertThat(settings(Map.of()).traceMissingGrace()).hasSeconds(60);
        assertThat(settings(Map.of()).traceTimeout()).hasMinutes(5);
        assertThat(settings(Map.of("profiledrollout.trace.missing.grace", "2.5")).traceMissingGrace()).hasMillis(2500);
    }

    @Test
    void should_default_the_connect_timeout_to_five_seconds_and_the_shutdown_timeout_to_fifteen() {
        assertThat(settings(Map.of()).connectTimeout()).hasSeconds(5);
        assertThat(settings(Map.of()).shutdownTimeout()).hasSeconds(15);
        assertThat(settings(Map.of("profiledrollout.connect.timeout", "120")).connectTimeout()).hasMinutes(2);
        assertThat(settings(Map.of("profiledrollout.shutdown.timeout", "PT25S")).shutdownTimeout()).hasSeconds(25);
    }

    @Test
    void should_read_a_profile_s_keys_before_the_global_ones_and_fall_back_for_the_rest() {
        Settings global = settings(Map.of(
                "profiledrollout.engine", "attach",
                "profiledrollout.router.url", "http://global-router:1",
                "profiledrollout.health.timeout", "30",
                "profiledrollout.load.timeout", "40",
                "profiledrollout.profiles.gpu-a.engine.url", "http://gpu-a:8000",
                "profiledrollout.profiles.gpu-a.load.timeout", "50"));

        Settings profiled = global.forProfile("gpu-a");

        // the profile names the deployment: the global engine and router are not read for it
        assertThat(profiled.engineUrls()).containsExactly(URI.create("http://gpu-a:8000"));
        assertThat(profiled.routerUrl()).isEmpty();
        assertThat(profiled.engineKind()).isEqualTo(Settings.EngineKind.EMBEDDED);
        // other keys: the profile's, else the global ones
        assertThat(profiled.loadTimeout()).hasSeconds(50);
        assertThat(profiled.healthTimeout()).hasSeconds(30);
        assertThat(profiled.profile()).contains("gpu-a");
        assertThat(global.routerUrl()).contains(URI.create("http://global-router:1"));
    }

    @Test
    void should_keep_the_global_engine_for_a_profile_that_sets_no_location_key() {
        Settings profiled = settings(Map.of(
                "profiledrollout.engine", "attach",
                "profiledrollout.engine.url", "http://global:1",
                "profiledrollout.profiles.baselines.baseline.dir", "recorded")).forProfile("baselines");

        assertThat(profiled.engineUrls()).containsExactly(URI.create("http://global:1"));
        assertThat(profiled.get("profiledrollout.baseline.dir")).contains("recorded");
        assertThat(profiled.namesEngine()).isTrue();
    }

    @Test
    void should_read_a_profile_from_its_environment_variables() {
        Settings s = new Settings(key -> Optional.empty(), Map.of(
                "PROFILEDROLLOUT_PROFILES_VLLM_A100_ENGINE", "attach",
                "PROFILEDROLLOUT_PROFILES_VLLM_A100_ENGINE_URL", "http://gpu:8000"));

        assertThat(s.profileDefined("vllm-a100")).isTrue();
        assertThat(s.profileDefined("vllm-h100")).isFalse();
        Settings profiled = s.forProfile("vllm-a100");
        profiled.validate();
        assertThat(profiled.engineUrl()).isEqualTo(URI.create("http://gpu:8000"));
        assertThat(EngineProfiles.discovered(Map.of("PROFILEDROLLOUT_PROFILES_VLLM_A100_ENGINE_URL", "x",
                "PROFILEDROLLOUT_PROFILES_PD_TRACE_DIR_SERVER", "y", "PROFILEDROLLOUT_ENGINE", "attach")))
                .contains("VLLM_A100", "PD");
    }

    @Test
    void should_refuse_a_profile_name_that_cannot_be_part_of_a_key() {
        assertThatThrownBy(() -> settings(Map.of()).forProfile("a.b"))
                .isInstanceOf(ExtensionConfigurationException.class)
                .hasMessageContaining("@EngineProfile(\"a.b\")").hasMessageContaining("letters, digits, '-' and '_'");
    }

    @Test
    void should_let_a_class_s_own_engine_override_every_source_and_say_so() {
        Settings s = settings(Map.of("profiledrollout.profiles.p.engine.ranks", "2")).forProfile("p")
                .withOverrides(Map.of("profiledrollout.engine", "attach", "profiledrollout.engine.url", "ftp://x:1"));

        assertThatThrownBy(s::validate).hasMessageContaining(
                "Invalid profiledrollout.engine.url (from the test class's @RolloutEngine)='ftp://x:1'");
        assertThat(s.engineRanks()).hasValue(2);
    }

    @Test
    void should_report_every_invalid_key_at_once() {
        assertThatThrownBy(() -> settings(Map.of(
                "profiledrollout.engine", "attached",
                "profiledrollout.engine.ranks", "two",
                "profiledrollout.connect.timeout", "-1")).validate())
                .isInstanceOf(ConfigurationProblems.InvalidConfiguration.class)
                .hasMessageStartingWith("3 configuration problems")
                .hasMessageContaining("Invalid profiledrollout.engine='attached': allowed values: embedded, attach,"
                        + " container")
                .hasMessageContaining("Invalid profiledrollout.engine.ranks='two': must be an integer ≥ 1")
                .hasMessageContaining("Invalid profiledrollout.connect.timeout='-1': must be positive");
    }
}
