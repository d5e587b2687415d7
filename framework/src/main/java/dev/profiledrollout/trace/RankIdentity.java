package dev.profiledrollout.trace;

import java.util.Comparator;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The parallel rank a per-rank SGLang or vLLM trace file belongs to, read from its name (or, for SGLang merged
 * traces, from an event's string pid).
 *
 * <p>SGLang names trace files
 * {@code [{profile_prefix}-]{profile_id}-TP-{tp}[-DP-{dp}][-PP-{pp}][-EP-{ep}][-{STAGE}].trace.json.gz}
 * ({@code docs/PROTOCOLS.md} §1.4, {@code python/sglang/srt/utils/profile_merger.py}); DP, PP and EP appear only when
 * that size is above 1, and STAGE is {@code EXTEND}/{@code DECODE} (V1) or {@code prefill}/{@code decode} (V2).
 * Because a prefix may itself contain {@code -}, the split between prefix and profile id is ambiguous; the
 * regular expression takes the shortest profile id after the last possible prefix separator.
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
public record RankIdentity(String prefix, String profileId, int tp, OptionalInt dp, OptionalInt pp,
                           OptionalInt ep, Optional<String> stage) implements Comparable<RankIdentity> {

    /** The file-name pattern given in {@code docs/PROTOCOLS.md} §1.4. */
    private static final Pattern SGLANG_FILE_NAME = Pattern.compile(
            "^(?:(?<prefix>.+)-)?(?<id>.+?)-TP-(?<tp>\\d+)(?:-DP-(?<dp>\\d+))?(?:-PP-(?<pp>\\d+))?"
                    + "(?:-EP-(?<ep>\\d+))?(?:-(?<stage>EXTEND|DECODE|prefill|decode))?\\.trace\\.json\\.gz$");

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
     * {@code 1773999986.4851577-TP-0.trace.json.gz}.
     *
     * @param fileName a file name, not null
     * @return the rank, or empty when the name does not follow the SGLang pattern (merged files
     *         {@code merged-{id}.trace.json.gz}, vLLM or torch {@code *.pt.trace.json.gz} names)
     */
    public static Optional<RankIdentity> fromSglangFileName(String fileName) {
        Matcher m = SGLANG_FILE_NAME.matcher(fileName);
        if (!m.matches()) {
            return Optional.empty();
        }
        try {
            return Optional.of(new RankIdentity(m.group("prefix"), m.group("id"), Integer.parseInt(m.group("tp")),
                    optionalInt(m.group("dp")), optionalInt(m.group("pp")), optionalInt(m.group("ep")),
                    Optional.ofNullable(m.group("stage"))));
        } catch (NumberFormatException rankTooLarge) {
            return Optional.empty();
        }
    }

    /** vLLM ≈ v0.16+: {@code [<prefix>_]dp{d}_pp{p}_tp{t}_dcp{c}_ep{e}_rank{global}.<time_ns>.pt.trace.json[.gz]}. */
    private static final Pattern VLLM_NEW = Pattern.compile("^(?:(?<prefix>.+)_)?dp(?<dp>\\d+)_pp(?<pp>\\d+)_tp(?<tp>\\d+)"
            + "_dcp\\d+_ep(?<ep>\\d+)_rank(?<rank>\\d+)\\.(?<id>\\d+)\\.pt\\.trace\\.json(?:\\.gz)?$");
    /** vLLM v0.11 – v0.15: {@code {instance_id}-rank-{rank}.<time_ns>.pt.trace.json[.gz]}. */
    private static final Pattern VLLM_INSTANCE = Pattern.compile(
            "^(?<prefix>.+)-rank-(?<rank>\\d+)\\.(?<id>\\d+)\\.pt\\.trace\\.json(?:\\.gz)?$");
    /** vLLM fallback {@code …rank{N}.<time_ns>.pt.trace.json[.gz]}. */
    private static final Pattern VLLM_RANK = Pattern.compile(
            "^(?:(?<prefix>.*)_)?rank(?<rank>\\d+)\\.(?<id>\\d+)\\.pt\\.trace\\.json(?:\\.gz)?$");

    /**
     * Reads the rank from a vLLM worker trace file name ({@code docs/PROTOCOLS.md} §2.4,
     * {@code tensorboard_trace_handler}). With the newest names, {@code tp}/{@code dp}/{@code pp}/{@code ep} come from
     * the name; with {@code {instance}-rank-{N}} and {@code rank{N}} names, {@code tp} is the global rank N. The
     * profile id is the 19-digit {@code time_ns}; the prefix is the instance id or name prefix (null when absent).
     *
     * @param fileName a file name, not null
     * @return the rank, or empty for other names (including the CPU-only {@code .async_llm.} frontend file)
     */
    public static Optional<RankIdentity> fromVllmFileName(String fileName) {
        if (fileName.contains(".async_llm.")) {
            return Optional.empty();
        }
        try {
            Matcher m = VLLM_NEW.matcher(fileName);
            if (m.matches()) {
                return Optional.of(new RankIdentity(m.group("prefix"), m.group("id"), Integer.parseInt(m.group("tp")),
                        optionalInt(m.group("dp")), optionalInt(m.group("pp")), optionalInt(m.group("ep")),
                        Optional.empty()));
            }
            for (Pattern p : new Pattern[] {VLLM_INSTANCE, VLLM_RANK}) {
                m = p.matcher(fileName);
                if (m.matches()) {
                    return Optional.of(new RankIdentity(m.group("prefix"), m.group("id"),
                            Integer.parseInt(m.group("rank")), OptionalInt.empty(), OptionalInt.empty(),
                            OptionalInt.empty(), Optional.empty()));
                }
            }
        } catch (NumberFormatException rankTooLarge) {
            return Optional.empty();
        }
        return Optional.empty();
    }

    /** {@link #fromSglangFileName(String)}, else {@link #fromVllmFileName(String)}. */
    public static Optional<RankIdentity> fromFileName(String fileName) {
        Optional<RankIdentity> sglang = fromSglangFileName(fileName);
        return sglang.isPresent() ? sglang : fromVllmFileName(fileName);
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
