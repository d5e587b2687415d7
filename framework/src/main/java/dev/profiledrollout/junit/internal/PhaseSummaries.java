package dev.profiledrollout.junit.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.profiledrollout.report.ReportRenderer;
import dev.profiledrollout.report.ResultsModule;
import dev.profiledrollout.report.RunHeader;
import dev.profiledrollout.verdict.Verdict;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
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

    private static final ObjectMapper JSON = ResultsModule.newMapper();
    private static final String SUMMARY = "summary.json";
    /** Copied from each phase's {@code summary.json} into its {@code phases[]} element, when present. */
    private static final List<String> PHASE_FIELDS = List.of("load", "profileRequest", "latency", "workers", "steps",
            "stagePlacement");

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
        ObjectNode root = read(file);
        root.putNull("load");
        root.putNull("profileRequest");
        root.remove("latency");
        ArrayNode array = root.putArray("phases");
        for (Map.Entry<String, Path> phase : phases.entrySet()) {
            ObjectNode own = read(phase.getValue().resolve(SUMMARY));
            ObjectNode entry = array.addObject();
            entry.put("phase", phase.getKey());
            entry.put("directory", testDirectory.relativize(phase.getValue()).toString().replace('\\', '/'));
            for (String field : PHASE_FIELDS) {
                if (own.has(field)) {
                    entry.set(field, own.get(field));
                }
            }
            entry.putArray("verdicts");
        }
        write(file, root);
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
        ObjectNode root = read(file);
        root.set("stageWindows", JSON.valueToTree(windows));
        write(file, root);
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
        ObjectNode top = Files.isRegularFile(topFile) ? read(topFile) : null;
        // the phase list read through the run model; the tree is only where the verdicts are set
        List<RunHeader.PhaseEntry> entries = top == null ? List.of() : RunHeader.of(top).phases();
        for (Map.Entry<String, Path> phase : phases.entrySet()) {
            Path file = phase.getValue().resolve(SUMMARY);
            if (!Files.isRegularFile(file)) {
                continue;
            }
            JsonNode ofPhase = JSON.valueToTree(verdicts.stream().filter(v -> inPhase(v, phase.getKey())).toList());
            ObjectNode own = read(file);
            own.set("verdicts", ofPhase);
            write(file, own);
            for (int i = 0; i < entries.size(); i++) {
                if (phase.getKey().equals(entries.get(i).phase()) && top.get("phases").get(i) instanceof ObjectNode o) {
                    o.set("verdicts", ofPhase);
                }
            }
            ReportRenderer.render(phase.getValue());
        }
        if (top != null && top.get("phases") instanceof ArrayNode) {
            write(topFile, top);
        }
    }

    /** A phase's verdicts: its scope is the phase, alone or joined with a rank label ({@code "PREFILL · TP-0"}). */
    private static boolean inPhase(Verdict verdict, String phase) {
        return verdict.scope().equals(phase) || verdict.scope().startsWith(phase + " · ");
    }

    private static ObjectNode read(Path file) {
        try {
            if (JSON.readTree(file.toFile()) instanceof ObjectNode o) {
                return o;
            }
            throw new UncheckedIOException(new IOException(file + " does not hold a JSON object"));
        } catch (IOException e) {
            throw new UncheckedIOException("Could not read " + file, e);
        }
    }

    private static void write(Path file, ObjectNode root) {
        try {
            JSON.writeValue(file.toFile(), root);
        } catch (IOException e) {
            throw new UncheckedIOException("Could not write " + file, e);
        }
    }
}
