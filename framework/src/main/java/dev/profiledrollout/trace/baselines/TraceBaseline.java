package dev.profiledrollout.trace.baselines;

import static org.apiguardian.api.API.Status.EXPERIMENTAL;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.profiledrollout.trace.KernelStats;
import dev.profiledrollout.trace.StepStats;
import dev.profiledrollout.trace.TraceSet;
import dev.profiledrollout.trace.TraceSummary;
import dev.profiledrollout.trace.reading.TraceFormatException;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apiguardian.api.API;

/**
 * Per-kernel counts and total times of a reference run, to compare later runs against ({@link #diff(Collection)}),
 * both as window totals and per engine step kind ({@link StageKernels}). Immutable.
 *
 * <h2>File</h2>
 * {@link #write(Path)} writes {@code {"baselineVersion":2, "kernelTotalNs":N, "busyNs":N, "kernels":[{"name",
 * "count","totalNs"}], "stages":[{"stage","steps","tokens","requests","kernelNs","kernels":[{"name","count","totalNs"}]}]}}
 * (ns; kernels sorted by totalNs descending; {@code stage} one of {@link StepStats.Stage}, PREFILL being SGLang's
 * EXTEND; {@code tokens}, {@code requests} (Σ batch size) null when the step annotations carry none). {@link #read(Path)} also accepts
 * version 1 files (no {@code stages}), what {@code analyze --format json} prints ({@code {"traces":[…]}}) and
 * {@code summary.json} ({@code trace.ranks}), whose per-file kernel lists are merged by name; those hold window totals
 * only, so their diffs cannot compare per step kind ({@link BaselineDiff#byStage()}).
 *
 * @param kernelTotalNs Σ kernel time, ns
 * @param busyNs        Σ device busy time, ns (0 when the source had no devices)
 * @param kernels       per kernel name: count and totalNs (min/max/percentiles are not kept)
 * @param stages        per step kind captured, in {@link StepStats.Stage} order; empty when the source had no step
 *                      annotations or is an old baseline
 */
@API(status = EXPERIMENTAL, since = "0.1")
public record TraceBaseline(long kernelTotalNs, long busyNs, List<KernelStats> kernels, List<StageKernels> stages) {

    /** The file format {@link #write} produces. */
    public static final int VERSION = 2;

    public TraceBaseline {
        kernels = List.copyOf(kernels);
        stages = List.copyOf(stages);
    }

    /** A baseline of window totals only (no per-step-kind figures). */
    public TraceBaseline(long kernelTotalNs, long busyNs, List<KernelStats> kernels) {
        this(kernelTotalNs, busyNs, kernels, List.of());
    }

    /** The stage's figures, when this baseline captured steps of that kind. */
    public java.util.Optional<StageKernels> stage(StepStats.Stage stage) {
        return stages.stream().filter(s -> s.stage() == stage).findFirst();
    }

    /** The baseline of one trace. */
    public static TraceBaseline of(TraceSummary summary) {
        return of(List.of(summary));
    }

    /** The baseline of several traces (for example the ranks of a {@link TraceSet}), kernels merged by name. */
    public static TraceBaseline of(Collection<TraceSummary> summaries) {
        Map<String, long[]> merged = new LinkedHashMap<>();
        long total = 0;
        long busy = 0;
        for (TraceSummary s : summaries) {
            for (KernelStats k : s.kernels()) {
                long[] m = merged.computeIfAbsent(k.name(), n -> new long[2]);
                m[0] += k.count();
                m[1] += k.totalNs();
            }
            total += s.kernelTotalNs();
            busy += s.busyNs();
        }
        return new TraceBaseline(total, busy, toStats(merged), StageKernels.merge(summaries));
    }

    private static List<KernelStats> toStats(Map<String, long[]> merged) {
        List<KernelStats> list = new ArrayList<>();
        merged.forEach((name, m) -> list.add(new KernelStats(name, m[0], m[1], -1, -1)));
        list.sort(KernelStats.BY_TOTAL_DESCENDING);
        return list;
    }

    /** Writes this baseline as JSON (see the class comment). */
    public void write(Path file) throws IOException {
        try (OutputStream out = Files.newOutputStream(file);
             JsonGenerator json = new JsonFactory().createGenerator(out, JsonEncoding.UTF8).useDefaultPrettyPrinter()) {
            json.writeStartObject();
            json.writeNumberField("baselineVersion", VERSION);
            json.writeNumberField("kernelTotalNs", kernelTotalNs);
            json.writeNumberField("busyNs", busyNs);
            writeKernels(json, kernels);
            json.writeArrayFieldStart("stages");
            for (StageKernels s : stages) {
                json.writeStartObject();
                json.writeStringField("stage", s.stage().name());
                json.writeNumberField("steps", s.steps());
                writeOptional(json, "tokens", s.tokens());
                writeOptional(json, "requests", s.requests());
                json.writeNumberField("kernelNs", s.kernelNs());
                writeKernels(json, s.kernels());
                json.writeEndObject();
            }
            json.writeEndArray();
            json.writeEndObject();
        }
    }

    private static void writeOptional(JsonGenerator json, String field, java.util.OptionalLong value)
            throws IOException {
        if (value.isPresent()) {
            json.writeNumberField(field, value.getAsLong());
        } else {
            json.writeNullField(field);
        }
    }

    private static void writeKernels(JsonGenerator json, List<KernelStats> kernels) throws IOException {
        json.writeArrayFieldStart("kernels");
        for (KernelStats k : kernels) {
            json.writeStartObject();
            json.writeStringField("name", k.name());
            json.writeNumberField("count", k.count());
            json.writeNumberField("totalNs", k.totalNs());
            json.writeEndObject();
        }
        json.writeEndArray();
    }

    /**
     * Reads a baseline file, an {@code analyze --format json} output or a {@code summary.json}.
     *
     * @throws TraceFormatException when the JSON has none of those shapes, or a {@code stages} entry names an
     *                              unknown stage or has no steps
     * @throws IOException          when the file cannot be read or is not JSON
     */
    public static TraceBaseline read(Path file) throws IOException {
        JsonNode root = new ObjectMapper().readTree(file.toFile());
        List<JsonNode> summaries = new ArrayList<>();
        if (root.has("kernels")) {
            summaries.add(root);
        } else if (root.path("traces").isArray()) {
            root.path("traces").forEach(summaries::add);
        } else if (root.path("trace").path("ranks").isArray()) {
            root.path("trace").path("ranks").forEach(summaries::add);
        } else {
            throw new TraceFormatException(file, "not a baseline: no \"kernels\", \"traces\" or \"trace.ranks\"", null);
        }
        Map<String, long[]> merged = new LinkedHashMap<>();
        long total = 0;
        long busy = 0;
        for (JsonNode s : summaries) {
            for (JsonNode k : s.path("kernels")) {
                long[] m = merged.computeIfAbsent(k.path("name").asText(), n -> new long[2]);
                m[0] += k.path("count").asLong();
                m[1] += k.path("totalNs").asLong();
            }
            total += s.path("kernelTotalNs").asLong();
            busy += s.has("busyNs") ? s.path("busyNs").asLong() : sumBusy(s.path("devices"));
        }
        return new TraceBaseline(total, busy, toStats(merged), readStages(file, root.path("stages")));
    }

    private static List<StageKernels> readStages(Path file, JsonNode stages) throws TraceFormatException {
        List<StageKernels> list = new ArrayList<>();
        for (JsonNode s : stages) {
            StepStats.Stage stage;
            try {
                stage = StepStats.Stage.valueOf(s.path("stage").asText());
            } catch (IllegalArgumentException e) {
                throw new TraceFormatException(file, "baseline stage \"" + s.path("stage").asText()
                        + "\" is none of " + java.util.Arrays.toString(StepStats.Stage.values()), e);
            }
            if (s.path("steps").asLong() < 1) {
                throw new TraceFormatException(file, "baseline stage " + stage + " has no steps", null);
            }
            Map<String, long[]> kernels = new LinkedHashMap<>();
            for (JsonNode k : s.path("kernels")) {
                long[] m = kernels.computeIfAbsent(k.path("name").asText(), n -> new long[2]);
                m[0] += k.path("count").asLong();
                m[1] += k.path("totalNs").asLong();
            }
            JsonNode tokens = s.path("tokens");
            JsonNode requests = s.path("requests");
            list.add(new StageKernels(stage, s.path("steps").asLong(), tokens.isNumber()
                    ? java.util.OptionalLong.of(tokens.asLong()) : java.util.OptionalLong.empty(), requests.isNumber()
                    ? java.util.OptionalLong.of(requests.asLong()) : java.util.OptionalLong.empty(),
                    s.path("kernelNs").asLong(), StageKernels.toStats(kernels)));
        }
        list.sort(java.util.Comparator.comparing(StageKernels::stage));
        return list;
    }

    private static long sumBusy(JsonNode devices) {
        long busy = 0;
        for (JsonNode d : devices) {
            busy += d.path("busyNs").asLong();
        }
        return busy;
    }

    /** Compares a run (one or more traces, kernels merged by name) with this baseline. */
    public BaselineDiff diff(Collection<TraceSummary> run) {
        TraceBaseline current = of(run);
        Map<String, KernelStats> base = new LinkedHashMap<>();
        kernels.forEach(k -> base.put(k.name(), k));
        Map<String, KernelStats> now = new LinkedHashMap<>();
        current.kernels.forEach(k -> now.put(k.name(), k));
        List<KernelDelta> deltas = new ArrayList<>();
        for (KernelStats b : kernels) {
            KernelStats n = now.get(b.name());
            deltas.add(new KernelDelta(b.name(), b.count(), n == null ? 0 : n.count(), b.totalNs(),
                    n == null ? 0 : n.totalNs()));
        }
        for (KernelStats n : current.kernels) {
            if (!base.containsKey(n.name())) {
                deltas.add(new KernelDelta(n.name(), 0, n.count(), 0, n.totalNs()));
            }
        }
        deltas.sort(KernelDelta.BY_ABSOLUTE_CHANGE);
        return new BaselineDiff(this, current, deltas, StageDelta.compare(stages, current.stages));
    }

    /** {@link #diff(Collection)} of one trace. */
    public BaselineDiff diff(TraceSummary run) {
        return diff(List.of(Objects.requireNonNull(run, "run")));
    }
}
