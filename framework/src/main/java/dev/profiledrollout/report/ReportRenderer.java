package dev.profiledrollout.report;

import static org.apiguardian.api.API.Status.INTERNAL;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
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
     */
    public record Rendered(ReportData data, List<Charts.NamedChart> charts, List<Path> pngs, Path html,
                           Path kernelCsv) {
    }

    /**
     * Reads {@code directory} and writes its report files there, replacing earlier ones.
     *
     * @param directory a run directory holding at least {@code summary.json}
     * @throws UncheckedIOException when reading or writing fails; the message names the file
     */
    public static Rendered render(Path directory) {
        ReportData data = ReportData.read(directory);
        List<Charts.NamedChart> charts = Charts.build(data);
        Path chartDir = directory.resolve("charts");
        List<Path> pngs = new ArrayList<>();
        try {
            Files.createDirectories(chartDir);
            for (Charts.NamedChart c : charts) {
                Path png = chartDir.resolve(c.name() + ".png");
                Files.write(png, BitmapEncoder.getBitmapBytes(c.chart(), BitmapEncoder.BitmapFormat.PNG));
                pngs.add(png);
            }
            Path csv = directory.resolve("kernels.csv");
            Files.writeString(csv, HtmlReport.kernelCsv(data), StandardCharsets.UTF_8);
            Path html = directory.resolve("report.html");
            Files.writeString(html, HtmlReport.page(data, charts), StandardCharsets.UTF_8);
            return new Rendered(data, charts, pngs, html, csv);
        } catch (IOException e) {
            throw new UncheckedIOException("Could not write the report of " + directory + ": " + e.getMessage(), e);
        }
    }
}
