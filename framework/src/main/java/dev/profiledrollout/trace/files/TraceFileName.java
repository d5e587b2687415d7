package dev.profiledrollout.trace.files;

import static org.apiguardian.api.API.Status.EXPERIMENTAL;

import java.util.Locale;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apiguardian.api.API;

/**
 * What a file in a profiler output directory is, read from its name alone: the naming rules of every engine and
 * release Profiled Rollout reads. {@link TraceFiles} applies them to directories; {@link RankIdentity} is the rank a
 * name carries.
 *
 * <h2>SGLang</h2>
 * ({@code _stop_profile} and {@code _start_profile} in sgl-project/sglang
 * {@code python/sglang/srt/managers/scheduler_components/profiler_manager.py}; {@code docs/PROTOCOLS.md} §1.3, §1.4)
 * <ul>
 *   <li>Rank trace, one per scheduler process, capture and stage:
 *       {@code [{profile_prefix}-]{profile_id}-TP-{tp}[-DP-{dp}][-PP-{pp}][-EP-{ep}][-{STAGE}].trace.json.gz}. DP, PP
 *       and EP appear only when that size is above 1; STAGE is {@code EXTEND}/{@code DECODE} (profiler V1) or
 *       {@code prefill}/{@code decode} (V2). A prefix may contain {@code -}, so the split between prefix and id is
 *       ambiguous; the shortest id after the last possible separator is taken.</li>
 *   <li>RPD (ROCm) capture: {@code rpd-{time}-TP-0.trace.json.gz}, converted by TP rank 0 only; it reads as a rank
 *       trace with prefix {@code rpd}.</li>
 *   <li>Merged trace: {@code merged-{profile_id}.trace.json.gz}, written by TP rank 0 with {@code merge_profiles}
 *       ({@code python/sglang/srt/utils/profile_merger.py}); it repeats the rank traces' events.</li>
 * </ul>
 *
 * <h2>vLLM</h2>
 * {@code torch.profiler.tensorboard_trace_handler} writes {@code <worker>.<time_ns>.pt.trace.json[.gz]}
 * (vllm-project/vllm {@code vllm/profiler/wrapper.py}, {@code TorchProfilerWrapper}); the worker name depends on the
 * release ({@code docs/PROTOCOLS.md} §2.4):
 * <ul>
 *   <li>newest: {@code [<prefix>_]dp{d}_pp{p}_tp{t}_dcp{c}_ep{e}_rank{global}} ({@code get_worker_rank_suffix} in
 *       {@code vllm/distributed/utils.py}), or {@code rank{global}} before the parallel state exists;</li>
 *   <li>v0.11 to v0.15: {@code {instance_id}-rank-{rank}};</li>
 *   <li>up to v0.10: torch's default {@code {host}_{pid}}, which carries no rank ({@link #lacksRank(String)}).</li>
 * </ul>
 * Besides: the frontend (API-server) trace {@code {host}_{pid}.async_llm.<time_ns>.pt.trace.json[.gz]}, CPU events
 * only, never a rank ({@code vllm/v1/engine/async_llm.py}); the key-averages table
 * {@code profiler_out_{local_rank}.txt} ({@code vllm/profiler/wrapper.py}).
 *
 * <h2>Other analysis inputs</h2>
 * SQLite databases (RPD {@code .rpd}, nsys {@code .sqlite}, {@code .db}) and nsys's kernel-summary {@code .csv}.
 */
@API(status = EXPERIMENTAL, since = "0.1.0")
public final class TraceFileName {

    private static final Pattern SGLANG_RANK = Pattern.compile(
            "^(?:(?<prefix>.+)-)?(?<id>.+?)-TP-(?<tp>\\d+)(?:-DP-(?<dp>\\d+))?(?:-PP-(?<pp>\\d+))?"
                    + "(?:-EP-(?<ep>\\d+))?(?:-(?<stage>EXTEND|DECODE|prefill|decode))?\\.trace\\.json\\.gz$");
    private static final String MERGED_PREFIX = "merged-";
    private static final String SGLANG_SUFFIX = ".trace.json.gz";

    private static final Pattern VLLM_PARALLEL = Pattern.compile("^(?:(?<prefix>.+)_)?dp(?<dp>\\d+)_pp(?<pp>\\d+)"
            + "_tp(?<tp>\\d+)_dcp\\d+_ep(?<ep>\\d+)_rank(?<rank>\\d+)\\.(?<id>\\d+)\\.pt\\.trace\\.json(?:\\.gz)?$");
    private static final Pattern VLLM_INSTANCE = Pattern.compile(
            "^(?<prefix>.+)-rank-(?<rank>\\d+)\\.(?<id>\\d+)\\.pt\\.trace\\.json(?:\\.gz)?$");
    private static final Pattern VLLM_RANK = Pattern.compile(
            "^(?:(?<prefix>.*)_)?rank(?<rank>\\d+)\\.(?<id>\\d+)\\.pt\\.trace\\.json(?:\\.gz)?$");
    private static final Pattern VLLM_HOST_PID = Pattern.compile(
            "^(?<worker>.+)\\.(?<ns>\\d+)\\.pt\\.trace\\.json(?<gz>\\.gz)?$");
    private static final String VLLM_FRONTEND_MARK = ".async_llm.";
    /**
     * TensorRT-LLM's torch trace per rank: {@code TLLM_TORCH_PROFILE_TRACE} with {@code -rank-<global rank>} inserted
     * before its last extension (NVIDIA/TensorRT-LLM {@code tensorrt_llm/_torch/pyexecutor/py_executor.py},
     * {@code _profiler}): {@code trtllm-rank-0.json}, or {@code trtllm.json-rank-0.gz} for a {@code .json.gz} path.
     */
    private static final Pattern TRTLLM_RANK = Pattern.compile(
            "^(?<base>.+?)(?:-rank-(?<rank>\\d+)\\.json|\\.json-rank-(?<gzrank>\\d+)\\.gz)$");
    private static final Pattern PROFILER_TABLE = Pattern.compile("^profiler_out_\\d+\\.txt$");

    private TraceFileName() {
    }

    /**
     * @return whether the name is a Kineto trace, {@code *.trace.json} or {@code *.trace.json.gz}, or TensorRT-LLM's
     *         per-rank torch trace ({@code *-rank-<N>.json}, {@code *.json-rank-<N>.gz})
     */
    public static boolean isTrace(String fileName) {
        return fileName.endsWith(".trace.json.gz") || fileName.endsWith(".trace.json")
                || TRTLLM_RANK.matcher(fileName).matches();
    }

    /** @return whether the name is vLLM's CPU-only frontend trace, {@code ….async_llm.<ns>.pt.trace.json[.gz]} */
    public static boolean isFrontend(String fileName) {
        return isTrace(fileName) && fileName.contains(VLLM_FRONTEND_MARK);
    }

    /**
     * @return whether the name is a trace a capture writes per rank: any trace but a frontend one, SGLang's merged
     *         trace included (it is one more file of the capture)
     */
    public static boolean isRankTrace(String fileName) {
        return isTrace(fileName) && !isFrontend(fileName);
    }

    /** @return whether the name is SGLang's merged trace, {@code merged-{profile_id}.trace.json.gz} */
    public static boolean isMerged(String fileName) {
        return fileName.startsWith(MERGED_PREFIX);
    }

    /**
     * @return the profile id of a merged trace's name ({@code merged-{id}.trace.json.gz}), or the name itself for any
     *         other file
     */
    public static String mergedProfileId(String fileName) {
        return isMerged(fileName)
                ? fileName.substring(MERGED_PREFIX.length()).replace(SGLANG_SUFFIX, "") : fileName;
    }

    /** @return whether the name is vLLM's key-averages table, {@code profiler_out_<local_rank>.txt} */
    public static boolean isProfilerTable(String fileName) {
        return PROFILER_TABLE.matcher(fileName).matches();
    }

    /** @return whether the analyze command reads the file as JSON: {@code *.json} or {@code *.json.gz} */
    public static boolean isJson(String fileName) {
        return fileName.endsWith(".json") || fileName.endsWith(".json.gz");
    }

    /** @return whether the name is a SQLite trace database: RPD {@code .rpd}, nsys {@code .sqlite}, {@code .db} */
    public static boolean isSqlite(String fileName) {
        String name = fileName.toLowerCase(Locale.ROOT);
        return name.endsWith(".rpd") || name.endsWith(".sqlite") || name.endsWith(".db");
    }

    /** @return whether the name is an nsys kernel summary exported as CSV ({@code .csv}) */
    public static boolean isNsysCsv(String fileName) {
        return fileName.toLowerCase(Locale.ROOT).endsWith(".csv");
    }

    /**
     * The rank a per-rank trace's name carries: SGLang's pattern first, then vLLM's.
     *
     * @param fileName a file name without directories, not null
     * @return the rank, or empty for names without one (merged, frontend, vLLM {@code {host}_{pid}}, other files)
     */
    public static Optional<RankIdentity> rank(String fileName) {
        Optional<RankIdentity> sglang = sglangRank(fileName);
        if (sglang.isPresent()) {
            return sglang;
        }
        Optional<RankIdentity> vllm = vllmRank(fileName);
        return vllm.isPresent() ? vllm : trtllmRank(fileName);
    }

    /**
     * @param fileName a file name without directories, not null
     * @return the rank of an SGLang rank (or RPD) trace, empty when the name does not follow SGLang's pattern
     */
    public static Optional<RankIdentity> sglangRank(String fileName) {
        Matcher m = SGLANG_RANK.matcher(fileName);
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

    /**
     * The rank of a vLLM worker trace. With the newest names {@code tp}, {@code dp}, {@code pp} and {@code ep} come
     * from the name; with {@code {instance}-rank-{N}} and {@code rank{N}} names {@code tp} is the global rank N. The
     * profile id is the 19-digit {@code time_ns}; the prefix is the instance id or name prefix (null when absent).
     *
     * @param fileName a file name without directories, not null
     * @return the rank, or empty for other names, the frontend trace included
     */
    public static Optional<RankIdentity> vllmRank(String fileName) {
        if (fileName.contains(VLLM_FRONTEND_MARK)) {
            return Optional.empty();
        }
        try {
            Matcher m = VLLM_PARALLEL.matcher(fileName);
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

    /**
     * The global rank of a TensorRT-LLM torch trace ({@link #TRTLLM_RANK}); its base name is the profile id.
     *
     * @param fileName a file name without directories, not null
     * @return the rank, or empty for other names
     */
    public static Optional<RankIdentity> trtllmRank(String fileName) {
        Matcher m = TRTLLM_RANK.matcher(fileName);
        if (!m.matches() || fileName.endsWith(".pt.trace.json") || fileName.endsWith(".trace.json")) {
            return Optional.empty();
        }
        try {
            String rank = m.group("rank") != null ? m.group("rank") : m.group("gzrank");
            return Optional.of(new RankIdentity(null, m.group("base"), Integer.parseInt(rank), OptionalInt.empty(),
                    OptionalInt.empty(), OptionalInt.empty(), Optional.empty()));
        } catch (NumberFormatException rankTooLarge) {
            return Optional.empty();
        }
    }

    /**
     * @return whether the name is a vLLM worker trace ({@code ….pt.trace.json[.gz]}, not the frontend) whose name
     *         carries no rank, as vLLM up to v0.10 writes them; its rank is in the trace
     *         ({@link TraceFiles#distributedRank})
     */
    public static boolean lacksRank(String fileName) {
        return fileName.contains(".pt.trace.json") && !isFrontend(fileName) && rank(fileName).isEmpty();
    }

    /**
     * The name a vLLM {@code {host}_{pid}.<ns>.pt.trace.json[.gz]} worker trace is kept under once its rank is
     * known: {@code {host}_{pid}_rank<r>.<ns>.pt.trace.json[.gz]}, which {@link #vllmRank(String)} reads.
     *
     * @return the new name, or the same name when it is not such a file
     */
    public static String withRank(String fileName, int rank) {
        Matcher m = VLLM_HOST_PID.matcher(fileName);
        if (!m.matches() || isFrontend(fileName)) {
            return fileName;
        }
        return m.group("worker") + "_rank" + rank + "." + m.group("ns") + ".pt.trace.json"
                + (m.group("gz") == null ? "" : ".gz");
    }

    /**
     * The capture stage a name's STAGE part denotes, the same for both profiler versions: {@code prefill} for
     * {@code EXTEND} or {@code prefill}, {@code decode} for {@code DECODE} or {@code decode}.
     *
     * @param written the STAGE part as written ({@link RankIdentity#stage()})
     */
    public static String canonicalStage(String written) {
        return written.equalsIgnoreCase("EXTEND") || written.equalsIgnoreCase("prefill") ? "prefill"
                : written.toLowerCase(Locale.ROOT);
    }

    private static OptionalInt optionalInt(String digits) {
        return digits == null ? OptionalInt.empty() : OptionalInt.of(Integer.parseInt(digits));
    }
}
