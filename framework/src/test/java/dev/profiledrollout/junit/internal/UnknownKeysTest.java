package dev.profiledrollout.junit.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.profiledrollout.ProfiledRolloutKeys;
import dev.profiledrollout.junit.internal.UnknownKeys.Source;
import java.util.List;
import org.junit.jupiter.api.Test;

class UnknownKeysTest {

    @Test
    void a_misspelt_key_names_the_nearest_known_one() {
        assertThat(UnknownKeys.problem("profiledrollout.engine.ulr", Source.SYSTEM_PROPERTY)).hasValueSatisfying(p ->
                assertThat(p).startsWith("Unknown key profiledrollout.engine.ulr (system property)")
                        .contains("did you mean profiledrollout.engine.url?"));
        assertThat(UnknownKeys.problem("profiledrollout.trace.timout", Source.PLATFORM_PROPERTIES)).hasValueSatisfying(
                p -> assertThat(p).contains("(junit-platform.properties)")
                        .contains("did you mean profiledrollout.trace.timeout?"));
        assertThat(UnknownKeys.problem("PROFILEDROLLOUT_ENGINE_ULR", Source.ENVIRONMENT)).hasValueSatisfying(p ->
                assertThat(p).contains("did you mean PROFILEDROLLOUT_ENGINE_URL?"));
    }

    @Test
    void a_key_far_from_every_known_one_says_so() {
        assertThat(UnknownKeys.problem("profiledrollout.kubernetes.namespace", Source.SYSTEM_PROPERTY))
                .hasValueSatisfying(p -> assertThat(p).contains("no known key is near it")
                        .contains("ProfiledRolloutKeys.all()"));
    }

    @Test
    void every_known_key_is_valid_in_every_source_that_reads_it() {
        for (ProfiledRolloutKeys.Key key : ProfiledRolloutKeys.all()) {
            if (key.name().equals(ProfiledRolloutKeys.PROFILE_KEY_PATTERN)) {
                continue;
            }
            assertThat(UnknownKeys.problem(key.name(), Source.SYSTEM_PROPERTY)).as(key.name()).isEmpty();
            if (key.scope() != ProfiledRolloutKeys.Scope.SYSTEM_PROPERTY) {
                assertThat(UnknownKeys.problem(key.name(), Source.PLATFORM_PROPERTIES)).as(key.name()).isEmpty();
                assertThat(UnknownKeys.problem(ProfiledRolloutKeys.environmentVariable(key.name()),
                        Source.ENVIRONMENT)).as(key.name()).isEmpty();
                String profileKey = ProfiledRolloutKeys.profileKey("vllm-a100", key.name());
                assertThat(UnknownKeys.problem(profileKey, Source.SYSTEM_PROPERTY)).as(profileKey).isEmpty();
                assertThat(UnknownKeys.problem(ProfiledRolloutKeys.environmentVariable(profileKey),
                        Source.ENVIRONMENT)).as(profileKey).isEmpty();
            }
        }
    }

    @Test
    void keys_of_test_suites_and_of_others_are_left_alone() {
        assertThat(UnknownKeys.problem("profiledrollout.test.soak.seconds", Source.SYSTEM_PROPERTY)).isEmpty();
        assertThat(UnknownKeys.problem("PROFILEDROLLOUT_TEST_POSTGRES_URL", Source.ENVIRONMENT)).isEmpty();
        assertThat(UnknownKeys.problem("junit.jupiter.execution.parallel.enabled", Source.PLATFORM_PROPERTIES))
                .isEmpty();
        assertThat(UnknownKeys.problem("PATH", Source.ENVIRONMENT)).isEmpty();
    }

    @Test
    void a_misspelt_profile_key_suggests_the_same_profile_with_the_known_key() {
        assertThat(UnknownKeys.problem("profiledrollout.profiles.vllm-a100.engine.ulr", Source.SYSTEM_PROPERTY))
                .hasValueSatisfying(p -> assertThat(p)
                        .contains("did you mean profiledrollout.profiles.vllm-a100.engine.url?"));
        assertThat(UnknownKeys.problem("PROFILEDROLLOUT_PROFILES_VLLM_A100_ENGINE_ULR", Source.ENVIRONMENT))
                .hasValueSatisfying(p -> assertThat(p)
                        .contains("did you mean PROFILEDROLLOUT_PROFILES_VLLM_A100_ENGINE_URL?"));
        assertThat(UnknownKeys.problem("profiledrollout.profiles.a", Source.SYSTEM_PROPERTY))
                .hasValueSatisfying(p -> assertThat(p).contains(ProfiledRolloutKeys.PROFILE_KEY_PATTERN));
    }

    @Test
    void a_system_property_key_set_where_it_is_not_read_is_rejected_with_the_reason() {
        assertThat(UnknownKeys.problem("profiledrollout.profiles.gpu-a.load.threads", Source.SYSTEM_PROPERTY))
                .hasValueSatisfying(p -> assertThat(p).contains("cannot be set per engine profile")
                        .contains("JVM system property").contains("-Dprofiledrollout.load.threads"));
        assertThat(UnknownKeys.problem("PROFILEDROLLOUT_PROFILES_GPU_A_GPU_PEAKS_FILE", Source.ENVIRONMENT))
                .hasValueSatisfying(p -> assertThat(p).contains("cannot be set per engine profile"));
        assertThat(UnknownKeys.problem("PROFILEDROLLOUT_LOAD_THREADS", Source.ENVIRONMENT))
                .hasValueSatisfying(p -> assertThat(p).contains("not from the environment")
                        .contains("-Dprofiledrollout.load.threads"));
        assertThat(UnknownKeys.problem("profiledrollout.gpu.peaks.file", Source.PLATFORM_PROPERTIES))
                .hasValueSatisfying(p -> assertThat(p).contains("JVM system properties only"));
    }

    @Test
    void check_adds_one_problem_per_key() {
        ConfigurationProblems problems = new ConfigurationProblems();
        UnknownKeys.check(problems, List.of("profiledrollout.engine.ulr", "java.version"),
                List.of("profiledrollout.engine"), List.of("PROFILEDROLLOUT_READ_TIMOUT", "HOME"));

        assertThat(problems.list()).hasSize(2).anySatisfy(p -> assertThat(p).contains("profiledrollout.engine.url"))
                .anySatisfy(p -> assertThat(p).contains("PROFILEDROLLOUT_READ_TIMEOUT"));
    }
}
