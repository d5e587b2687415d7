package dev.profiledrollout.trace;

import static org.apiguardian.api.API.Status.EXPERIMENTAL;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

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
 * Per-kernel counts and total times of a reference run, to compare later runs against ({@link #diff(Collection)}).
 * Immutable.
 *
 * <h2>File</h2>
 * {@link #write(Path)} writes {@code {"baselineVersion":1, "kernelTotalNs":N, "busyNs":N, "kernels":[{"name",
 * "count","totalNs"}]}} (ns; kernels sorted by totalNs descending). {@link #read(Path)} also accepts what
 * {@code analyze --format json} prints ({@code {"traces":[…]}}) and {@code summary.json} ({@code trace.ranks}), whose
 * per-file kernel lists are merged by name, so any earlier run's output can serve as a baseline.
 *
 * @param kernelTotalNs Σ kernel time, ns
 * @param busyNs        Σ device busy time, ns (0 when the source had no devices)
 * @param kernels       per kernel name: count and totalNs (min/max/percentiles are not kept)
 */
@API(status = EXPERIMENTAL, since = "0.1")
public record TraceBaseline(long kernelTotalNs, long busyNs, List<KernelStats> kernels) {

    public TraceBaseline {
        kernels = List.copyOf(kernels);
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
        return new TraceBaseline(total, busy, toStats(merged));
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
            json.writeNumberField("baselineVersion", 1);
            json.writeNumberField("kernelTotalNs", kernelTotalNs);
            json.writeNumberField("busyNs", busyNs);
            json.writeArrayFieldStart("kernels");
            for (KernelStats k : kernels) {
                json.writeStartObject();
                json.writeStringField("name", k.name());
                json.writeNumberField("count", k.count());
                json.writeNumberField("totalNs", k.totalNs());
                json.writeEndObject();
            }
            json.writeEndArray();
            json.writeEndObject();
        }
    }

    /**
     * Reads a baseline file, an {@code analyze --format json} output or a {@code summary.json}.
     *
     * @throws TraceFormatException when the JSON has none of those shapes
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
        return new TraceBaseline(total, busy, toStats(merged));
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
        return new BaselineDiff(this, current, deltas);
    }

    /** {@link #diff(Collection)} of one trace. */
    public BaselineDiff diff(TraceSummary run) {
        return diff(List.of(Objects.requireNonNull(run, "run")));
    }
}
