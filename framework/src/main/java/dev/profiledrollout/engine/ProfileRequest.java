package dev.profiledrollout.engine;

import static org.apiguardian.api.API.Status.EXPERIMENTAL;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.List;
import java.util.Objects;
import org.apiguardian.api.API;

/**
 * The body of SGLang's {@code POST /start_profile}: the fields of {@code ProfileReq} in
 * {@code python/sglang/srt/managers/io_struct.py}, as {@code _profile} in
 * {@code python/sglang/srt/managers/scheduler_components/profiler_manager.py} reads them ({@code docs/PROTOCOLS.md} §1.1).
 * Immutable.
 *
 * <p>Every field is nullable: a null field is omitted from {@link #toJson()}, so the server default applies
 * (for example {@code with_stack} and {@code record_shapes} default to true on the server, {@code activities}
 * to {@code ["CPU","GPU"]}, {@code output_dir} to {@code $SGLANG_TORCH_PROFILER_DIR}). Leaving a field null is also
 * what keeps a body valid for an older server: SGLang drops keys it does not know, so a field newer than the server
 * is silently ignored there rather than refused. Fields that only some servers read: {@code profile_id} (older
 * servers always name files by {@code str(time.time())}), {@code profile_stages} (read only by SGLang's profiler V2,
 * {@code SGLANG_PROFILE_V2=1}) and {@code shape_discovery}.
 *
 * <pre>{@code
 * ProfileRequest request = ProfileRequest.builder()
 *         .outputDir("/data/prof/run-17").numSteps(10).activities(List.of("CPU", "GPU")).build();
 * request.toJson();   // {"output_dir":"/data/prof/run-17","num_steps":10,"activities":["CPU","GPU"]}
 * }</pre>
 */
@API(status = EXPERIMENTAL, since = "0.1")
public final class ProfileRequest {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final String outputDir;
    private final Integer startStep;
    private final Integer numSteps;
    private final List<String> activities;
    private final Boolean profileByStage;
    private final Boolean withStack;
    private final Boolean recordShapes;
    private final String profileId;
    private final Boolean mergeProfiles;
    private final String profilePrefix;
    private final List<String> profileStages;
    private final Boolean shapeDiscovery;

    private ProfileRequest(Builder b) {
        this.outputDir = b.outputDir;
        this.startStep = b.startStep;
        this.numSteps = b.numSteps;
        this.activities = b.activities == null ? null : List.copyOf(b.activities);
        this.profileByStage = b.profileByStage;
        this.withStack = b.withStack;
        this.recordShapes = b.recordShapes;
        this.profileId = b.profileId;
        this.mergeProfiles = b.mergeProfiles;
        this.profilePrefix = b.profilePrefix;
        this.profileStages = b.profileStages == null ? null : List.copyOf(b.profileStages);
        this.shapeDiscovery = b.shapeDiscovery;
    }

    /** @return a builder with every field unset (null), i.e. all server defaults */
    public static Builder builder() {
        return new Builder();
    }

    /** @return {@code output_dir}: a directory on the server's filesystem, or null for the server default */
    public String outputDir() { return outputDir; }

    /** @return {@code start_step}: an absolute scheduler step number (counted from server start), or null */
    public Integer startStep() { return startStep; }

    /** @return {@code num_steps}: auto-stop after this many scheduler steps, or null (stop with /stop_profile) */
    public Integer numSteps() { return numSteps; }

    /** @return {@code activities}, e.g. {@code ["CPU","GPU"]}, unmodifiable, or null for the server default */
    public List<String> activities() { return activities; }

    /** @return {@code profile_by_stage}: separate EXTEND/DECODE captures (needs {@code num_steps}), or null */
    public Boolean profileByStage() { return profileByStage; }

    /** @return {@code with_stack}, or null (server default true) */
    public Boolean withStack() { return withStack; }

    /** @return {@code record_shapes}, or null (server default true) */
    public Boolean recordShapes() { return recordShapes; }

    /** @return {@code profile_id}, the file-name stem, or null (server uses {@code str(time.time())}) */
    public String profileId() { return profileId; }

    /** @return {@code merge_profiles}: merge per-rank traces on TP0, or null (server default false) */
    public Boolean mergeProfiles() { return mergeProfiles; }

    /** @return {@code profile_prefix}, prepended to file names (breaks merging), or null */
    public String profilePrefix() { return profilePrefix; }

    /**
     * @return {@code profile_stages}: the stages ({@code prefill}, {@code decode}) a stage-based capture records, or
     *         null for both; read by SGLang's profiler V2 only, unmodifiable
     */
    public List<String> profileStages() { return profileStages; }

    /** @return {@code shape_discovery} (only in SGLang patched with an unmerged PR; main drops it), or null */
    public Boolean shapeDiscovery() { return shapeDiscovery; }

    /**
     * @return the JSON body with SGLang's exact field names ({@code output_dir, start_step, num_steps,
     *         activities, profile_by_stage, with_stack, record_shapes, profile_id, merge_profiles,
     *         profile_prefix, profile_stages, shape_discovery}); null fields are omitted, so an all-default request
     *         is {@code {}}
     */
    public String toJson() {
        ObjectNode node = JSON.createObjectNode();
        if (outputDir != null) node.put("output_dir", outputDir);
        if (startStep != null) node.put("start_step", startStep);
        if (numSteps != null) node.put("num_steps", numSteps);
        if (activities != null) activities.forEach(node.putArray("activities")::add);
        if (profileByStage != null) node.put("profile_by_stage", profileByStage);
        if (withStack != null) node.put("with_stack", withStack);
        if (recordShapes != null) node.put("record_shapes", recordShapes);
        if (profileId != null) node.put("profile_id", profileId);
        if (mergeProfiles != null) node.put("merge_profiles", mergeProfiles);
        if (profilePrefix != null) node.put("profile_prefix", profilePrefix);
        if (profileStages != null) profileStages.forEach(node.putArray("profile_stages")::add);
        if (shapeDiscovery != null) node.put("shape_discovery", shapeDiscovery);
        return node.toString();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ProfileRequest other && toJson().equals(other.toJson());
    }

    @Override
    public int hashCode() {
        return toJson().hashCode();
    }

    @Override
    public String toString() {
        return "ProfileRequest" + toJson();
    }

    /** Collects the fields of a {@link ProfileRequest}; every setter accepts null (= server default). */
    public static final class Builder {
        private String outputDir;
        private Integer startStep;
        private Integer numSteps;
        private List<String> activities;
        private Boolean profileByStage;
        private Boolean withStack;
        private Boolean recordShapes;
        private String profileId;
        private Boolean mergeProfiles;
        private String profilePrefix;
        private List<String> profileStages;
        private Boolean shapeDiscovery;

        private Builder() {
        }

        public Builder outputDir(String outputDir) { this.outputDir = outputDir; return this; }

        public Builder startStep(Integer startStep) { this.startStep = startStep; return this; }

        public Builder numSteps(Integer numSteps) {
            if (numSteps != null && numSteps < 1) {
                throw new IllegalArgumentException("numSteps must be ≥ 1 or null (no auto-stop), was " + numSteps);
            }
            this.numSteps = numSteps;
            return this;
        }

        public Builder activities(List<String> activities) {
            if (activities != null) activities.forEach(a -> Objects.requireNonNull(a, "activities element"));
            this.activities = activities;
            return this;
        }

        public Builder profileByStage(Boolean profileByStage) { this.profileByStage = profileByStage; return this; }

        public Builder withStack(Boolean withStack) { this.withStack = withStack; return this; }

        public Builder recordShapes(Boolean recordShapes) { this.recordShapes = recordShapes; return this; }

        public Builder profileId(String profileId) { this.profileId = profileId; return this; }

        public Builder mergeProfiles(Boolean mergeProfiles) { this.mergeProfiles = mergeProfiles; return this; }

        public Builder profilePrefix(String profilePrefix) { this.profilePrefix = profilePrefix; return this; }

        public Builder profileStages(List<String> profileStages) {
            if (profileStages != null) profileStages.forEach(st -> Objects.requireNonNull(st, "profileStages element"));
            this.profileStages = profileStages;
            return this;
        }

        public Builder shapeDiscovery(Boolean shapeDiscovery) { this.shapeDiscovery = shapeDiscovery; return this; }

        public ProfileRequest build() {
            return new ProfileRequest(this);
        }
    }
}
