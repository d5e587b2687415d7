package dev.profiledrollout.trace;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Predicate;

/**
 * The trace files of one capture, one per rank (for example SGLang's {@code {id}-TP-0.trace.json.gz},
 * {@code {id}-TP-1.trace.json.gz}), with kernel statistics merged over the ranks. Immutable.
 *
 * <pre>{@code
 * TraceSet capture = TraceSet.read(List.of(tp0, tp1));
 * assertThat(capture.busyImbalance()).isLessThan(1.10);
 * assertThat(capture.kernels(KernelMatchers.glob("*nccl*")).share()).isLessThan(0.2);
 * }</pre>
 */
public final class TraceSet {

    private static final Comparator<TraceSummary> BY_RANK_THEN_FILE_NAME =
            Comparator.<TraceSummary, Integer>comparing(t -> t.rank().isPresent() ? 0 : 1)
                    .thenComparing((a, b) -> a.rank().isPresent() && b.rank().isPresent()
                            ? a.rank().get().compareTo(b.rank().get()) : 0)
                    .thenComparing(t -> String.valueOf(t.file().getFileName()))
                    .thenComparing(t -> t.file().toString());

    private final List<TraceSummary> traces;
    private final List<KernelStats> kernels;
    private final long kernelTotalNs;

    private TraceSet(List<TraceSummary> traces) {
        List<TraceSummary> sorted = new ArrayList<>(traces);
        sorted.sort(BY_RANK_THEN_FILE_NAME);
        this.traces = List.copyOf(sorted);
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

    /**
     * A set of summaries already read or built elsewhere (for example from an {@code nsys stats} kernel summary).
     *
     * @param summaries one per rank (and stage), not null
     */
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
        groups.forEach((stage, list) -> sets.put(stage, new TraceSet(list)));
        return java.util.Collections.unmodifiableMap(sets);
    }

    /**
     * Reads every file with {@link KinetoTraceReader#read(Path)}, in parallel on a pool of at most
     * {@code availableProcessors} threads that is shut down before this method returns.
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
        int threads = Math.max(1, Math.min(paths.size(), Runtime.getRuntime().availableProcessors()));
        ExecutorService pool = Executors.newFixedThreadPool(threads, r -> {
            Thread t = new Thread(r, "trace-reader");
            t.setDaemon(true);
            return t;
        });
        try {
            List<Future<TraceSummary>> futures = new ArrayList<>();
            for (Path path : paths) {
                futures.add(pool.submit(() -> KinetoTraceReader.read(path)));
            }
            List<TraceSummary> summaries = new ArrayList<>();
            for (Future<TraceSummary> future : futures) {
                summaries.add(await(future));
            }
            return new TraceSet(summaries);
        } finally {
            pool.shutdownNow();
        }
    }

    private static TraceSummary await(Future<TraceSummary> future) throws IOException {
        try {
            return future.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while reading traces", e);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof IOException io) {
                throw io;
            }
            if (cause instanceof UncheckedIOException io) {
                throw io.getCause();
            }
            if (cause instanceof RuntimeException re) {
                throw re;
            }
            if (cause instanceof Error error) {
                throw error;
            }
            throw new IOException(cause);
        }
    }

    /** The per-file summaries, sorted by rank (files without a rank last), then file name. */
    public List<TraceSummary> traces() {
        return traces;
    }

    /** The first trace (in {@link #traces()} order) whose rank has this TP rank, if any. */
    public Optional<TraceSummary> rank(int tp) {
        return traces.stream().filter(t -> t.rank().map(r -> r.tp() == tp).orElse(false)).findFirst();
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
}
