package dev.profiledrollout.report;

import static org.apiguardian.api.API.Status.INTERNAL;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apiguardian.api.API;
import org.knowm.xchart.BitmapEncoder;

/**
 * Renders a run directory's offline report from its files: {@code charts/<name>.png} (see {@link Charts}),
 * {@code kernels.csv} and {@code report.html}. The one rendering path of both the JUnit extension (after each
 * profiled test) and {@code profiled-rollout report DIR}.
 */
@API(status = INTERNAL, since = "0.1")
public final class ReportRenderer {

    private ReportRenderer() {
    }

    /**
     * What one rendering wrote.
     *
     * @param data   the run as read back
     * @param charts the charts, each written to {@code charts/<name>.png}
     * @param pngs   the PNG files, in chart order
     * @param html   {@code report.html}
     * @param kernelCsv {@code kernels.csv}
     * @param phases    per phase directory rendered with it (a phased test), in {@code phases[]} order; else empty
     */
    public record Rendered(ReportData data, List<Charts.NamedChart> charts, List<Path> pngs, Path html,
                           Path kernelCsv, List<Rendered> phases) {

        public Rendered {
            phases = List.copyOf(phases);
        }
    }

    /**
     * Reads {@code directory} and writes its report files there, replacing earlier ones; for a phased test, first
     * each phase's directory ({@code phases[].directory}, when it holds a {@code summary.json}) with that phase's
     * verdicts and {@code history} block (unless its own file has them), whose charts the test's page shows in its
     * phase sections. A phase directory rendered on its own takes both from the test's {@code summary.json} one level
     * up the same way.
     *
     * @param directory a run directory holding at least {@code summary.json}
     * @throws UncheckedIOException when reading or writing fails; the message names the file
     */
    public static Rendered render(Path directory) {
        RunHeader.PhaseEntry parentPhase = parentPhase(directory);
        ReportData data = ReportData.read(directory, parentPhase == null || ownSummaryHasVerdicts(directory)
                ? null : orMissing(parentPhase.verdicts()));
        if (parentPhase != null && data.history().isEmpty()) {
            data = data.withHistory(parentPhase.history());
        }
        Map<String, List<Charts.NamedChart>> phases = new LinkedHashMap<>();
        List<Rendered> phaseReports = new ArrayList<>();
        Path base = directory.normalize();
        for (RunHeader.PhaseEntry p : data.head().phases()) {
            String name = p.directory() == null ? "" : p.directory();
            Path phaseDir = base.resolve(name).normalize();
            if (!name.isEmpty() && phaseDir.startsWith(base) && !phaseDir.equals(base)
                    && Files.isRegularFile(phaseDir.resolve("summary.json"))) {
                ReportData phase = ReportData.read(phaseDir, orMissing(p.verdicts()));
                if (phase.history().isEmpty()) {
                    phase = phase.withHistory(p.history());
                }
                Rendered rendered = write(phase, Charts.withTrends(phase), Map.of(), List.of());
                phases.put(name, rendered.charts());
                phaseReports.add(rendered);
            }
        }
        return write(data, Charts.withTrends(data), phases, phaseReports);
    }

    /** @return {@code verdicts}, or a missing node (no verdicts, rather than the file's own) when null */
    private static JsonNode orMissing(JsonNode verdicts) {
        return verdicts == null ? ResultsModule.MAPPER.missingNode() : verdicts;
    }

    /**
     * @return for a phase directory rendered on its own (e.g. {@code profiled-rollout report} walking a test's output):
     *         its element of {@code phases[]} in the test's {@code summary.json} one level up, whose {@code verdicts}
     *         and {@code history} stand in for those its own {@code summary.json} lacks; else null
     */
    private static RunHeader.PhaseEntry parentPhase(Path directory) {
        Path dir = directory.toAbsolutePath().normalize();
        Path parent = dir.getParent();
        if (parent == null || dir.getFileName() == null || !Files.isRegularFile(parent.resolve("summary.json"))) {
            return null;
        }
        try {
            for (RunHeader.PhaseEntry p : RunHeader.of(ResultsModule.MAPPER.readTree(
                    parent.resolve("summary.json").toFile())).phases()) {
                if (dir.getFileName().toString().equals(p.directory())) {
                    return p;
                }
            }
            return null;
        } catch (IOException | IllegalArgumentException e) {
            return null; // ReportData.read names an unreadable file of this directory; the parent is not ours to judge
        }
    }

    /** {@code summary.json}'s {@code verdicts} as written: null when absent, a null node when written as null. */
    private record VerdictsField(JsonNode verdicts) {
    }

    /** @return whether the directory's own {@code summary.json} has {@code verdicts}; true when it cannot be read */
    private static boolean ownSummaryHasVerdicts(Path directory) {
        try {
            return ResultsModule.MAPPER.readValue(directory.resolve("summary.json").toFile(), VerdictsField.class)
                    .verdicts() != null;
        } catch (IOException e) {
            return true; // ReportData.read reports the unreadable file
        }
    }

    private static Rendered write(ReportData data, List<Charts.NamedChart> charts,
            Map<String, List<Charts.NamedChart>> phases, List<Rendered> phaseReports) {
        Path directory = data.directory();
        Path chartDir = directory.resolve("charts");
        List<Path> pngs = new ArrayList<>();
        try {
            Files.createDirectories(chartDir);
            for (Charts.NamedChart c : charts) {
                Path png = chartDir.resolve(c.name() + ".png");
                Files.write(png, BitmapEncoder.getBitmapBytes(c.chart(), BitmapEncoder.BitmapFormat.PNG));
                pngs.add(png);
            }
            StageReport.renderChart(directory);
            Path csv = directory.resolve("kernels.csv");
            Files.writeString(csv, HtmlReport.kernelCsv(data), StandardCharsets.UTF_8);
            Path html = directory.resolve("report.html");
            Files.writeString(html, HtmlReport.page(data, charts, phases), StandardCharsets.UTF_8);
            return new Rendered(data, charts, pngs, html, csv, phaseReports);
        } catch (IOException e) {
            throw new UncheckedIOException("Could not write the report of " + directory + ": " + e.getMessage(), e);
        }
    }
}
