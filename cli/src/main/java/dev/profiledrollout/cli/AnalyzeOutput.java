package dev.profiledrollout.cli;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.profiledrollout.cli.internal.AnalysisViews;
import dev.profiledrollout.cli.internal.SummaryTable;
import dev.profiledrollout.cli.internal.ViewPrinter;
import dev.profiledrollout.report.LabeledTrace;
import dev.profiledrollout.report.ResultsModule;
import dev.profiledrollout.trace.KernelSpread;
import dev.profiledrollout.trace.TraceDetails;
import dev.profiledrollout.trace.TraceSet;
import dev.profiledrollout.trace.TraceSummary;
import dev.profiledrollout.trace.analysis.StepTimeline;
import dev.profiledrollout.trace.baselines.BaselineDiff;
import java.io.IOException;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;

/** The three output formats of {@link AnalyzeCommand} (documented there). */
final class AnalyzeOutput {

    private static final int TABLE_ROWS = SummaryTable.TOP_KERNELS;
    private static final int SPREAD_ROWS = 10;
    private static final ObjectMapper JSON = ResultsModule.newMapper();

    private AnalyzeOutput() {
    }

    static void json(PrintWriter out, List<AnalyzeCommand.Labeled> traces, List<AnalyzeCommand.Labeled> frontends,
                     TraceSet ranks, BaselineDiff diff) throws IOException {
        // Written straight from the records: a JsonNode tree in between (to reorder the categories) cost a copy of the
        // output and Jackson's deserialization classes (bench/README.md, issue 27).
        JSON.writeValue(out, new JsonOutput(labeled(traces), labeled(frontends),
                ranks == null ? null : AllRanks.of(ranks), diff));
        out.println();
    }

    /**
     * Builds the serializers of {@link #json}'s records ahead of time ({@link AnalyzeWarmUp}); the mapper caches them,
     * so the output later finds them built. Writes nothing.
     */
    static void warmUp() {
        for (Class<?> type : List.of(JsonOutput.class, LabeledTrace.class, TraceSummary.class, TraceDetails.class,
                AllRanks.class, BaselineDiff.class)) {
            JSON.canSerialize(type);
        }
    }

    private static List<LabeledTrace> labeled(List<AnalyzeCommand.Labeled> traces) {
        return traces.stream().map(t -> new LabeledTrace(t.label(), categoriesByShare(t.summary()))).toList();
    }

    /**
     * The summary with its {@code categories} ordered as the table and CSV order them ({@link AnalysisViews#byShare});
     * the stored {@code summary.json} keeps {@link TraceDetails}' enum order.
     */
    private static TraceSummary categoriesByShare(TraceSummary s) {
        TraceDetails d = s.details();
        TraceDetails details = new TraceDetails(d.distributedRank(), d.baseTimeNs(),
                AnalysisViews.byShare(d.categories()), d.exact(), d.htaCompatible(), d.idleGaps(), d.steps(), d.launches(), d.operators(), d.gpuTimeline(),
                d.deviceName(), d.roofline(), d.stageKernels(), d.streamIdle(), d.streamQueues());
        return new TraceSummary(s.file(), s.rank(), s.kernelEvents(), s.memoryEvents(), s.distinctKernels(),
                s.kernelTotalNs(), s.devices(), s.kernels(), s.warnings(), details);
    }

    /** What {@code --format json} prints; the records inside have the shapes {@link ResultsModule} gives them. */
    private record JsonOutput(List<LabeledTrace> traces,
                              @JsonInclude(JsonInclude.Include.NON_EMPTY) List<LabeledTrace> frontendTraces,
                              @JsonInclude(JsonInclude.Include.NON_NULL) AllRanks allRanks,
                              @JsonInclude(JsonInclude.Include.NON_NULL) BaselineDiff baselineDiff) {
    }

    /**
     * {@code --all-ranks}: the ranks side by side and each kernel's spread across them; {@code straggler} is the
     * busiest rank over all inputs (null with fewer than two), {@code rankSets} one per input directory.
     */
    private record AllRanks(double busyImbalance, String straggler, List<RankRow> ranks,
                            List<KernelSpread> kernelSpread, List<RankSetRow> rankSets) {

        static AllRanks of(TraceSet set) {
            return new AllRanks(set.busyImbalance(), set.straggler().map(set::rankLabel).orElse(null),
                    set.traces().stream().map(t -> new RankRow(set.rankLabel(t), t.file().toString(),
                            t.kernelTotalNs(), t.busyNs(), t.spanNs())).toList(), set.kernelSpread(),
                    set.rankSets().entrySet().stream().map(e -> RankSetRow.of(e.getKey(), e.getValue(), set))
                            .toList());
        }
    }

    /** One trace of {@code --all-ranks}: its label, file, kernel time, GPU busy time and longest device span (ns). */
    private record RankRow(String rank, String file, long kernelTotalNs, long busyNs, long spanNs) {
    }

    /**
     * The ranks of one input directory ({@code ""} when all inputs share one), analysed alone: busy imbalance
     * (max/mean) and straggler, both null with fewer than two ranks, and the steps × ranks timeline
     * ({@link StepTimeline}: per matched step each rank's GPU busy time, span and gap to the step's straggler; null
     * without two ranks with steps), as summary.json's {@code trace.stepTimeline[]}.
     */
    private record RankSetRow(String directory, List<String> ranks, Double busyImbalance, String straggler,
                              @JsonInclude(JsonInclude.Include.NON_NULL) StepTimeline stepTimeline) {

        static RankSetRow of(String directory, TraceSet ranks, TraceSet all) {
            boolean several = ranks.traces().size() > 1;
            StepTimeline timeline = several ? ranks.stepTimeline() : null;
            return new RankSetRow(directory, ranks.traces().stream().map(all::rankLabel).toList(),
                    several ? ranks.busyImbalance() : null, ranks.straggler().map(all::rankLabel).orElse(null),
                    timeline == null || timeline.steps().isEmpty() ? null : timeline);
        }
    }

    /**
     * One line per rank set with a step timeline: matched steps, the largest gap to a step's straggler and where,
     * and how many steps each rank was the straggler of.
     */
    private static void stepTimelineLines(PrintWriter out, TraceSet ranks) {
        ranks.rankSets().forEach((directory, set) -> {
            if (set.traces().size() < 2) {
                return;
            }
            StepTimeline timeline = set.stepTimeline();
            if (timeline.steps().isEmpty()) {
                return;
            }
            String counts = timeline.stragglerCounts().entrySet().stream()
                    .map(e -> e.getKey() + " ×" + e.getValue()).collect(java.util.stream.Collectors.joining(", "));
            out.printf(Locale.ROOT, "Step timeline%s: %d steps matched by %s; largest gap to a straggler %.3f ms%s;"
                            + " straggler per step: %s%n", directory.isEmpty() ? "" : " (" + directory + ")",
                    timeline.matchedSteps(), timeline.matching(), timeline.maxGapNs() / 1e6,
                    timeline.worstStep().map(st -> " (step " + st.name() + ")").orElse(""), counts);
        });
    }

    static void table(PrintWriter out, List<AnalyzeCommand.Labeled> traces, List<AnalyzeCommand.Labeled> frontends,
                      AnalysisViews.By by, TraceSet ranks, BaselineDiff diff) {
        for (AnalyzeCommand.Labeled t : traces) {
            if (by == AnalysisViews.By.KERNEL) {
                SummaryTable.print(out, t.label(), t.summary());
                continue;
            }
            SummaryTable.header(out, t.label(), t.summary());
            ViewPrinter.readableTable(out, AnalysisViews.of(by, t.summary()), TABLE_ROWS);
            out.println();
        }
        if (!frontends.isEmpty()) {
            out.println("Frontend traces (vLLM API server: CPU events only, not ranks; left out of the rank tables):");
            frontends.forEach(f -> out.println("  " + f.label()));
            out.println();
        }
        if (ranks != null) {
            java.util.Map<String, TraceSet> sets = ranks.rankSets();
            if (sets.size() == 1) {
                out.printf(Locale.ROOT, "All ranks: %d traces, busy imbalance (max/mean) %.3f, straggler %s%n",
                        ranks.traces().size(), ranks.busyImbalance(),
                        ranks.straggler().map(ranks::rankLabel).orElse("-"));
            } else {
                out.printf(Locale.ROOT, "All ranks: %d traces from %d directories, busy imbalance (max/mean) %.3f"
                        + " over all; per directory:%n", ranks.traces().size(), sets.size(), ranks.busyImbalance());
                sets.forEach((directory, set) -> out.printf(Locale.ROOT,
                        "  %s: %d rank(s), busy imbalance %s, straggler %s%n", directory, set.traces().size(),
                        set.traces().size() < 2 ? "-" : String.format(Locale.ROOT, "%.3f", set.busyImbalance()),
                        set.straggler().map(ranks::rankLabel).orElse("-")));
            }
            ViewPrinter.table(out, AnalysisViews.ranks(ranks), Integer.MAX_VALUE);
            stepTimelineLines(out, ranks);
            if (ranks.traces().size() > 1) {
                out.println("Kernel time spread across ranks (max/mean), largest first:");
                ViewPrinter.table(out, AnalysisViews.spread(ranks, SPREAD_ROWS), SPREAD_ROWS);
            }
            out.println();
        }
        if (diff != null) {
            out.printf(Locale.ROOT, "Baseline: kernel time %.3f ms → %.3f ms (%+.1f%%), %d new, %d vanished kernels%n",
                    diff.baseline().kernelTotalNs() / 1e6, diff.run().kernelTotalNs() / 1e6,
                    100 * diff.kernelTimeChange(), diff.newKernels().size(), diff.vanishedKernels().size());
            if (diff.byStage()) {
                // Window totals follow the captured step mix; per step kind is the like-with-like figure.
                out.printf(Locale.ROOT, "  per step kind (%s): kernel time %+.1f%% against the baseline's time per"
                        + " step/token%s%n", diff.mix(), 100 * diff.kernelTimeByStageChange(),
                        diff.incomparable().map(i -> "; incomparable: " + i).orElse(""));
            }
            diff.windowTotalsOnly().ifPresent(w -> out.println("  note: " + w));
            ViewPrinter.table(out, AnalysisViews.diff(diff), TABLE_ROWS);
            out.println();
        }
    }

    static void csv(PrintWriter out, List<AnalyzeCommand.Labeled> traces, AnalysisViews.By by, TraceSet ranks,
                    BaselineDiff diff) {
        if (diff != null) {
            ViewPrinter.csv(out, List.of(), List.of(), AnalysisViews.diff(diff), true);
            return;
        }
        if (ranks != null) {
            ViewPrinter.csv(out, List.of(), List.of(), AnalysisViews.ranks(ranks), true);
            return;
        }
        boolean header = true;
        for (AnalyzeCommand.Labeled t : traces) {
            ViewPrinter.csv(out, List.of("file"), List.of(t.label()), AnalysisViews.of(by, t.summary()), header);
            header = false;
        }
    }
}
