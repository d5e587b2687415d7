package dev.profiledrollout.junit.internal;

import com.fasterxml.jackson.databind.node.NullNode;
import dev.profiledrollout.report.ReportRenderer;
import dev.profiledrollout.report.SummaryFile;
import dev.profiledrollout.verdict.Verdict;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The {@code summary.json} parts of a phased test (one {@code @RolloutPhase} or srtctl recipe window per phase, each
 * in {@code <test output>/<phase>/}).
 *
 * <h2>The top-level {@code summary.json} of a phased test</h2>
 * <ul>
 *   <li>{@code phases}: one object per phase, in the order they ran: {@code phase} ({@code "PREFILL"}),
 *       {@code directory} (the phase's directory relative to the test's, {@code "prefill"}, holding that phase's own
 *       {@code summary.json} and {@code report.html}), and copied from the phase's own {@code summary.json}:
 *       {@code load}, {@code profileRequest}, {@code latency}, {@code workers}, {@code steps} and
 *       {@code stagePlacement} (when the phase has them); after the test body {@code verdicts}: the verdicts whose scope is that phase.</li>
 *   <li>{@code load} and {@code profileRequest} are null: each phase sent its own load and its own
 *       {@code /start_profile} body, and the test-level {@code @RolloutLoad} defaults were only a fallback for the
 *       phases' unset values.</li>
 *   <li>No {@code latency}: the phases' requests are different workloads (e.g. 4,096-token prefills and 128-token
 *       decodes), so percentiles over all of them describe neither; each phase's {@code latency} is the truth. The
 *       request files ({@code requests.jsonl}, {@code timeseries.csv}, {@code latency.hlog}) still hold every phase's
 *       requests, one phase after the other, for the timeline charts.</li>
 * </ul>
 * {@code trace}, {@code workers} and the rest stay at the top level, over all phases.
 */
final class PhaseSummaries {

    /** The scope of the combined result of a phased test: every phase's requests and traces together. */
    static final String ALL_PHASES = "all phases";

    private static final String SUMMARY = "summary.json";

    private PhaseSummaries() {
    }

    /**
     * Turns the combined {@code summary.json} just written in {@code testDirectory} into a phased one (see above).
     *
     * @param phases phase name ({@code "PREFILL"}) → its directory, in the order the phases ran; each holds its own
     *               {@code summary.json}
     * @throws UncheckedIOException when a {@code summary.json} cannot be read or written
     */
    static void writeCombined(Path testDirectory, Map<String, Path> phases) {
        Path file = testDirectory.resolve(SUMMARY);
        List<SummaryFile.PhaseBlock> entries = new ArrayList<>();
        for (Map.Entry<String, Path> phase : phases.entrySet()) {
            entries.add(SummaryFile.PhaseBlock.of(phase.getKey(),
                    testDirectory.relativize(phase.getValue()).toString().replace('\\', '/'),
                    SummaryFile.read(phase.getValue().resolve(SUMMARY))));
        }
        SummaryFile.read(file).toBuilder()
                .load(NullNode.getInstance())
                .profileRequest(NullNode.getInstance())
                .latency(null)
                .phases(entries)
                .build().write(file);
    }

    /**
     * Adds {@code stageWindows} (one {@link dev.profiledrollout.report.RunHeader.StageWindow} per stage, in the order
     * they ran) to the combined {@code summary.json} of a sweep with a window per stage; its latency and trace stay,
     * over every stage, as for a sweep in one window.
     *
     * @throws UncheckedIOException when the file cannot be read or written
     */
    static void writeStageWindows(Path testDirectory, List<dev.profiledrollout.report.RunHeader.StageWindow> windows) {
        Path file = testDirectory.resolve(SUMMARY);
        SummaryFile.read(file).toBuilder().stageWindows(windows).build().write(file);
    }

    /**
     * After the test body: gives each phase's {@code summary.json}, and its element of the top-level {@code phases}
     * (when the combined summary was written), the verdicts of that phase's scope, and renders each phase's own
     * report ({@link ReportRenderer#render(Path)}) so that one phase's page can be opened by itself.
     *
     * @param phases   phase name → its directory, for the phases that ran; directories without a {@code summary.json}
     *                 (a phase that never started) are skipped
     * @param verdicts every verdict of the body
     * @throws UncheckedIOException when a file cannot be read or written
     */
    static void finish(Path testDirectory, Map<String, Path> phases, List<Verdict> verdicts) {
        Path topFile = testDirectory.resolve(SUMMARY);
        SummaryFile top = Files.isRegularFile(topFile) ? SummaryFile.read(topFile) : null;
        List<SummaryFile.PhaseBlock> entries = new ArrayList<>(top == null ? List.of() : top.phases());
        for (Map.Entry<String, Path> phase : phases.entrySet()) {
            Path file = phase.getValue().resolve(SUMMARY);
            if (!Files.isRegularFile(file)) {
                continue;
            }
            List<Verdict> ofPhase = verdicts.stream().filter(v -> inPhase(v, phase.getKey())).toList();
            SummaryFile.read(file).toBuilder().verdicts(ofPhase).build().write(file);
            entries.replaceAll(e -> phase.getKey().equals(e.phase()) ? e.withVerdicts(ofPhase) : e);
            ReportRenderer.render(phase.getValue());
        }
        if (top != null && !top.phases().isEmpty()) {
            top.toBuilder().phases(entries).build().write(topFile);
        }
    }

    /** A phase's verdicts: its scope is the phase, alone or joined with a rank label ({@code "PREFILL · TP-0"}). */
    private static boolean inPhase(Verdict verdict, String phase) {
        return verdict.scope().equals(phase) || verdict.scope().startsWith(phase + " · ");
    }
}
