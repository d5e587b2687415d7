package dev.profiledrollout.junit.internal;

import static dev.profiledrollout.ProfiledRolloutKeys.BASELINE_DIR;
import static dev.profiledrollout.ProfiledRolloutKeys.BASELINE_UPDATE;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.profiledrollout.ProfiledRolloutException;
import dev.profiledrollout.RolloutResult;
import dev.profiledrollout.report.ResultsModule;
import dev.profiledrollout.trace.BaselineDiff;
import dev.profiledrollout.trace.TraceBaseline;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * Per-test kernel baselines: with {@code profiledrollout.baseline.dir} set, a test's run is compared with
 * {@code <dir>/<TestClass>.<method>.json} (a {@link TraceBaseline}) when that file exists, and the comparison goes into
 * the result, {@code summary.json} ({@code baseline}) and the report's baseline chart. With
 * {@code profiledrollout.baseline.update=true} the run (re)writes its baseline instead, the usual way to record one on
 * a known-good build.
 *
 * <p>{@code summary.json}'s {@code baseline}: {@code file}, then the {@link BaselineDiff} as {@link ResultsModule}
 * writes it ({@code baseKernelTotalNs}, {@code kernelTotalNs}, {@code kernelTimeChange} = run / baseline − 1,
 * {@code newKernels}, {@code vanishedKernels}, ...) with {@code kernels} cut to the {@value #KERNELS_IN_SUMMARY}
 * largest |Δtime|, each {@code {name, status, baseCount, count, baseTotalNs, totalNs, deltaNs}}, and, when both sides
 * have engine step annotations, the comparison per step kind ({@code mix}, {@code incomparable}, {@code stages}).
 * Baselines are recorded per step kind ({@link TraceBaseline} format 2); older files compare as window totals.
 */
final class Baselines {

    static final int KERNELS_IN_SUMMARY = 20;
    private static final ObjectMapper JSON = ResultsModule.newMapper();

    private Baselines() {
    }

    /**
     * @param name the test's baseline name, {@code <TestClass>.<method>}
     * @return {@code result}, with the comparison when a baseline exists (and is not being updated)
     * @throws ProfiledRolloutException when the baseline file exists but cannot be read or written
     */
    static RolloutResult apply(RolloutResult result, Settings settings, String name) {
        Optional<String> dir = settings.get(BASELINE_DIR);
        if (dir.isEmpty() || result.trace().traces().isEmpty()) {
            return result;
        }
        Path file = Path.of(dir.get()).resolve(name.replaceAll("[^A-Za-z0-9._$-]", "_") + ".json");
        try {
            if (settings.get(BASELINE_UPDATE).map(Boolean::parseBoolean).orElse(false)) {
                Files.createDirectories(file.getParent());
                TraceBaseline.of(result.trace().traces()).write(file);
                System.out.println("  baseline written: " + file);
                return result;
            }
            if (!Files.isRegularFile(file)) {
                System.out.println("  no baseline at " + file + " (run once with -D" + BASELINE_UPDATE
                        + "=true to record one)");
                return result;
            }
            BaselineDiff diff = TraceBaseline.read(file).diff(result.trace().traces());
            writeToSummary(result.outputDirectory().resolve("summary.json"), file, diff);
            return result.withBaseline(diff);
        } catch (IOException e) {
            throw new ProfiledRolloutException("Could not use the kernel baseline " + file + ": " + e.getMessage()
                    + "; fix or delete it, or record a new one with -D" + BASELINE_UPDATE + "=true", e);
        }
    }

    private static void writeToSummary(Path summary, Path file, BaselineDiff diff) {
        if (!Files.isRegularFile(summary)) {
            return;
        }
        try {
            ObjectNode root = (ObjectNode) JSON.readTree(summary.toFile());
            ObjectNode node = root.putObject("baseline");
            node.put("file", file.toString());
            node.setAll((ObjectNode) JSON.valueToTree(diff));
            ArrayNode kernels = (ArrayNode) node.get("kernels");
            while (kernels.size() > KERNELS_IN_SUMMARY) {
                kernels.remove(kernels.size() - 1);
            }
            JSON.writeValue(summary.toFile(), root);
        } catch (IOException e) {
            throw new UncheckedIOException("Could not add the baseline comparison to " + summary, e);
        }
    }
}
