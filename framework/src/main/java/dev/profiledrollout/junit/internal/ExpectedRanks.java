package dev.profiledrollout.junit.internal;

import dev.profiledrollout.engine.ServerInfo;
import dev.profiledrollout.trace.files.RankIdentity;
import dev.profiledrollout.trace.files.TraceFileName;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The trace files one capture of one engine leaves, and, for SGLang's torch profiler, the rank each of them belongs
 * to, so that the ranks whose files never appeared can be named.
 *
 * <p>SGLang names a rank file after its TP, DP, PP and EP rank, each part only when its size is above 1
 * ({@link TraceFileName}; {@code _stop_profile} in
 * {@code python/sglang/srt/managers/scheduler_components/profiler_manager.py}). One file per scheduler process:
 * {@code dp_size × tp_size × pp_size} with plain data parallelism behind one server, {@code tp_size × pp_size}
 * under DP attention (TP is global there and the DP part is the attention-DP rank,
 * {@code tp_rank / (tp_size / dp_size)}) or for a server that is one replica ({@code dp_rank} in
 * {@code /server_info}). The EP part adds no process, so a missing rank's EP is read from a file of the same TP and
 * PP rank that did arrive.
 */
final class ExpectedRanks {

    /** One expected rank file; {@code dp} and {@code pp} are -1 when the name has no such part. */
    private record Rank(int dp, int tp, int pp, String stage) {
    }

    private final int count;
    private final List<Rank> ranks;
    private final int dpSize;
    private final int epSize;

    private ExpectedRanks(int count, List<Rank> ranks, int dpSize, int epSize) {
        this.count = count;
        this.ranks = List.copyOf(ranks);
        this.dpSize = dpSize;
        this.epSize = epSize;
    }

    /** A known number of files whose ranks cannot be told from their names in advance (vLLM). */
    static ExpectedRanks count(int count) {
        return new ExpectedRanks(count, List.of(), 1, 1);
    }

    /**
     * The files of one SGLang capture.
     *
     * <ul>
     *   <li>RPD: {@link ServerInfo#expectedRpdFiles()} per stage, with names that carry no rank but TP 0.</li>
     *   <li>Torch profiler: every rank's file per stage, plus {@code merged-{id}.trace.json.gz} with
     *       {@code merge_profiles} (which does not match prefixed or RPD names, and is then never written).</li>
     * </ul>
     */
    static ExpectedRanks sglang(ServerInfo info, WindowSpec spec) {
        int stages = spec.stagesPerCapture();
        if (spec.rpd()) {
            return count(info.expectedRpdFiles() * stages);
        }
        List<String> stageNames = !spec.profileByStage() ? java.util.Collections.singletonList(null)
                : spec.profileStages().isEmpty() ? List.of("prefill", "decode") : spec.profileStages();
        boolean dpAttention = info.raw().path("enable_dp_attention").asBoolean(false);
        boolean oneReplica = info.raw().path("dp_rank").isInt();
        int dpSize = info.dpSize();
        List<Rank> ranks = new ArrayList<>();
        for (int pp = 0; pp < info.ppSize(); pp++) {
            int ppPart = info.ppSize() > 1 ? pp : -1;
            if (dpSize > 1 && !dpAttention && !oneReplica) {
                for (int dp = 0; dp < dpSize; dp++) {
                    for (int tp = 0; tp < info.tpSize(); tp++) {
                        for (String stage : stageNames) {
                            ranks.add(new Rank(dp, tp, ppPart, stage));
                        }
                    }
                }
                continue;
            }
            int attentionTp = Math.max(1, info.tpSize() / dpSize);
            for (int tp = 0; tp < info.tpSize(); tp++) {
                int dpPart = dpSize <= 1 ? -1 : oneReplica ? info.raw().path("dp_rank").asInt() : tp / attentionTp;
                for (String stage : stageNames) {
                    ranks.add(new Rank(dpPart, tp, ppPart, stage));
                }
            }
        }
        boolean merged = spec.mergeProfiles() && spec.profilePrefix().isEmpty();
        return new ExpectedRanks(ranks.size() + (merged ? 1 : 0), ranks, dpSize, info.epSize());
    }

    /** @return the files to wait for, a merged file included */
    int count() {
        return count;
    }

    /**
     * The expected ranks with no file among {@code present}, as labels such as {@code DP 1 · TP 0 · PP 0 · EP 0},
     * empty when the ranks cannot be told from the names.
     */
    List<String> missing(List<Path> present) {
        if (ranks.isEmpty()) {
            return List.of();
        }
        Set<Rank> found = new LinkedHashSet<>();
        Map<String, Integer> epOf = new HashMap<>();
        for (Path file : present) {
            Optional<RankIdentity> id = TraceFileName.sglangRank(file.getFileName().toString());
            if (id.isEmpty()) {
                continue;
            }
            RankIdentity r = id.get();
            found.add(new Rank(r.dp().orElse(-1), r.tp(), r.pp().orElse(-1), r.stage().map(TraceFileName::canonicalStage)
                    .orElse(null)));
            r.ep().ifPresent(ep -> epOf.put(r.tp() + "/" + r.pp().orElse(-1), ep));
        }
        List<String> labels = new ArrayList<>();
        for (Rank rank : ranks) {
            if (!found.contains(rank)) {
                Integer ep = epSize <= 1 ? Integer.valueOf(0) : epOf.get(rank.tp() + "/" + rank.pp());
                labels.add("DP " + Math.max(rank.dp(), 0) + " · TP " + rank.tp() + " · PP " + Math.max(rank.pp(), 0)
                        + " · EP " + (ep == null ? "?" : ep) + (rank.stage() == null ? "" : " (" + rank.stage() + ")"));
            }
        }
        return labels;
    }

    /** Whether every missing rank is on a DP rank other than 0 (labels from {@link #missing(List)}). */
    boolean onlyOtherDpRanks(List<String> missing) {
        return dpSize > 1 && !missing.isEmpty() && missing.stream().noneMatch(l -> l.startsWith("DP 0 "));
    }
}
