package dev.profiledrollout.trace.analysis;

import static org.apiguardian.api.API.Status.EXPERIMENTAL;

import dev.profiledrollout.trace.StepStats;
import dev.profiledrollout.trace.TraceSet;
import dev.profiledrollout.trace.TraceSummary;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeSet;
import org.apiguardian.api.API;

/**
 * Steps × ranks of one rank set: per engine step and rank the GPU busy time, the step's GPU-side span and the gap to
 * the step's straggler. Immutable.
 *
 * <h2>Definitions</h2>
 * <ul>
 *   <li><b>step</b>: a {@link StepStats} of each rank (SGLang {@code step[…]}, vLLM {@code execute_…},
 *       {@code ProfilerStep#N}). Steps are matched across ranks by their {@code ProfilerStep} number when every step
 *       of every rank has one (only numbers every rank recorded are kept), else by order: the k-th step of each rank,
 *       for k below the smallest step count.</li>
 *   <li><b>busy</b>: {@link StepStats#gpuBusyNs()}, the union of the step's kernel intervals cut to its GPU-side
 *       span; <b>span</b>: {@link StepStats#gpuSpanNs()}.</li>
 *   <li><b>straggler</b> of a step: the rank with the largest busy time in it (ties: the first in rank order; none when every rank was equally busy), the
 *       same rule as {@link TraceSet#straggler()} applied per step; <b>gap</b> of a rank = straggler's busy − its busy
 *       (0 for the straggler).</li>
 *   <li><b>clock alignment</b>: each quantity is measured from the rank's own step boundary, so ranks are aligned on
 *       step boundaries and a constant clock offset between ranks cancels. {@link #clockOffsetsNs()} gives, per
 *       rank, the median over matched steps of its GPU-side step start minus the first rank's (CPU start when a step
 *       has no GPU-side span): non-zero offsets mean the ranks' clocks (or launch times) differ.</li>
 * </ul>
 *
 * @param ranks          rank labels ({@link TraceSet#rankLabel}), in rank order; ranks without steps are left out, and
 *                       so is a trace whose label an earlier trace already has (the same rank in another capture
 *                       window, as the phases of a phased test are merged)
 * @param steps          the matched steps in order, at most {@value #MAX_STEPS}
 * @param matchedSteps   number of matched steps before the {@value #MAX_STEPS} cut
 * @param matching       {@code "profilerStepNumber"} or {@code "order"}
 * @param clockOffsetsNs per rank (same order as {@code ranks}), ns; the first rank's is 0
 * @param note           one sentence on how steps were matched and aligned, for reports; not null
 */
@API(status = EXPERIMENTAL, since = "0.1")
public record StepTimeline(List<String> ranks, List<Step> steps, int matchedSteps, String matching,
                           List<Long> clockOffsetsNs, String note) {

    /** Steps kept at most. */
    public static final int MAX_STEPS = 2_000;

    public StepTimeline {
        ranks = List.copyOf(ranks);
        steps = List.copyOf(steps);
        Objects.requireNonNull(matching, "matching");
        clockOffsetsNs = List.copyOf(clockOffsetsNs);
        Objects.requireNonNull(note, "note");
    }

    /**
     * One matched step.
     *
     * @param index      position among the matched steps, from 0
     * @param name       the first rank's annotation name of the step
     * @param busyNs     per rank (same order as {@link StepTimeline#ranks()}), GPU busy ns
     * @param spanNs     per rank, GPU-side span ns
     * @param gapNs      per rank, straggler's busy − this rank's busy, ns
     * @param straggler  index into {@link StepTimeline#ranks()} of the busiest rank; −1 with fewer than two ranks or
     *                   when every rank was equally busy
     */
    public record Step(int index, String name, List<Long> busyNs, List<Long> spanNs, List<Long> gapNs,
                       int straggler) {
        public Step {
            Objects.requireNonNull(name, "name");
            busyNs = List.copyOf(busyNs);
            spanNs = List.copyOf(spanNs);
            gapNs = List.copyOf(gapNs);
        }

        /** Largest gap to the straggler in this step, ns (0 with one rank). */
        public long maxGapNs() {
            return gapNs.stream().mapToLong(Long::longValue).max().orElse(0);
        }
    }

    /**
     * The step timeline of {@code set}'s traces taken as one rank set (use {@link TraceSet#rankSets()} first when
     * several engines wrote them).
     *
     * @param set the traces, not null
     * @return the timeline; no ranks and no steps when no trace has steps
     */
    public static StepTimeline of(TraceSet set) {
        Objects.requireNonNull(set, "set");
        List<String> labels = new ArrayList<>();
        List<List<StepStats>> perRank = new ArrayList<>();
        int withoutSteps = 0;
        int repeated = 0;
        for (TraceSummary t : set.traces()) {
            if (t.details().steps().isEmpty()) {
                withoutSteps++;
                continue;
            }
            if (labels.contains(set.rankLabel(t))) {
                repeated++; // the same rank in another window (the phases of a phased test): not a peer
                continue;
            }
            labels.add(set.rankLabel(t));
            perRank.add(t.details().steps());
        }
        if (perRank.isEmpty()) {
            return new StepTimeline(List.of(), List.of(), 0, "order", List.of(),
                    "no step annotations (ProfilerStep#N, SGLang step[…], vLLM execute_…) in the traces");
        }
        boolean byNumber = perRank.stream().allMatch(steps -> steps.stream()
                .allMatch(s -> s.profilerStepNumber().isPresent()));
        List<StepStats[]> rows = byNumber ? matchByNumber(perRank) : matchByOrder(perRank);
        int n = labels.size();
        List<Long> offsets = new ArrayList<>();
        long maxOffset = 0;
        int maxOffsetRank = 0;
        for (int r = 0; r < n; r++) {
            long[] diffs = new long[rows.size()];
            for (int i = 0; i < rows.size(); i++) {
                diffs[i] = boundary(rows.get(i)[r]) - boundary(rows.get(i)[0]);
            }
            Arrays.sort(diffs);
            long offset = diffs.length == 0 ? 0 : diffs[diffs.length / 2];
            offsets.add(offset);
            if (Math.abs(offset) > Math.abs(maxOffset)) {
                maxOffset = offset;
                maxOffsetRank = r;
            }
        }
        List<Step> steps = new ArrayList<>();
        for (int i = 0; i < Math.min(rows.size(), MAX_STEPS); i++) {
            steps.add(step(i, rows.get(i)));
        }
        StringBuilder note = new StringBuilder();
        note.append(rows.size()).append(rows.size() == 1 ? " step matched across " : " steps matched across ").append(n).append(n == 1 ? " rank" : " ranks")
                .append(byNumber ? " by ProfilerStep number" : " by order");
        int fewest = perRank.stream().mapToInt(List::size).min().orElse(0);
        int most = perRank.stream().mapToInt(List::size).max().orElse(0);
        if (fewest != most) {
            note.append(" (ranks recorded ").append(fewest).append(" to ").append(most).append(" steps)");
        }
        if (withoutSteps > 0) {
            note.append("; ").append(withoutSteps).append(withoutSteps == 1 ? " rank has" : " ranks have")
                    .append(" no steps and is left out");
        }
        if (repeated > 0) {
            note.append("; ").append(repeated).append(repeated == 1 ? " trace repeats" : " traces repeat")
                    .append(" a rank of another capture window and ").append(repeated == 1 ? "is" : "are")
                    .append(" left out");
        }
        if (n > 1) {
            note.append("; ranks aligned on their own step boundaries");
            if (maxOffset != 0) {
                note.append(String.format(java.util.Locale.ROOT,
                        " (step starts differ by up to %.3f ms, %s vs %s: clocks or launch times differ)",
                        Math.abs(maxOffset) / 1e6, labels.get(maxOffsetRank), labels.get(0)));
            }
        }
        if (rows.size() > MAX_STEPS) {
            note.append("; the first ").append(MAX_STEPS).append(" are kept");
        }
        return new StepTimeline(labels, steps, rows.size(), byNumber ? "profilerStepNumber" : "order", offsets,
                note.toString());
    }

    private static long boundary(StepStats s) {
        return s.gpuSpanNs() > 0 || s.gpuDurationNs() >= 0 ? s.gpuStartNs() : s.startNs();
    }

    private static Step step(int index, StepStats[] row) {
        List<Long> busy = new ArrayList<>();
        List<Long> span = new ArrayList<>();
        int straggler = 0;
        for (int r = 0; r < row.length; r++) {
            busy.add(row[r].gpuBusyNs());
            span.add(row[r].gpuSpanNs());
            if (row[r].gpuBusyNs() > row[straggler].gpuBusyNs()) {
                straggler = r;
            }
        }
        List<Long> gaps = new ArrayList<>();
        for (int r = 0; r < row.length; r++) {
            gaps.add(row[straggler].gpuBusyNs() - row[r].gpuBusyNs());
        }
        boolean even = gaps.stream().allMatch(g -> g == 0);
        return new Step(index, row[0].name(), busy, span, gaps, row.length < 2 || even ? -1 : straggler);
    }

    private static List<StepStats[]> matchByOrder(List<List<StepStats>> perRank) {
        int count = perRank.stream().mapToInt(List::size).min().orElse(0);
        List<StepStats[]> rows = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            StepStats[] row = new StepStats[perRank.size()];
            for (int r = 0; r < row.length; r++) {
                row[r] = perRank.get(r).get(i);
            }
            rows.add(row);
        }
        return rows;
    }

    private static List<StepStats[]> matchByNumber(List<List<StepStats>> perRank) {
        List<Map<Integer, StepStats>> byNumber = new ArrayList<>();
        TreeSet<Integer> common = null;
        for (List<StepStats> steps : perRank) {
            Map<Integer, StepStats> map = new LinkedHashMap<>();
            for (StepStats s : steps) {
                map.putIfAbsent(s.profilerStepNumber().getAsInt(), s);
            }
            byNumber.add(map);
            if (common == null) {
                common = new TreeSet<>(map.keySet());
            } else {
                common.retainAll(map.keySet());
            }
        }
        List<StepStats[]> rows = new ArrayList<>();
        for (int number : common) {
            StepStats[] row = new StepStats[perRank.size()];
            for (int r = 0; r < row.length; r++) {
                row[r] = byNumber.get(r).get(number);
            }
            rows.add(row);
        }
        return rows;
    }

    /** Largest gap to a step's straggler over all steps, ns; 0 without steps or with one rank. */
    public long maxGapNs() {
        return steps.stream().mapToLong(Step::maxGapNs).max().orElse(0);
    }

    /** The step with the largest gap, if any step has a gap. */
    public java.util.Optional<Step> worstStep() {
        return steps.stream().filter(s -> s.maxGapNs() > 0)
                .max(java.util.Comparator.comparingLong(Step::maxGapNs));
    }

    /** Per rank label, the number of kept steps in which it was the straggler, in rank order; empty with one rank. */
    public Map<String, Integer> stragglerCounts() {
        Map<String, Integer> counts = new LinkedHashMap<>();
        if (ranks.size() < 2) {
            return Map.of();
        }
        ranks.forEach(r -> counts.put(r, 0));
        for (Step s : steps) {
            if (s.straggler() >= 0) {
                counts.merge(ranks.get(s.straggler()), 1, Integer::sum);
            }
        }
        return java.util.Collections.unmodifiableMap(counts);
    }
}
