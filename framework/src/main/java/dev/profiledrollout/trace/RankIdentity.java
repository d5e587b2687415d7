package dev.profiledrollout.trace;

import java.util.Comparator;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The parallel rank a per-rank SGLang trace file belongs to, read from its name.
 *
 * <p>SGLang names trace files
 * {@code [{profile_prefix}-]{profile_id}-TP-{tp}[-DP-{dp}][-PP-{pp}][-EP-{ep}][-{STAGE}].trace.json.gz}
 * (PROTOCOLS.md §1.4, {@code python/sglang/srt/utils/profile_merger.py}); DP, PP and EP appear only when that
 * size is above 1, and STAGE is {@code EXTEND}/{@code DECODE} (V1) or {@code prefill}/{@code decode} (V2).
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

    /** PROTOCOLS.md §1.4, verbatim. */
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
