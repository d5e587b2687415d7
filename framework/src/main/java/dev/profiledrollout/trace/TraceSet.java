package dev.profiledrollout.trace;

import static org.apiguardian.api.API.Status.EXPERIMENTAL;

import dev.profiledrollout.trace.analysis.KernelCategories;
import dev.profiledrollout.trace.analysis.StepTimeline;
import dev.profiledrollout.trace.files.RankIdentity;
import dev.profiledrollout.trace.files.TraceFileName;
import dev.profiledrollout.trace.reading.KinetoTraceReader;
import dev.profiledrollout.trace.reading.ParallelReads;
import dev.profiledrollout.trace.reading.SqliteTraceReader;
import dev.profiledrollout.trace.reading.TraceFormatException;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.function.Function;
import java.util.function.Predicate;
import org.apiguardian.api.API;

/**
 * The trace files of one capture, one per rank (for example SGLang's {@code {id}-TP-0.trace.json.gz},
 * {@code {id}-TP-1.trace.json.gz}), with kernel statistics merged over the ranks. Immutable.
 *
 * <p>With several engines (the workers of a router) each trace can carry the worker that wrote it
 * ({@link #withWorkers}): its ranks are then labelled {@code worker-1/TP-0} ({@link #rankLabel}) and grouped into one
 * {@linkplain #rankSets() rank set} per worker, since engines' file names alone repeat {@code TP-0}.
 *
 * <pre>{@code
 * TraceSet capture = TraceSet.read(List.of(tp0, tp1));
 * assertThat(capture.busyImbalance()).isLessThan(1.10);
 * assertThat(capture.kernels(KernelMatchers.glob("*nccl*")).share()).isLessThan(0.2);
 * }</pre>
 */
@API(status = EXPERIMENTAL, since = "0.1")
public final class TraceSet {

    private static final Comparator<TraceSummary> BY_RANK_THEN_FILE_NAME =
            Comparator.<TraceSummary, Integer>comparing(t -> t.rank().isPresent() ? 0 : 1)
                    .thenComparing((a, b) -> a.rank().isPresent() && b.rank().isPresent()
                            ? a.rank().get().compareTo(b.rank().get()) : 0)
                    .thenComparing(t -> String.valueOf(t.file().getFileName()))
                    .thenComparing(t -> t.file().toString());

    private final List<TraceSummary> traces;
    /** The worker of {@code traces.get(i)}, {@code ""} when unknown or when there is one worker. */
    private final List<String> workerOfTrace;
    /** The same, by trace identity. */
    private final Map<TraceSummary, String> workerByTrace;
    /** Worker label → its base URL without credentials ({@code ""} when unknown), in worker order. */
    private final Map<String, String> workerUrls;
    private final List<KernelStats> kernels;
    private final long kernelTotalNs;
    private final String scope;

    private TraceSet(List<TraceSummary> traces) {
        this(traces, t -> "", Map.of(), "");
    }

    private TraceSet(List<TraceSummary> traces, Function<TraceSummary, String> workerOf, Map<String, String> urls,
            String scope) {
        this.scope = scope;
        this.workerUrls = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(urls));
        List<String> order = new ArrayList<>(urls.keySet());
        Map<TraceSummary, String> workerOfSummary = new IdentityHashMap<>();
        for (TraceSummary t : traces) {
            String worker = Objects.requireNonNull(workerOf.apply(t), "worker label");
            workerOfSummary.put(t, worker);
            if (!worker.isEmpty() && !order.contains(worker)) {
                order.add(worker);
            }
        }
        List<TraceSummary> sorted = new ArrayList<>(traces);
        sorted.sort(Comparator.<TraceSummary>comparingInt(t -> order.indexOf(workerOfSummary.get(t)))
                .thenComparing(BY_RANK_THEN_FILE_NAME));
        this.traces = List.copyOf(sorted);
        this.workerOfTrace = sorted.stream().map(workerOfSummary::get).toList();
        this.workerByTrace = workerOfSummary;
        Map<String, KernelStats> merged = new LinkedHashMap<>();
        long total = 0;
        for (TraceSummary trace : this.traces) {
            for (KernelStats k : trace.kernels()) {
                merged.merge(k.name(), k, KernelStats::plus);
            }
            total += trace.kernelTotalNs();
        }
        List<KernelStats> mergedList = new ArrayList<>(merged.values());
        mergedList.sort(KernelStats.BY_TOTAL_DESCENDING);
        this.kernels = List.copyOf(mergedList);
        this.kernelTotalNs = total;
    }

    /** The worker of each trace, by identity, for a copy of this set with other traces or another scope. */
    private Function<TraceSummary, String> workerFunction() {
        return t -> workerByTrace.getOrDefault(t, "");
    }

    /**
     * @return where these traces belong, for assertion messages and verdicts: {@code ""} for a whole run, else e.g.
     *         the phase name {@code "PREFILL"} of a phased test
     */
    public String scope() {
        return scope;
    }

    /**
     * @param newScope see {@link #scope()}, not null
     * @return the same traces under {@code newScope}
     */
    public TraceSet withScope(String newScope) {
        Objects.requireNonNull(newScope, "newScope");
        return newScope.equals(scope) ? this : new TraceSet(traces, workerFunction(), workerUrls, newScope);
    }

    /**
     * The same traces, each attributed to the engine (worker) that wrote it, so that ranks of different engines are
     * told apart ({@link #rankLabel}) and analysed per engine as well ({@link #rankSets()}). Traces are then ordered
     * by worker ({@code workerUrls} order first, then first appearance), then as {@link #traces()} says.
     *
     * @param workerOfFile the worker label of a trace file (e.g. {@code "worker-2"}), {@code ""} when unknown; with one
     *                     engine pass a function that always answers {@code ""}, so labels stay plain {@code TP-0};
     *                     never null
     * @param workerUrls   worker label → its base URL without credentials ({@code ""} when unknown), in the router's
     *                     worker order; may name workers without traces; the key {@code ""} names the single engine's
     *                     URL; not null
     * @return a new set; kernels and totals are unchanged
     */
    public TraceSet withWorkers(Function<? super Path, String> workerOfFile, Map<String, String> workerUrls) {
        Objects.requireNonNull(workerOfFile, "workerOfFile");
        Objects.requireNonNull(workerUrls, "workerUrls");
        return new TraceSet(traces, t -> workerOfFile.apply(t.file()), workerUrls, scope);
    }

    /**
     * The traces of several sets as one (for example the phases of a phased test), keeping each trace's worker and
     * the workers' URLs (the first set naming a worker gives its URL).
     *
     * @param sets the sets, none null
     * @return one set with every trace, scope {@code ""}
     */
    public static TraceSet merge(Collection<TraceSet> sets) {
        List<TraceSummary> all = new ArrayList<>();
        Map<TraceSummary, String> workerOf = new IdentityHashMap<>();
        Map<String, String> urls = new LinkedHashMap<>();
        for (TraceSet set : sets) {
            for (int i = 0; i < set.traces.size(); i++) {
                all.add(set.traces.get(i));
                workerOf.put(set.traces.get(i), set.workerOfTrace.get(i));
            }
            set.workerUrls.forEach(urls::putIfAbsent);
        }
        return new TraceSet(all, t -> workerOf.getOrDefault(t, ""), urls, "");
    }

    /** A set of summaries already read (for example by {@link SqliteTraceReader}), sorted like {@link #read}. */
    public static TraceSet of(Collection<TraceSummary> summaries) {
        return new TraceSet(List.copyOf(summaries));
    }

    /**
     * The traces grouped by SGLang stage ({@code EXTEND}/{@code DECODE} of {@code profile_by_stage}, or V2's
     * {@code prefill}/{@code decode}), each group analysed as its own rank set; traces without a stage are under
     * {@code ""}. Key order: first appearance in rank order.
     *
     * @return stage → the traces of that stage
     */
    public Map<String, TraceSet> stages() {
        Map<String, List<TraceSummary>> groups = new LinkedHashMap<>();
        for (TraceSummary t : traces) {
            String stage = t.rank().flatMap(RankIdentity::stage).orElse("");
            groups.computeIfAbsent(stage, k -> new ArrayList<>()).add(t);
        }
        Map<String, TraceSet> sets = new LinkedHashMap<>();
        Function<TraceSummary, String> workerOf = workerFunction();
        groups.forEach((stage, list) -> sets.put(stage, new TraceSet(list, workerOf, workerUrls, scope)));
        return java.util.Collections.unmodifiableMap(sets);
    }

    /**
     * Reads every file with {@link KinetoTraceReader#read(Path)} (SGLang {@code merged-*} files with
     * {@link KinetoTraceReader#readRanks(Path, KernelCategories)}, one trace per rank), in parallel, one reader per
     * core ({@link ParallelReads}); the readers' threads have ended before this method returns.
     *
     * @param files the trace files, one per rank, not null
     * @throws TraceFormatException when one of the files is not a trace
     * @throws IOException          when one of the files cannot be read (the first failure, in file order)
     */
    public static TraceSet read(Collection<Path> files) throws IOException {
        List<Path> paths = List.copyOf(files);
        if (paths.isEmpty()) {
            return new TraceSet(List.of());
        }
        List<TraceSummary> summaries = new ArrayList<>();
        ParallelReads.map(paths, "trace-reader", TraceSet::readOne, summaries::addAll);
        return new TraceSet(summaries);
    }

    /** SGLang merged files are split into ranks; other files are read whole. */
    private static List<TraceSummary> readOne(Path path, boolean pipe) throws IOException {
        if (TraceFileName.isMerged(String.valueOf(path.getFileName()))) {
            return KinetoTraceReader.readRanks(path, KernelCategories.defaults(), pipe);
        }
        return List.of(KinetoTraceReader.read(path, KernelCategories.defaults(), true, pipe));
    }

    /** The per-file summaries, sorted by rank (files without a rank last), then file name. */
    public List<TraceSummary> traces() {
        return traces;
    }

    /** The first trace (in {@link #traces()} order) whose rank has this TP rank, if any. */
    public Optional<TraceSummary> rank(int tp) {
        return traces.stream().filter(t -> t.rank().map(r -> r.tp() == tp).orElse(false)).findFirst();
    }

    /**
     * Like {@link #rank(int)}, but traces without a rank in their file name also match on their
     * {@code distributedInfo.rank} ({@link TraceDetails#distributedRank()}).
     */
    public Optional<TraceSummary> anyRank(int rank) {
        return traces.stream().filter(t -> t.rank().map(r -> r.tp() == rank)
                .orElse(t.details().distributedRank().isPresent() && t.details().distributedRank().getAsInt() == rank))
                .findFirst();
    }

    /**
     * A short label for a trace of this set: the rank label ({@code TP-1-DP-0}), else {@code rank N} from
     * {@code distributedInfo}, else the file name. Without the worker: see {@link #rankLabel(TraceSummary)}.
     */
    public static String label(TraceSummary trace) {
        if (trace.rank().isPresent()) {
            return trace.rank().get().label();
        }
        if (trace.details().distributedRank().isPresent()) {
            return "rank " + trace.details().distributedRank().getAsInt();
        }
        return String.valueOf(trace.file().getFileName());
    }

    /**
     * @param trace a trace of this set
     * @return the worker that wrote it ({@code "worker-1"}), {@code ""} when this set has no workers
     *         ({@link #withWorkers}), with one engine, or when {@code trace} is not of this set
     */
    public String worker(TraceSummary trace) {
        return workerByTrace.getOrDefault(trace, "");
    }

    /**
     * The label that tells a trace apart from every other of this set: {@code worker-1/TP-0} when its worker is
     * known, else {@link #label(TraceSummary)} ({@code TP-0}).
     */
    public String rankLabel(TraceSummary trace) {
        String worker = worker(trace);
        return worker.isEmpty() ? label(trace) : worker + "/" + label(trace);
    }

    /** @return worker label → base URL ({@code ""} when unknown), in worker order; empty without workers */
    public Map<String, String> workerUrls() {
        return workerUrls;
    }

    /**
     * The traces per worker, each analysed as its own rank set: an engine's ranks wait for each other at their
     * collectives, engines behind a router do not, so imbalance and straggler mean most within one engine.
     *
     * @return worker label → its traces (with the same workers), in worker order; {@code {"" → this set}} when the
     *         traces have no worker; workers without traces are left out
     */
    public Map<String, TraceSet> rankSets() {
        Map<String, List<TraceSummary>> groups = new LinkedHashMap<>();
        for (int i = 0; i < traces.size(); i++) {
            groups.computeIfAbsent(workerOfTrace.get(i), k -> new ArrayList<>()).add(traces.get(i));
        }
        if (groups.isEmpty() || groups.keySet().equals(java.util.Set.of(""))) {
            return Map.of("", this);
        }
        Function<TraceSummary, String> workerOf = workerFunction();
        Map<String, TraceSet> sets = new LinkedHashMap<>();
        groups.forEach((worker, list) -> sets.put(worker, new TraceSet(list, workerOf, workerUrls, scope)));
        return java.util.Collections.unmodifiableMap(sets);
    }

    /**
     * Largest per-worker GPU busy time divided by the mean over workers, where a worker's busy time is the sum of
     * its ranks' {@link TraceSummary#busyNs()}: how evenly the router spread the work. Same max/mean form as
     * {@link #busyImbalance()}.
     *
     * @return the ratio (1.0 when no worker was busy); empty with fewer than two workers with traces
     */
    public OptionalDouble workerImbalance() {
        Map<String, TraceSet> sets = rankSets();
        if (sets.size() < 2 || sets.containsKey("")) {
            return OptionalDouble.empty();
        }
        long max = 0;
        long sum = 0;
        for (TraceSet set : sets.values()) {
            long busy = set.traces.stream().mapToLong(TraceSummary::busyNs).sum();
            max = Math.max(max, busy);
            sum += busy;
        }
        return OptionalDouble.of(sum == 0 ? 1.0 : max / ((double) sum / sets.size()));
    }

    /**
     * The straggler: the trace with the largest GPU busy time ({@link TraceSummary#busyNs()}), the rank the others
     * wait for at collectives. Empty with fewer than two traces: a single rank waits for nobody. Across several
     * engines prefer the straggler of each {@linkplain #rankSets() rank set}. (HTA's {@code get_potential_stragglers}
     * uses NCCL kernel timing per iteration instead, {@code docs/TRACES.md} §3.3; busy time needs no steps.)
     */
    public Optional<TraceSummary> straggler() {
        if (traces.size() < 2) {
            return Optional.empty();
        }
        return traces.stream().max(Comparator.comparingLong(TraceSummary::busyNs));
    }

    /**
     * Steps × ranks of this set: per engine step and rank the GPU busy time, span and gap to the step's straggler
     * ({@link StepTimeline#of}). With several engines use it per {@linkplain #rankSets() rank set}: ranks of different
     * engines do not step together.
     */
    public StepTimeline stepTimeline() {
        return StepTimeline.of(this);
    }

    /**
     * Per kernel name, how its total time spreads across the ranks ({@link KernelSpread}), largest spread first.
     * Empty with fewer than two traces.
     */
    public List<KernelSpread> kernelSpread() {
        if (traces.size() < 2) {
            return List.of();
        }
        Map<String, long[]> perRank = new LinkedHashMap<>();
        for (int i = 0; i < traces.size(); i++) {
            for (KernelStats k : traces.get(i).kernels()) {
                perRank.computeIfAbsent(k.name(), n -> new long[traces.size()])[i] = k.totalNs();
            }
        }
        List<KernelSpread> list = new ArrayList<>();
        for (Map.Entry<String, long[]> e : perRank.entrySet()) {
            long[] totals = e.getValue();
            long min = Long.MAX_VALUE;
            long max = Long.MIN_VALUE;
            long sum = 0;
            int maxRank = 0;
            for (int i = 0; i < totals.length; i++) {
                min = Math.min(min, totals[i]);
                if (totals[i] > max) {
                    max = totals[i];
                    maxRank = i;
                }
                sum += totals[i];
            }
            list.add(new KernelSpread(e.getKey(), min, max, (double) sum / totals.length, maxRank,
                    rankLabel(traces.get(maxRank))));
        }
        list.sort(KernelSpread.BY_SPREAD);
        return list;
    }

    /** The kernels whose name passes {@code nameFilter}, merged over all ranks, as a share of all ranks' kernel time. */
    public KernelSelection kernels(Predicate<String> nameFilter) {
        return new KernelSelection(kernels.stream().filter(k -> nameFilter.test(k.name())).toList(), kernelTotalNs);
    }

    /** Kernels merged over all ranks by name (counts and totals added, min/max over ranks), sorted by totalNs descending. */
    public List<KernelStats> kernels() {
        return kernels;
    }

    /** Sum of every rank's {@link TraceSummary#kernelTotalNs()}, ns. */
    public long kernelTotalNs() {
        return kernelTotalNs;
    }

    /**
     * Largest rank busy time divided by the mean rank busy time ({@link TraceSummary#busyNs()}): 1.0 when the
     * ranks are balanced, when there is one rank or none, or when no rank was busy.
     */
    public double busyImbalance() {
        if (traces.size() < 2) {
            return 1.0;
        }
        long max = 0;
        long sum = 0;
        for (TraceSummary t : traces) {
            max = Math.max(max, t.busyNs());
            sum += t.busyNs();
        }
        return sum == 0 ? 1.0 : max / ((double) sum / traces.size());
    }

    /**
     * The set without RPD traces that repeat another one, and what was found.
     *
     * <p>SGLang's {@code RPD} activity has every process write the rocmProfileData database {@code trace.rpd} in its
     * working directory, and each TP-0 process recreates it before converting it into its
     * {@code rpd-<time>-TP-0.trace.json.gz} (sgl-project/sglang
     * {@code python/sglang/srt/managers/scheduler_components/profiler_manager.py}, {@code utils/rpd_utils.py}). With
     * DP &gt; 1 or PP &gt; 1 in one container those processes share the working directory, so one replica's file can hold
     * another's events or be cut short. Two RPD files of one worker with the same kernel events (count, total time,
     * per-device busy and span) are the same data read twice: only the first is kept. Several RPD files of one worker
     * that differ are kept, with a warning that they may mix replicas.
     *
     * @return the checked set and its warnings (empty when there is nothing to say)
     */
    public RpdCheck withoutRpdCopies() {
        Map<String, List<TraceSummary>> byWorker = new LinkedHashMap<>();
        for (TraceSummary t : traces) {
            if (String.valueOf(t.file().getFileName()).startsWith("rpd-")) {
                byWorker.computeIfAbsent(worker(t), w -> new ArrayList<>()).add(t);
            }
        }
        List<String> warnings = new ArrayList<>();
        java.util.Set<TraceSummary> dropped = java.util.Collections.newSetFromMap(new IdentityHashMap<>());
        byWorker.forEach((worker, rpd) -> {
            if (rpd.size() < 2) {
                return;
            }
            Map<List<Object>, TraceSummary> seen = new LinkedHashMap<>();
            for (TraceSummary t : rpd) {
                List<Object> fingerprint = List.of(t.kernelEvents(), t.kernelTotalNs(), t.devices());
                TraceSummary first = seen.putIfAbsent(fingerprint, t);
                if (first != null && t.kernelEvents() > 0) {
                    dropped.add(t);
                    warnings.add(t.file().getFileName() + " repeats the kernel events of " + first.file().getFileName()
                            + (worker.isEmpty() ? "" : " (" + worker + ")") + ": both were converted from one shared"
                            + " trace.rpd, so it is left out and nothing is counted twice");
                }
            }
            if (seen.size() > 1) {
                warnings.add(seen.size() + " different RPD traces from " + (worker.isEmpty() ? "one engine"
                        : worker) + ": with DP > 1 or PP > 1 in one container every process writes trace.rpd in the"
                        + " same working directory, so a file may hold another replica's events or be cut short;"
                        + " run each replica in its own working directory to trust the per-replica figures");
            }
        });
        if (dropped.isEmpty()) {
            return new RpdCheck(this, warnings);
        }
        List<TraceSummary> kept = traces.stream().filter(t -> !dropped.contains(t)).toList();
        return new RpdCheck(new TraceSet(kept, workerFunction(), workerUrls, scope), warnings);
    }

    /**
     * @param traces   the set without repeated RPD traces
     * @param warnings what was found, one sentence each
     */
    public record RpdCheck(TraceSet traces, List<String> warnings) {

        public RpdCheck {
            Objects.requireNonNull(traces, "traces");
            warnings = List.copyOf(warnings);
        }
    }
}
