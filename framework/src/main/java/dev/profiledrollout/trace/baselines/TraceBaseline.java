package dev.profiledrollout.trace.baselines;

import static org.apiguardian.api.API.Status.EXPERIMENTAL;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.DeserializationFeature;
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
        FileJson root = READER.readValue(file.toFile(), FileJson.class);
        List<SummaryJson> summaries;
        if (root.kernels() != null) {
            summaries = List.of(new SummaryJson(root.kernels(), root.kernelTotalNs(), root.busyNs(), root.devices()));
        } else if (root.traces() != null) {
            summaries = root.traces();
        } else if (root.trace() != null && root.trace().ranks() != null) {
            summaries = root.trace().ranks();
        } else {
            throw new TraceFormatException(file, "not a baseline: no \"kernels\", \"traces\" or \"trace.ranks\"", null);
        }
        Map<String, long[]> merged = new LinkedHashMap<>();
        long total = 0;
        long busy = 0;
        for (SummaryJson s : summaries) {
            add(merged, s.kernels());
            total += orZero(s.kernelTotalNs());
            busy += s.busyNs() != null ? s.busyNs() : sumBusy(s.devices());
        }
        return new TraceBaseline(total, busy, toStats(merged), readStages(file, root.stages()));
    }

    /** The mapper {@link #read} reads with: fields of the three shapes it does not name are ignored. */
    private static final ObjectMapper READER = new ObjectMapper()
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

    /**
     * The three shapes {@link #read} accepts, as one record: a baseline file (the top-level {@code kernels},
     * {@code kernelTotalNs}, {@code busyNs}, {@code stages}), {@code analyze --format json} ({@code traces}) and
     * {@code summary.json} ({@code trace.ranks}); a field the file lacks is null.
     */
    record FileJson(List<KernelJson> kernels, Long kernelTotalNs, Long busyNs, List<DeviceJson> devices,
                            List<SummaryJson> traces, TraceJson trace, List<StageJson> stages) {
    }

    /** {@code summary.json}'s {@code trace}, of which only {@code ranks} is read. */
    record TraceJson(List<SummaryJson> ranks) {
    }

    /** One trace's summary: its kernels, Σ kernel time (ns) and busy time (ns), or its devices to sum it from. */
    record SummaryJson(List<KernelJson> kernels, Long kernelTotalNs, Long busyNs, List<DeviceJson> devices) {
    }

    /** One kernel: its name, launches and Σ time (ns). */
    record KernelJson(String name, Long count, Long totalNs) {
    }

    /** One GPU of a trace summary, of which only its busy time (ns) is read. */
    record DeviceJson(Long busyNs) {
    }

    /** One element of a baseline's {@code stages}; {@code tokens} and {@code requests} are null when not known. */
    record StageJson(String stage, Long steps, Long tokens, Long requests, Long kernelNs,
                             List<KernelJson> kernels) {
    }

    private static long orZero(Long v) {
        return v == null ? 0 : v;
    }

    private static void add(Map<String, long[]> into, List<KernelJson> kernels) {
        if (kernels == null) {
            return;
        }
        for (KernelJson k : kernels) {
            long[] m = into.computeIfAbsent(k.name() == null ? "" : k.name(), n -> new long[2]);
            m[0] += orZero(k.count());
            m[1] += orZero(k.totalNs());
        }
    }

    private static List<StageKernels> readStages(Path file, List<StageJson> stages) throws TraceFormatException {
        List<StageKernels> list = new ArrayList<>();
        for (StageJson s : stages == null ? List.<StageJson>of() : stages) {
            StepStats.Stage stage;
            try {
                stage = StepStats.Stage.valueOf(String.valueOf(s.stage()));
            } catch (IllegalArgumentException e) {
                throw new TraceFormatException(file, "baseline stage \"" + s.stage()
                        + "\" is none of " + java.util.Arrays.toString(StepStats.Stage.values()), e);
            }
            if (orZero(s.steps()) < 1) {
                throw new TraceFormatException(file, "baseline stage " + stage + " has no steps", null);
            }
            Map<String, long[]> kernels = new LinkedHashMap<>();
            add(kernels, s.kernels());
            list.add(new StageKernels(stage, s.steps(), s.tokens() != null
                    ? java.util.OptionalLong.of(s.tokens()) : java.util.OptionalLong.empty(), s.requests() != null
                    ? java.util.OptionalLong.of(s.requests()) : java.util.OptionalLong.empty(),
                    orZero(s.kernelNs()), StageKernels.toStats(kernels)));
        }
        list.sort(java.util.Comparator.comparing(StageKernels::stage));
        return list;
    }

    private static long sumBusy(List<DeviceJson> devices) {
        long busy = 0;
        for (DeviceJson d : devices == null ? List.<DeviceJson>of() : devices) {
            busy += orZero(d.busyNs());
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
