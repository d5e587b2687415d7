package dev.profiledrollout.trace.files;

import static org.apiguardian.api.API.Status.EXPERIMENTAL;

import java.util.Comparator;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apiguardian.api.API;

/**
 * The parallel rank a per-rank SGLang or vLLM trace file belongs to, read from its name (the naming rules are
 * {@link TraceFileName}'s) or, for SGLang merged traces, from an event's string pid.
 *
 * <p>Ordered by TP, then DP, PP, EP (absent first), stage, profile id and prefix.
 *
 * @param prefix    {@code profile_prefix}, or null when the name has none
 * @param profileId the profile id (SGLang uses {@code time.time()}, e.g. {@code 1773999986.4851577}), not null
 * @param tp        global tensor-parallel rank
 * @param dp        data-parallel (attention-DP) rank, when present in the name
 * @param pp        pipeline-parallel rank, when present
 * @param ep        expert-parallel rank, when present
 * @param stage     {@code EXTEND}, {@code DECODE}, {@code prefill} or {@code decode} as written, when present
 */
@API(status = EXPERIMENTAL, since = "0.1")
public record RankIdentity(String prefix, String profileId, int tp, OptionalInt dp, OptionalInt pp,
                           OptionalInt ep, Optional<String> stage) implements Comparable<RankIdentity> {

    private static final Comparator<OptionalInt> OPTIONAL_INT =
            Comparator.comparingInt((OptionalInt o) -> o.isPresent() ? 1 : 0).thenComparingInt(o -> o.orElse(0));

    private static final Comparator<RankIdentity> ORDER = Comparator.comparingInt(RankIdentity::tp)
            .thenComparing(RankIdentity::dp, OPTIONAL_INT)
            .thenComparing(RankIdentity::pp, OPTIONAL_INT)
            .thenComparing(RankIdentity::ep, OPTIONAL_INT)
            .thenComparing(r -> r.stage().orElse(""))
            .thenComparing(RankIdentity::profileId)
            .thenComparing(r -> r.prefix() == null ? "" : r.prefix());

    public RankIdentity {
        Objects.requireNonNull(profileId, "profileId");
        Objects.requireNonNull(dp, "dp");
        Objects.requireNonNull(pp, "pp");
        Objects.requireNonNull(ep, "ep");
        Objects.requireNonNull(stage, "stage");
    }

    /**
     * Reads the rank from an SGLang per-rank trace file name (no directories), for example
     * {@code 1773999986.4851577-TP-0.trace.json.gz}; the pattern is {@link TraceFileName}'s.
     *
     * @param fileName a file name, not null
     * @return the rank, or empty when the name does not follow the SGLang pattern (merged files
     *         {@code merged-{id}.trace.json.gz}, vLLM or torch {@code *.pt.trace.json.gz} names)
     */
    public static Optional<RankIdentity> fromSglangFileName(String fileName) {
        return TraceFileName.sglangRank(fileName);
    }

    /**
     * Reads the rank from a vLLM worker trace file name, in any of the releases' naming schemes
     * ({@link TraceFileName#vllmRank(String)}).
     *
     * @param fileName a file name, not null
     * @return the rank, or empty for other names (including the CPU-only {@code .async_llm.} frontend file)
     */
    public static Optional<RankIdentity> fromVllmFileName(String fileName) {
        return TraceFileName.vllmRank(fileName);
    }

    /** {@link #fromSglangFileName(String)}, else {@link #fromVllmFileName(String)}. */
    public static Optional<RankIdentity> fromFileName(String fileName) {
        return TraceFileName.rank(fileName);
    }

    /**
     * The rank of one process of an SGLang merged trace from its string pid ({@code "[TP01-DP00] 1234"},
     * {@code docs/PROTOCOLS.md} §1.4): labels TP, DP, PP, EP in that order, two digits each. The profile id is
     * {@code profileId} (from the merged file's name {@code merged-{id}.trace.json.gz}).
     *
     * @return the rank, or empty when {@code pid} has no {@code [TP..]} label
     */
    public static Optional<RankIdentity> fromMergedPid(String pid, String profileId) {
        Matcher m = MERGED_PID.matcher(pid);
        if (!m.lookingAt()) {
            return Optional.empty();
        }
        try {
            return Optional.of(new RankIdentity(null, profileId, Integer.parseInt(m.group("tp")),
                    optionalInt(m.group("dp")), optionalInt(m.group("pp")), optionalInt(m.group("ep")),
                    Optional.empty()));
        } catch (NumberFormatException rankTooLarge) {
            return Optional.empty();
        }
    }

    private static final Pattern MERGED_PID = Pattern.compile(
            "^\\[TP(?<tp>\\d+)(?:-DP(?<dp>\\d+))?(?:-PP(?<pp>\\d+))?(?:-EP(?<ep>\\d+))?\\]");

    /** A short label such as {@code TP-0}, {@code TP-1-DP-0-EP-2-DECODE} (parts in file-name order). */
    public String label() {
        StringBuilder label = new StringBuilder("TP-").append(tp);
        dp.ifPresent(v -> label.append("-DP-").append(v));
        pp.ifPresent(v -> label.append("-PP-").append(v));
        ep.ifPresent(v -> label.append("-EP-").append(v));
        stage.ifPresent(s -> label.append('-').append(s));
        return label.toString();
    }

    @Override
    public int compareTo(RankIdentity other) {
        return ORDER.compare(this, other);
    }

    private static OptionalInt optionalInt(String digits) {
        return digits == null ? OptionalInt.empty() : OptionalInt.of(Integer.parseInt(digits));
    }
}
