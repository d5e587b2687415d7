package dev.profiledrollout.junit.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.profiledrollout.Activity;
import dev.profiledrollout.Backend;
import dev.profiledrollout.ProfiledRollout;
import dev.profiledrollout.RolloutLoad;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtensionConfigurationException;

/** The {@code /start_profile} body a test's annotations produce, and the combinations refused before any call. */
class StartProfileBodyTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    private static WindowSpec spec(Class<?> test) {
        return WindowSpec.of(test.getAnnotation(ProfiledRollout.class), test.getAnnotation(RolloutLoad.class));
    }

    private static JsonNode body(Class<?> test) throws Exception {
        return JSON.readTree(spec(test).profileRequest("/srv/prof/run").toJson());
    }

    @ProfiledRollout
    static class Defaults {
    }

    @Test
    void an_all_default_test_sends_only_the_output_directory() throws Exception {
        assertThat(body(Defaults.class).toString()).isEqualTo("{\"output_dir\":\"/srv/prof/run\"}");
    }

    @ProfiledRollout(numSteps = 4, startStep = 20, activities = {Activity.GPU, Activity.XPU}, withStack = false,
            recordShapes = false, profileByStage = true, profilePrefix = "nightly", profileId = "run_7",
            profileStages = "decode", shapeDiscovery = true)
    static class EveryField {
    }

    @ProfiledRollout(activities = {Activity.CPU, Activity.GPU}, mergeProfiles = true, withStack = true)
    static class MergedWithDefaultsSpelledOut {
    }

    @Test
    void every_non_default_attribute_is_sent_under_sglangs_field_name() throws Exception {
        JsonNode body = body(EveryField.class);

        assertThat(body.fieldNames()).toIterable().containsExactly("output_dir", "start_step", "num_steps",
                "activities", "profile_by_stage", "with_stack", "record_shapes", "profile_id", "profile_prefix",
                "profile_stages", "shape_discovery");
        assertThat(body.get("start_step").asInt()).isEqualTo(20);
        assertThat(body.get("num_steps").asInt()).isEqualTo(4);
        assertThat(body.get("activities").toString()).isEqualTo("[\"GPU\",\"XPU\"]");
        assertThat(body.get("with_stack").asBoolean()).isFalse();
        assertThat(body.get("record_shapes").asBoolean()).isFalse();
        assertThat(body.get("profile_id").asText()).isEqualTo("run_7");
        assertThat(body.get("profile_stages").toString()).isEqualTo("[\"decode\"]");
        assertThat(body.get("shape_discovery").asBoolean()).isTrue();
    }

    @Test
    void an_attribute_set_to_sglangs_default_is_left_to_the_server() throws Exception {
        assertThat(body(MergedWithDefaultsSpelledOut.class).toString())
                .isEqualTo("{\"output_dir\":\"/srv/prof/run\",\"merge_profiles\":true}");
    }

    @ProfiledRollout(mergeProfiles = true, profilePrefix = "pre")
    static class MergeWithPrefix {
    }

    @ProfiledRollout(profileStages = "decode")
    static class StagesWithoutStageCapture {
    }

    @ProfiledRollout(numSteps = 2, profileByStage = true, profileStages = {"decode", "EXTEND"})
    static class UnknownStage {
    }

    @ProfiledRollout(profileId = "run-7")
    static class DashInProfileId {
    }

    @Test
    void combinations_the_server_would_not_honour_are_refused_naming_the_fix() {
        assertThatThrownBy(() -> spec(MergeWithPrefix.class)).isInstanceOf(ExtensionConfigurationException.class)
                .hasMessageContaining("mergeProfiles = true, profilePrefix = \"pre\"")
                .hasMessageContaining("drop the prefix or mergeProfiles");
        assertThatThrownBy(() -> spec(StagesWithoutStageCapture.class))
                .hasMessageContaining("profileStages = [decode]").hasMessageContaining("profileByStage = true");
        assertThatThrownBy(() -> spec(UnknownStage.class)).hasMessageContaining("\"prefill\" or \"decode\"");
        assertThatThrownBy(() -> spec(DashInProfileId.class)).hasMessageContaining("profileId = \"run-7\"")
                .hasMessageContaining("'-'");
    }

    @ProfiledRollout(backend = Backend.VLLM, mergeProfiles = true)
    static class VllmMerge {
    }

    @Test
    void sglang_only_fields_are_refused_for_vllm_whose_start_takes_no_body() {
        WindowSpec spec = spec(VllmMerge.class);

        assertThatThrownBy(() -> spec.checkBackend(key -> java.util.Optional.empty()))
                .isInstanceOf(ExtensionConfigurationException.class).hasMessageContaining("with backend = VLLM")
                .hasMessageContaining("takes no body");
    }
}
