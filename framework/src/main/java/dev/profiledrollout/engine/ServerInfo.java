package dev.profiledrollout.engine;

import static org.apiguardian.api.API.Status.EXPERIMENTAL;

import com.fasterxml.jackson.databind.JsonNode;

import java.util.Objects;
import java.util.OptionalInt;
import java.util.OptionalLong;
import org.apiguardian.api.API;

/**
 * The parallelism layout and identity of an SGLang server, read from {@code GET /server_info}
 * ({@code docs/PROTOCOLS.md} §1.5). Sizes absent from the answer default to 1.
 *
 * @param tpSize          {@code tp_size}: tensor-parallel size; under DP attention it is global (spans all DP ranks)
 * @param dpSize          {@code dp_size}
 * @param ppSize          {@code pp_size}
 * @param epSize          {@code ep_size}
 * @param servedModelName {@code served_model_name}, or {@code model_path} when absent; may be null
 * @param simulator       true when the answer comes from the Profiled Rollout simulator (it sets
 *                        {@code "engine":"simulator"} or {@code "simulator":true}); a real engine never does
 * @param raw             the whole answer, for fields not modelled here; not null
 */
@API(status = EXPERIMENTAL, since = "0.1")
public record ServerInfo(int tpSize, int dpSize, int ppSize, int epSize, String servedModelName, boolean simulator,
                         JsonNode raw) {

    public ServerInfo {
        Objects.requireNonNull(raw, "raw");
    }

    /**
     * Parses a {@code /server_info} answer.
     *
     * @param raw the JSON object, not null
     * @return the parsed info
     */
    public static ServerInfo fromJson(JsonNode raw) {
        String model = raw.path("served_model_name").isTextual()
                ? raw.path("served_model_name").asText()
                : raw.path("model_path").isTextual() ? raw.path("model_path").asText() : null;
        boolean simulator = "simulator".equals(raw.path("engine").asText(null)) || raw.path("simulator").asBoolean(false);
        return new ServerInfo(size(raw, "tp_size"), size(raw, "dp_size"), size(raw, "pp_size"), size(raw, "ep_size"),
                model, simulator, raw);
    }

    private static int size(JsonNode raw, String field) {
        int value = raw.path(field).asInt(1);
        return value < 1 ? 1 : value;
    }

    /**
     * The number of per-rank trace files one torch-profiler capture writes (per stage when
     * {@code profile_by_stage} is set), before any merge.
     *
     * <p>Reasoning from {@code docs/PROTOCOLS.md} §1.4: one file is written per scheduler process, named
     * {@code …-TP-{tp}[-DP-{dp}][-PP-{pp}][-EP-{ep}]}. EP ranks live inside the TP group (the EP label is a
     * second name of the same process), so EP adds no files. Under DP attention ({@code enable_dp_attention}),
     * {@code tp} is global and {@code dp} merely labels the attention-DP slice of those same TP processes, so
     * the count is {@code tp_size × pp_size}. With plain data parallelism ({@code dp_size > 1} without DP
     * attention) each of the {@code dp_size} replicas has its own {@code tp_size × pp_size} processes, so the
     * count is {@code dp_size × tp_size × pp_size}. A server that reports its own {@code dp_rank} is one replica of
     * a DP group launched as separate servers (each behind a router, as the simulator's {@code SimulatedCluster}
     * does), so it writes only its own {@code tp_size × pp_size} files.
     *
     * @return the expected number of {@code *.trace.json.gz} files per capture and stage
     */
    public int expectedRankFiles() {
        return replicas() * tpSize * ppSize;
    }

    /**
     * The number of trace files one {@code RPD} capture writes (per stage when {@code profile_by_stage} is set). SGLang
     * converts an RPD capture only in the process with TP rank 0, after a barrier over its DP×TP group
     * ({@code _stop_profile} in {@code python/sglang/srt/managers/scheduler_components/profiler_manager.py}), into
     * {@code rpd-{time.time()}-TP-0.trace.json.gz}: one file per DP replica (as {@link #expectedRankFiles()} counts
     * replicas) and pipeline stage, not one per rank.
     *
     * @return the expected number of {@code rpd-*.trace.json.gz} files per capture and stage
     */
    public int expectedRpdFiles() {
        return replicas() * ppSize;
    }

    /**
     * The server's step counter: SGLang's {@code forward_ct}, the scheduler batches run since start (warm-up
     * included), which {@code start_step} and {@code num_steps} refer to ({@code docs/PROTOCOLS.md} §1.1). Read from
     * {@code internal_states[*].forward_ct}; with several entries (one per DP scheduler) the largest. The simulator
     * reports it; SGLang's own {@code get_internal_state} ({@code python/sglang/srt/managers/scheduler.py}) does not,
     * so against a real server this is usually empty.
     *
     * @return the step count, or empty when any entry lacks it
     */
    public OptionalLong forwardCount() {
        JsonNode states = raw.path("internal_states");
        if (!states.isArray() || states.isEmpty()) {
            return OptionalLong.empty();
        }
        long max = Long.MIN_VALUE;
        for (JsonNode state : states) {
            if (!state.path("forward_ct").isIntegralNumber()) {
                return OptionalLong.empty();
            }
            max = Math.max(max, state.path("forward_ct").asLong());
        }
        return OptionalLong.of(max);
    }

    /**
     * Requests the server holds: {@code waiting_queue_size + running_batch_size} summed over
     * {@code internal_states[*]}, the names SGLang builds that report their queue give these fields in
     * {@code Scheduler.get_internal_state}; the simulator reports them too.
     *
     * @return the number of waiting and running requests (0 = idle), or empty when any entry lacks either field
     */
    public OptionalInt queuedRequests() {
        JsonNode states = raw.path("internal_states");
        if (!states.isArray() || states.isEmpty()) {
            return OptionalInt.empty();
        }
        int sum = 0;
        for (JsonNode state : states) {
            if (!state.path("waiting_queue_size").isInt() || !state.path("running_batch_size").isInt()) {
                return OptionalInt.empty();
            }
            sum += state.path("waiting_queue_size").asInt() + state.path("running_batch_size").asInt();
        }
        return OptionalInt.of(sum);
    }

    /** Separate DP replicas behind this server: plain data parallelism without DP attention, unless one replica. */
    private int replicas() {
        boolean dpAttention = raw.path("enable_dp_attention").asBoolean(false);
        boolean oneReplica = raw.path("dp_rank").isInt();
        return dpSize > 1 && !dpAttention && !oneReplica ? dpSize : 1;
    }
}
