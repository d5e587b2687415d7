package dev.profiledrollout.junit.internal;

import static dev.profiledrollout.ProfiledRolloutKeys.BASELINE_DIR;
import static dev.profiledrollout.ProfiledRolloutKeys.BASELINE_UPDATE;

import com.fasterxml.jackson.annotation.JsonSetter;
import com.fasterxml.jackson.annotation.Nulls;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.profiledrollout.ProfiledRolloutException;
import dev.profiledrollout.RolloutResult;
import dev.profiledrollout.history.RunConfiguration;
import dev.profiledrollout.history.RunRecords;
import dev.profiledrollout.report.ResultsModule;
import dev.profiledrollout.report.SummaryFile;
import dev.profiledrollout.trace.baselines.BaselineDiff;
import dev.profiledrollout.trace.baselines.TraceBaseline;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
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
 *
 * <p><b>Like with like.</b> A recorded baseline keeps the run's configuration beside its kernels
 * ({@code configuration}: backend, model, GPU, TP/DP/PP/EP, ISL/OSL, concurrency, request rate, {@code numSteps}, as
 * the history store fingerprints runs, {@link RunConfiguration}). A baseline recorded on another deployment (backend,
 * model, GPU or parallelism) is refused, naming each differing field, instead of compared: kernels of an H100 against
 * an A100 baseline, or of TP = 2 against TP = 1, differ for reasons no regression explains. Another load shape is
 * named on the console but compared: the comparison per step kind judges only the step kinds both captured with a
 * like batch ({@link dev.profiledrollout.trace.baselines.StageDelta#comparable()}) and reports the others as incomparable.
 * Files without {@code configuration} (recorded before it was kept, or written by {@code analyze --write-baseline})
 * are compared as before.
 */
final class Baselines {

    static final int KERNELS_IN_SUMMARY = 20;
    private static final ObjectMapper JSON = ResultsModule.newMapper();
    /**
     * Reads {@link BaselineFile}: {@link #JSON}'s mapping, but a string field written as null reads as "", so that a
     * field the block lacks (null, not compared) differs from one recorded as null (compared).
     */
    private static final ObjectMapper CONFIGURATION = ResultsModule.newMapper();

    static {
        CONFIGURATION.configOverride(String.class).setSetterInfo(JsonSetter.Value.forValueNulls(Nulls.AS_EMPTY));
    }

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
                configuration(result).ifPresent(c -> addConfiguration(file, c));
                System.out.println("  baseline written: " + file);
                return result;
            }
            if (!Files.isRegularFile(file)) {
                System.out.println("  no baseline at " + file + " (run once with -D" + BASELINE_UPDATE
                        + "=true to record one)");
                return result;
            }
            refuseOtherConfiguration(file, configuration(result));
            BaselineDiff diff = TraceBaseline.read(file).diff(result.trace().traces());
            writeToSummary(result.outputDirectory().resolve("summary.json"), file, diff);
            return result.withBaseline(diff);
        } catch (IOException e) {
            throw new ProfiledRolloutException("Could not use the kernel baseline " + file + ": " + e.getMessage()
                    + "; fix or delete it, or record a new one with -D" + BASELINE_UPDATE + "=true", e);
        }
    }

    /** The run's configuration from its {@code summary.json}, empty when the run wrote none. */
    private static Optional<RunConfiguration> configuration(RolloutResult result) {
        Path dir = result.outputDirectory();
        if (dir == null || !Files.isRegularFile(dir.resolve("summary.json"))) {
            return Optional.empty();
        }
        return Optional.of(RunRecords.configurationOf(dir));
    }

    private static void addConfiguration(Path file, RunConfiguration configuration) {
        try {
            ObjectNode root = (ObjectNode) JSON.readTree(file.toFile());
            root.set("configuration", JSON.valueToTree(ConfigurationBlock.of(configuration)));
            JSON.writerWithDefaultPrettyPrinter().writeValue(file.toFile(), root);
        } catch (IOException e) {
            throw new UncheckedIOException("Could not add the run's configuration to the baseline " + file, e);
        }
    }

    /**
     * @throws ProfiledRolloutException when the baseline was recorded with another configuration than the run's,
     *                                  naming each differing field
     */
    private static void refuseOtherConfiguration(Path file, Optional<RunConfiguration> run) throws IOException {
        RecordedConfiguration recorded = CONFIGURATION.readValue(file.toFile(), BaselineFile.class).configuration();
        if (recorded == null || run.isEmpty()) {
            return;
        }
        RunConfiguration c = run.get();
        List<String> differ = new ArrayList<>();
        differ(differ, "backend", recorded.backend(), c.backend());
        differ(differ, "model", recorded.model(), c.model());
        differ(differ, "gpu", recorded.gpu(), c.gpu());
        differ(differ, "tp", recorded.tp(), c.tp());
        differ(differ, "dp", recorded.dp(), c.dp());
        differ(differ, "pp", recorded.pp(), c.pp());
        differ(differ, "ep", recorded.ep(), c.ep());
        List<String> load = new ArrayList<>();
        differ(load, "inputTokens", recorded.inputTokens(), c.inputTokens());
        differ(load, "outputTokens", recorded.outputTokens(), c.outputTokens());
        differ(load, "concurrency", recorded.concurrency(), c.concurrency());
        differ(load, "requestRate", recorded.requestRate(), Double.isInfinite(c.requestRate()) ? "inf"
                : Double.toString(c.requestRate()));
        differ(load, "numSteps", recorded.numSteps(), c.numSteps());
        if (differ.isEmpty() && !load.isEmpty()) {
            System.out.println("  baseline " + file.getFileName() + " was recorded with another load ("
                    + String.join(", ", load) + "); kernels are compared per step kind where the batches match");
        }
        if (!differ.isEmpty()) {
            throw new ProfiledRolloutException("The kernel baseline " + file + " was recorded with another "
                    + "configuration, so it is not compared: " + String.join(", ", differ) + ". Record a baseline "
                    + "for this configuration with -D" + BASELINE_UPDATE + "=true (in a baseline directory of its "
                    + "own, e.g. per engine profile), or run the configuration the baseline was recorded with");
        }
    }

    /**
     * Adds {@code field} to {@code differ} when the baseline recorded it ({@code was} not null) with another value than
     * the run's; a field recorded as null reads as "" ({@link #CONFIGURATION}) and, like "", names no value.
     */
    private static void differ(List<String> differ, String field, String was, Object now) {
        if (was == null) {
            return;
        }
        String wasText = was.isEmpty() ? null : was;
        String nowText = now == null || String.valueOf(now).isEmpty() ? null : String.valueOf(now);
        if (!Objects.equals(wasText, nowText)) {
            differ.add(field + " " + wasText + " in the baseline, " + nowText + " in this run");
        }
    }

    /**
     * The part of a kernel-baseline file this class reads back: the {@code configuration} block
     * {@link #addConfiguration} writes; the rest ({@link TraceBaseline}) is ignored here.
     *
     * @param configuration the recorded configuration, or null in a baseline recorded without one (not compared)
     */
    record BaselineFile(RecordedConfiguration configuration) {
    }

    /**
     * The {@code configuration} block {@link #addConfiguration} writes into a baseline file, in this field order;
     * {@code requestRate} is {@code "inf"} for a closed loop, else the rate's decimal text (req/s).
     */
    record ConfigurationBlock(String backend, String model, String gpu, int tp, int dp, int pp, int ep,
                              int inputTokens, int outputTokens, int concurrency, String requestRate, int numSteps) {

        static ConfigurationBlock of(RunConfiguration c) {
            return new ConfigurationBlock(c.backend(), c.model(), c.gpu(), c.tp(), c.dp(), c.pp(), c.ep(),
                    c.inputTokens(), c.outputTokens(), c.concurrency(),
                    Double.isInfinite(c.requestRate()) ? "inf" : Double.toString(c.requestRate()), c.numSteps());
        }
    }

    /**
     * A baseline's {@code configuration} block as text, each field as {@link #addConfiguration} wrote it (numbers read
     * as their decimal text, {@code requestRate} as written: {@code "inf"} or a double's text). A field the block lacks
     * is null and not compared; a field written as null reads as "".
     */
    record RecordedConfiguration(String backend, String model, String gpu, String tp, String dp, String pp, String ep,
                                 String inputTokens, String outputTokens, String concurrency, String requestRate,
                                 String numSteps) {
    }

    private static void writeToSummary(Path summary, Path file, BaselineDiff diff) {
        if (!Files.isRegularFile(summary)) {
            return;
        }
        SummaryFile.read(summary).toBuilder()
                .baseline(SummaryFile.baseline(file, diff, KERNELS_IN_SUMMARY))
                .build().write(summary);
    }
}
