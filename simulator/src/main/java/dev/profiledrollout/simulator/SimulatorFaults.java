package dev.profiledrollout.simulator;

import static org.apiguardian.api.API.Status.EXPERIMENTAL;

import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalInt;
import org.apiguardian.api.API;

/**
 * Faults the simulator injects on purpose, to test that a client keeps working, loses nothing and leaks nothing.
 * Set with {@link SimulatorConfig.Builder#faults(SimulatorFaults)}; the default,
 * {@link #NONE}, injects nothing. Per-engine faults that need no configuration are methods instead:
 * {@link EngineSimulator#crash()} and {@link RouterSimulator#setHealthy(int, boolean)}.
 *
 * <pre>{@code
 * SimulatorConfig.builder().faults(SimulatorFaults.builder()
 *         .stream(SimulatorFaults.StreamFault.STALL, 2, 1)   // from the 2nd streamed request on, stall after 1 chunk
 *         .stopProfileDelay(Duration.ofSeconds(5))
 *         .build()).build();
 * }</pre>
 *
 * <p>Trace faults ({@link Builder#traceExportDelay}, {@link Builder#traceGrowth}, {@link Builder#corruptTraces},
 * {@link Builder#traceEnv}) apply to the SGLang profiler only.
 */
@API(status = EXPERIMENTAL, since = "0.1")
public final class SimulatorFaults {

    /** What happens to a streamed completion once {@link #streamFaultAfterChunks()} chunks have been sent. */
    public enum StreamFault {
        /** Nothing: the normal stream. */
        NONE,
        /** Sends no more bytes and keeps the connection open until the client gives up or the simulator closes. */
        STALL,
        /** Sends a {@code data:} event that is not JSON ({@code {"choices": [}), then ends the stream. */
        MALFORMED,
        /** Ends the response cleanly without a finish reason, usage chunk or {@code [DONE]}: a cut-off stream. */
        CUT_OFF,
        /** Sends an in-stream error object ({@code {"error":{"message":…}}}) and {@code [DONE]}. */
        ERROR_EVENT,
        /** Streams every token and the usage chunk but never sends {@code [DONE]}. */
        NO_DONE
    }

    /** No fault at all. */
    public static final SimulatorFaults NONE = builder().build();

    private final String apiKey;
    private final Duration stopProfileDelay;
    private final StreamFault streamFault;
    private final int streamFaultFromRequest;
    private final int streamFaultAfterChunks;
    private final Duration traceExportDelay;
    private final Duration traceGrowth;
    private final boolean corruptTraces;
    private final Map<String, String> traceEnv;
    private final OptionalInt profilerFailsOnDpRank;

    private SimulatorFaults(Builder b) {
        this.apiKey = b.apiKey;
        this.stopProfileDelay = b.stopProfileDelay;
        this.streamFault = b.streamFault;
        this.streamFaultFromRequest = b.streamFaultFromRequest;
        this.streamFaultAfterChunks = b.streamFaultAfterChunks;
        this.traceExportDelay = b.traceExportDelay;
        this.traceGrowth = b.traceGrowth;
        this.corruptTraces = b.corruptTraces;
        this.traceEnv = Collections.unmodifiableMap(new LinkedHashMap<>(b.traceEnv));
        this.profilerFailsOnDpRank = b.profilerFailsOnDpRank;
    }

    /** A builder injecting nothing. */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * The server's API key, or null: the same as {@link SimulatorConfig.Builder#apiKey(String)}, which takes precedence;
     * see {@link SimulatorConfig#apiKey()} for the routes that demand it.
     */
    public String apiKey() {
        return apiKey;
    }

    /** How long {@code /stop_profile} waits before it exports and answers. Default zero. */
    public Duration stopProfileDelay() {
        return stopProfileDelay;
    }

    /** The fault applied to streamed completions. Default {@link StreamFault#NONE}. */
    public StreamFault streamFault() {
        return streamFault;
    }

    /** The 1-based number of the first streamed request (counted per engine) that suffers {@link #streamFault()}. */
    public int streamFaultFromRequest() {
        return streamFaultFromRequest;
    }

    /** Chunks sent normally before {@link #streamFault()} strikes. */
    public int streamFaultAfterChunks() {
        return streamFaultAfterChunks;
    }

    /** How long after the capture ends its trace files start to appear. Default zero. */
    public Duration traceExportDelay() {
        return traceExportDelay;
    }

    /** Over how long each trace file grows from empty to complete, in slices. Default zero: written at once. */
    public Duration traceGrowth() {
        return traceGrowth;
    }

    /** Whether every trace file is cut to half its size after it is written. */
    public boolean corruptTraces() {
        return corruptTraces;
    }

    /** Key/value pairs written as an {@code env} object into every trace's top-level metadata (e.g. a planted token). */
    public Map<String, String> traceEnv() {
        return traceEnv;
    }

    /**
     * The DP rank whose profiler fails to start, on a {@link SimulatorConfig#dpController() DP controller}: that rank
     * records and writes nothing, while {@code /start_profile} and {@code /stop_profile} answer as DP rank 0 does,
     * because SGLang returns only DP rank 0's result ({@code _execute_profile} in
     * {@code python/sglang/srt/managers/tokenizer_control_mixin.py}). With rank 0 itself, the start answers 500 and,
     * a simplification, no other rank starts either. Empty by default.
     */
    public OptionalInt profilerFailsOnDpRank() {
        return profilerFailsOnDpRank;
    }

    /** True when trace files are written late or slowly on a background thread. */
    public boolean asyncTraceExport() {
        return !traceExportDelay.isZero() || !traceGrowth.isZero();
    }

    @Override
    public String toString() {
        return "SimulatorFaults{apiKey=" + (apiKey == null ? "none" : "set") + ", stopProfileDelay=" + stopProfileDelay
                + ", stream=" + streamFault + " from request " + streamFaultFromRequest + " after "
                + streamFaultAfterChunks + " chunks, traceExportDelay=" + traceExportDelay + ", traceGrowth="
                + traceGrowth + ", corruptTraces=" + corruptTraces + ", traceEnv keys=" + traceEnv.keySet()
                + (profilerFailsOnDpRank.isPresent() ? ", profilerFailsOnDpRank=" + profilerFailsOnDpRank.getAsInt() : "")
                + "}";
    }

    /** Fluent builder; every setter validates its argument at once. Not thread-safe. */
    public static final class Builder {
        private String apiKey;
        private Duration stopProfileDelay = Duration.ZERO;
        private StreamFault streamFault = StreamFault.NONE;
        private int streamFaultFromRequest = 1;
        private int streamFaultAfterChunks = 0;
        private Duration traceExportDelay = Duration.ZERO;
        private Duration traceGrowth = Duration.ZERO;
        private boolean corruptTraces;
        private final Map<String, String> traceEnv = new LinkedHashMap<>();
        private OptionalInt profilerFailsOnDpRank = OptionalInt.empty();

        private Builder() {
        }

        /**
         * @param dpRank not negative; checked against the configuration's DP size in
         *               {@link SimulatorConfig.Builder#build()}. See {@link SimulatorFaults#profilerFailsOnDpRank()}.
         */
        public Builder profilerFailsOnDpRank(int dpRank) {
            if (dpRank < 0) {
                throw new IllegalArgumentException("profilerFailsOnDpRank needs a DP rank ≥ 0, was " + dpRank);
            }
            this.profilerFailsOnDpRank = OptionalInt.of(dpRank);
            return this;
        }

        /** @param apiKey the key to demand, not blank; null removes it. See {@link SimulatorFaults#apiKey()}. */
        public Builder apiKey(String apiKey) {
            if (apiKey != null && apiKey.isBlank()) {
                throw new IllegalArgumentException("apiKey must not be blank");
            }
            this.apiKey = apiKey;
            return this;
        }

        /** @param delay not negative; see {@link SimulatorFaults#stopProfileDelay()} */
        public Builder stopProfileDelay(Duration delay) {
            this.stopProfileDelay = nonNegative(delay, "stopProfileDelay");
            return this;
        }

        /**
         * @param fault       what happens, not null
         * @param fromRequest the first streamed request (1-based, per engine) to suffer it; earlier ones are normal
         * @param afterChunks token chunks sent normally first, not negative
         */
        public Builder stream(StreamFault fault, int fromRequest, int afterChunks) {
            this.streamFault = Objects.requireNonNull(fault, "fault");
            if (fromRequest < 1 || afterChunks < 0) {
                throw new IllegalArgumentException("stream fault needs fromRequest ≥ 1 and afterChunks ≥ 0, was "
                        + fromRequest + ", " + afterChunks);
            }
            this.streamFaultFromRequest = fromRequest;
            this.streamFaultAfterChunks = afterChunks;
            return this;
        }

        /** @param delay not negative; see {@link SimulatorFaults#traceExportDelay()} */
        public Builder traceExportDelay(Duration delay) {
            this.traceExportDelay = nonNegative(delay, "traceExportDelay");
            return this;
        }

        /** @param growth not negative; see {@link SimulatorFaults#traceGrowth()} */
        public Builder traceGrowth(Duration growth) {
            this.traceGrowth = nonNegative(growth, "traceGrowth");
            return this;
        }

        /** See {@link SimulatorFaults#corruptTraces()}. */
        public Builder corruptTraces(boolean corrupt) {
            this.corruptTraces = corrupt;
            return this;
        }

        /** Adds one {@code env} entry to every trace; see {@link SimulatorFaults#traceEnv()}. */
        public Builder traceEnv(String key, String value) {
            traceEnv.put(Objects.requireNonNull(key, "key"), Objects.requireNonNull(value, "value"));
            return this;
        }

        public SimulatorFaults build() {
            return new SimulatorFaults(this);
        }

        private static Duration nonNegative(Duration d, String name) {
            if (d == null || d.isNegative()) {
                throw new IllegalArgumentException(name + " must be a non-negative duration, was " + d);
            }
            return d;
        }
    }
}
