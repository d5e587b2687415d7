package dev.profiledrollout.engine;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ProfileRequestTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void should_use_sglang_field_names_for_every_field() throws Exception {
        // GIVEN
        ProfileRequest request = ProfileRequest.builder()
                .outputDir("/data/prof/run-17").startStep(3).numSteps(10).activities(List.of("CPU", "GPU"))
                .profileByStage(true).withStack(false).recordShapes(false).profileId("run-17")
                .mergeProfiles(true).profilePrefix("pre").profileStages(List.of("decode")).shapeDiscovery(true).build();
        // WHEN
        JsonNode json = JSON.readTree(request.toJson());
        // THEN
        assertThat(json.fieldNames()).toIterable().containsExactly("output_dir", "start_step", "num_steps",
                "activities", "profile_by_stage", "with_stack", "record_shapes", "profile_id", "merge_profiles",
                "profile_prefix", "profile_stages", "shape_discovery");
        assertThat(json.get("output_dir").asText()).isEqualTo("/data/prof/run-17");
        assertThat(json.get("start_step").isInt()).isTrue();
        assertThat(json.get("start_step").asInt()).isEqualTo(3);
        assertThat(json.get("num_steps").asInt()).isEqualTo(10);
        assertThat(json.get("activities").toString()).isEqualTo("[\"CPU\",\"GPU\"]");
        assertThat(json.get("profile_by_stage").asBoolean()).isTrue();
        assertThat(json.get("with_stack").isBoolean()).isTrue();
        assertThat(json.get("with_stack").asBoolean()).isFalse();
        assertThat(json.get("record_shapes").asBoolean()).isFalse();
        assertThat(json.get("profile_id").asText()).isEqualTo("run-17");
        assertThat(json.get("merge_profiles").asBoolean()).isTrue();
        assertThat(json.get("profile_prefix").asText()).isEqualTo("pre");
        assertThat(json.get("profile_stages").toString()).isEqualTo("[\"decode\"]");
        assertThat(json.get("shape_discovery").asBoolean()).isTrue();
    }

    @Test
    void should_omit_null_fields_so_server_defaults_apply() {
        assertThat(ProfileRequest.builder().build().toJson()).isEqualTo("{}");
        assertThat(ProfileRequest.builder().outputDir("/tmp/p").numSteps(5).build().toJson())
                .isEqualTo("{\"output_dir\":\"/tmp/p\",\"num_steps\":5}");
    }

    @Test
    void should_expose_fields_through_accessors_and_copy_activities() {
        List<String> activities = new java.util.ArrayList<>(List.of("CPU"));
        ProfileRequest request = ProfileRequest.builder().activities(activities).numSteps(2).build();
        activities.add("GPU");
        assertThat(request.activities()).containsExactly("CPU");
        assertThat(request.numSteps()).isEqualTo(2);
        assertThat(request.withStack()).isNull();
    }

    @Test
    void should_fail_if_num_steps_is_not_positive() {
        assertThatThrownBy(() -> ProfileRequest.builder().numSteps(0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("numSteps");
    }
}
