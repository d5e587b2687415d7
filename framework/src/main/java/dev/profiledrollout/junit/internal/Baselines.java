package dev.profiledrollout.junit.internal;

import static dev.profiledrollout.ProfiledRolloutKeys.BASELINE_DIR;
import static dev.profiledrollout.ProfiledRolloutKeys.BASELINE_UPDATE;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.profiledrollout.ProfiledRolloutException;
import dev.profiledrollout.RolloutResult;
import dev.profiledrollout.trace.BaselineDiff;
import dev.profiledrollout.trace.KernelDelta;
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
 * <p>{@code summary.json}'s {@code baseline}: {@code file}, {@code baseKernelTotalNs}, {@code kernelTotalNs},
 * {@code kernelTimeChange} (run / baseline − 1), {@code newKernels}, {@code vanishedKernels}, and {@code kernels}: the
 * {@value #KERNELS_IN_SUMMARY} largest |Δtime| as {@code {name, status, baseCount, count, baseTotalNs, totalNs,
 * deltaNs}}.
 */
final class Baselines {

    static final int KERNELS_IN_SUMMARY = 20;
    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

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
            node.put("baseKernelTotalNs", diff.baseline().kernelTotalNs());
            node.put("kernelTotalNs", diff.run().kernelTotalNs());
            node.put("kernelTimeChange", diff.kernelTimeChange());
            node.put("newKernels", diff.newKernels().size());
            node.put("vanishedKernels", diff.vanishedKernels().size());
            ArrayNode kernels = node.putArray("kernels");
            for (KernelDelta k : diff.kernels().stream().limit(KERNELS_IN_SUMMARY).toList()) {
                kernels.addObject().put("name", k.name()).put("status", k.status().name())
                        .put("baseCount", k.baseCount()).put("count", k.count())
                        .put("baseTotalNs", k.baseTotalNs()).put("totalNs", k.totalNs()).put("deltaNs", k.deltaNs());
            }
            JSON.writeValue(summary.toFile(), root);
        } catch (IOException e) {
            throw new UncheckedIOException("Could not add the baseline comparison to " + summary, e);
        }
    }
}
